package bolt

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"licensectl/store"
)

// millionLicenses is the size of the file BenchmarkOpenAndPage opens.
const millionLicenses = 1_000_000

// bigFile is a database file of millionLicenses licenses in one scope.
type bigFile struct {
	Path  string
	Scope store.Scope
}

// millionFile returns the file of a million licenses, building it on first
// use (minutes) under os.TempDir, keyed by schema version, so that reruns
// only open it. A build that did not finish is never reused: the file is
// renamed into place, and its scope written beside it, only once complete.
func millionFile(b *testing.B) bigFile {
	b.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("licensectl-bench-schema%d", SchemaVersion))
	f := bigFile{Path: filepath.Join(dir, "1m-licenses.db")}
	scopeFile := f.Path + ".scope.json"
	if raw, err := os.ReadFile(scopeFile); err == nil && json.Unmarshal(raw, &f.Scope) == nil {
		if _, err := os.Stat(f.Path); err == nil {
			return f
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	tmp := f.Path + ".building"
	os.Remove(tmp)
	db, err := Open(tmp, Options{Policies: store.Policies{Hasher: fakeHasher{}}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	org, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Big"})
	if err != nil {
		b.Fatal(err)
	}
	app, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org.ID, Name: "Big"})
	if err != nil {
		b.Fatal(err)
	}
	f.Scope = store.Scope{OrgID: org.ID, AppID: app.ID, Env: store.EnvProduction}
	name := "Plan"
	p, err := db.CreatePlan(ctx, f.Scope.App(), store.PlanInput{Name: &name})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for i := range millionLicenses / store.MaxGenerate {
		if _, err := db.GenerateLicenses(ctx, f.Scope, store.GenerateLicensesInput{PlanID: p.ID, Quantity: store.MaxGenerate}); err != nil {
			b.Fatal(err)
		}
		if (i+1)%100 == 0 {
			b.Logf("built %d licenses in %s", (i+1)*store.MaxGenerate, time.Since(start).Round(time.Second))
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, f.Path); err != nil {
		b.Fatal(err)
	}
	raw, _ := json.Marshal(f.Scope)
	if err := os.WriteFile(scopeFile, raw, 0o600); err != nil {
		b.Fatal(err)
	}
	return f
}

// evict drops the file's pages from the page cache, so that the next open
// reads from the disk as after a reboot (as far as one file goes: the disk's
// own cache is not ours to drop).
func evict(b *testing.B, path string) {
	b.Helper()
	fh, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer fh.Close()
	if err := unix.Fadvise(int(fh.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkOpenAndPage opens a file of a million licenses cold (its pages
// evicted from the page cache) and warm, then reads page 1 and page 10,000
// of 20 by cursor. It reports figures and asserts none of them:
//
//	go test -run '^$' -bench OpenAndPage -benchtime=1x ./store/bolt
//
// The first run builds the file (about 1 GB, minutes).
func BenchmarkOpenAndPage(b *testing.B) {
	f := millionFile(b)
	ctx := context.Background()
	open := func(cold bool) (*DB, time.Duration) {
		if cold {
			evict(b, f.Path)
		}
		start := time.Now()
		db, err := Open(f.Path, Options{Policies: store.Policies{Hasher: fakeHasher{}}})
		if err != nil {
			b.Fatal(err)
		}
		return db, time.Since(start)
	}
	read := func(db *DB, pr store.PageRequest) (*store.Page[*store.LicenseItem], time.Duration) {
		start := time.Now()
		p, err := db.ListLicenses(ctx, f.Scope, store.LicenseFilter{PageRequest: pr})
		if err != nil {
			b.Fatal(err)
		}
		return p, time.Since(start)
	}
	// The cursor that page 9,999 answers with leads to page 10,000. Page
	// 10,000 by number is the check that the cursor lands where it should.
	db, _ := open(false)
	before, _ := read(db, store.PageRequest{Page: 9_999, PerPage: 20})
	byNumber, _ := read(db, store.PageRequest{Page: 10_000, PerPage: 20})
	if before.Total != millionLicenses || before.NextCursor == "" {
		b.Fatalf("page 9,999: total %d, next cursor %q", before.Total, before.NextCursor)
	}
	db.Close()

	var cold, warm, page1, page10k time.Duration
	for b.Loop() {
		db, d := open(true)
		cold += d
		db.Close()
		db, d = open(false)
		warm += d
		first, d := read(db, store.PageRequest{PerPage: 20, Cursor: ""})
		page1 += d
		deep, d := read(db, store.PageRequest{PerPage: 20, Cursor: before.NextCursor})
		page10k += d
		if len(first.Data) != 20 || len(deep.Data) != 20 || deep.Data[0].ID != byNumber.Data[0].ID {
			b.Fatalf("page 10,000 by cursor starts at %s, by number at %s", deep.Data[0].ID, byNumber.Data[0].ID)
		}
		db.Close()
	}
	n := float64(b.N)
	b.ReportMetric(float64(cold.Microseconds())/1000/n, "open-cold-ms")
	b.ReportMetric(float64(warm.Microseconds())/1000/n, "open-warm-ms")
	b.ReportMetric(float64(page1.Microseconds())/1000/n, "page1-ms")
	b.ReportMetric(float64(page10k.Microseconds())/1000/n, "page10000-ms")
}

// BenchmarkFreelist weighs the two ways of keeping bbolt's freelist on the
// file of a million licenses: rebuilt from the pages at every open (nothing
// written per commit), or synced (written by every commit, read at open).
// It reports open cold and warm and one small commit (a license's status
// change, fsync included):
//
//	go test -run '^$' -bench Freelist -benchtime=1x ./store/bolt
func BenchmarkFreelist(b *testing.B) {
	f := millionFile(b)
	ctx := context.Background()
	saved := rebuildFreelist
	b.Cleanup(func() { rebuildFreelist = saved })
	for _, mode := range []struct {
		name    string
		rebuild bool
	}{{"rebuild", true}, {"synced", false}} {
		b.Run(mode.name, func(b *testing.B) {
			rebuildFreelist = mode.rebuild
			open := func() *DB {
				db, err := Open(f.Path, Options{Policies: store.Policies{Hasher: fakeHasher{}}})
				if err != nil {
					b.Fatal(err)
				}
				return db
			}
			// The first open in a mode converts the file to it: its
			// commit writes, or drops, the stored freelist.
			db := open()
			first, err := db.ListLicenses(ctx, f.Scope, store.LicenseFilter{PageRequest: store.PageRequest{PerPage: 1}})
			if err != nil {
				b.Fatal(err)
			}
			id := first.Data[0].ID
			db.Close()
			const commits = 20
			var cold, warm, commit time.Duration
			for b.Loop() {
				evict(b, f.Path)
				start := time.Now()
				db := open()
				cold += time.Since(start)
				db.Close()
				start = time.Now()
				db = open()
				warm += time.Since(start)
				start = time.Now()
				for i := range commits {
					status := store.LicenseSuspended
					if i%2 == 1 {
						status = store.LicenseActive
					}
					if _, err := db.SetLicenseStatus(ctx, f.Scope, id, status); err != nil {
						b.Fatal(err)
					}
				}
				commit += time.Since(start)
				db.Close()
			}
			n := float64(b.N)
			b.ReportMetric(float64(cold.Microseconds())/1000/n, "open-cold-ms")
			b.ReportMetric(float64(warm.Microseconds())/1000/n, "open-warm-ms")
			b.ReportMetric(float64(commit.Microseconds())/1000/n/commits, "commit-ms")
		})
	}
}
