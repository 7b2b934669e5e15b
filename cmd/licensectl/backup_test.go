package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"licensectl/server/api"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"licensectl/server/servertest"
	"licensectl/store"
)

func TestBackupLocal(t *testing.T) {
	t.Parallel()
	c := newLocal(t)
	var org api.AdminOrganization
	c.json(&org, "org", "create", "Acme")
	var app api.ApplicationDetail
	c.json(&app, "app", "create", "Studio")

	file := filepath.Join(c.dir, "backup.db")
	var out backupView
	c.json(&out, "backup", file)
	if fi, err := os.Stat(file); err != nil || fi.Size() != out.Bytes || out.Bytes == 0 {
		t.Fatalf("backup wrote %+v, file %v %v", out, fi, err)
	}
	db := openBackup(t, file)
	if _, err := db.FindApplication(context.Background(), store.AppRef{OrgID: org.ID, AppID: app.ID}); err != nil {
		t.Fatalf("application missing from backup: %v", err)
	}

	c.fails(1, args("backup", file), "exists", "--force")
	c.ok("backup", file, "--force")
	c.fails(1, args("backup", filepath.Join(c.dir, "data", "licensectl.db"), "--force"), "the database itself")
	c.fails(1, args("backup", filepath.Join(c.dir, "missing", "b.db")), "does not exist")

	// To stdout, nothing else on it.
	raw := c.ok("backup", "-")
	piped := filepath.Join(c.dir, "piped.db")
	if err := os.WriteFile(piped, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	openBackup(t, piped)
	left, _ := filepath.Glob(filepath.Join(c.dir, ".*tmp-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}

// TestBackupRemoteUnderLoad takes a backup through the API while another
// goroutine keeps generating licenses through the API, and checks that the
// copy is a sound database holding every license acknowledged before the
// backup started.
func TestBackupRemoteUnderLoad(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t)
	if _, ok := srv.Store().(store.FileBackup); !ok {
		t.Skip("the store is not one file (PostgreSQL): operate.txtar covers backup's answer there")
	}
	org := srv.NewOrg(t)
	c := newRemote(t, srv.URL, srv.OperatorToken())
	dev := newRemote(t, srv.URL, org.APIKey)
	var a api.ApplicationDetail
	dev.json(&a, "app", "create", "Studio")
	var plan api.PlanItem
	dev.json(&plan, "plan", "create", "--app", a.ID, "Pro")

	var (
		mu    sync.Mutex
		acked []api.LicenseItem
		stop  = make(chan struct{})
		done  = make(chan error, 1)
	)
	go func() {
		client := &http.Client{Timeout: 10 * time.Second}
		for {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			body, _ := json.Marshal(map[string]any{"plan_id": plan.ID, "quantity": 10})
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/mgmt/applications/"+a.ID+"/licenses", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+org.APIKey)
			res, err := client.Do(req)
			if err != nil {
				done <- err
				return
			}
			var out api.LicensesGenerated
			err = json.NewDecoder(res.Body).Decode(&out)
			res.Body.Close()
			if err != nil || res.StatusCode != http.StatusCreated {
				done <- fmt.Errorf("generate: status %d: %v", res.StatusCode, err)
				return
			}
			mu.Lock()
			acked = append(acked, out.Licenses...)
			mu.Unlock()
		}
	}()

	// Let the writer get going, then note what is acknowledged.
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 200 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	before := append([]api.LicenseItem(nil), acked...)
	mu.Unlock()
	file := filepath.Join(c.dir, "backup.db")
	c.ok("backup", file)
	mu.Lock()
	during := len(acked) - len(before)
	mu.Unlock()
	close(stop)
	if err := <-done; err != nil {
		t.Fatalf("writer: %v", err)
	}
	t.Logf("%d licenses acknowledged before the backup, %d while it ran", len(before), during)

	db := openBackup(t, file)
	sc := store.Scope{OrgID: org.ID, AppID: a.ID, Env: store.EnvProduction}
	for _, l := range before {
		got, err := db.FindLicense(context.Background(), sc, l.ID)
		if err != nil || got.Key != l.Key {
			t.Fatalf("license %s acknowledged before the backup: %v %+v", l.ID, err, got)
		}
	}
	page, err := db.ListLicenses(context.Background(), sc, store.LicenseFilter{PageRequest: store.PageRequest{Page: 1, PerPage: 1}})
	if err != nil || page.Total < len(before) {
		t.Fatalf("backup holds %v licenses, want at least %d (%v)", page, len(before), err)
	}

	// A developer API key may not take backups.
	dev.fails(1, args("backup", filepath.Join(c.dir, "nope.db")), "Error: forbidden: ")
	if _, err := os.Stat(filepath.Join(c.dir, "nope.db")); !os.IsNotExist(err) {
		t.Fatalf("a refused backup left a file: %v", err)
	}
}
