package storetest

import (
	"strings"
	"testing"
	"time"

	"licensectl/store"
)

// testCursorPaging walks lists by next cursor: every item once, in the order
// the numbered pages give, and a cursor the list did not answer with is
// validation_failed naming cursor.
func testCursorPaging(t *testing.T, open Opener) {
	f := newFixture(t, open)
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Cursor")}, 23)
	sc := f.scope(store.EnvProduction)
	list := func(pr store.PageRequest) (*store.Page[*store.LicenseItem], error) {
		return f.db.ListLicenses(f.ctx, sc, store.LicenseFilter{PageRequest: pr})
	}
	all, err := list(store.PageRequest{PerPage: store.MaxPerPage})
	if err != nil || len(all.Data) != len(gen) || all.NextCursor != "" {
		t.Fatalf("one page of all = %d items, next %q, %v; want %d and no next", len(all.Data), all.NextCursor, err, len(gen))
	}
	t.Run("OKEveryItemOnceInOrder", func(t *testing.T) {
		var got []string
		req, pages := store.PageRequest{PerPage: 5}, 0
		for {
			p, err := list(req)
			if err != nil {
				t.Fatalf("page %d: %v", pages+1, err)
			}
			if p.Total != len(gen) {
				t.Fatalf("page %d: total %d, want %d", pages+1, p.Total, len(gen))
			}
			for _, l := range p.Data {
				got = append(got, l.ID)
			}
			if pages++; p.NextCursor == "" || pages > 10 {
				break
			}
			req.Cursor = p.NextCursor
		}
		if pages != 5 || len(got) != len(all.Data) {
			t.Fatalf("%d pages, %d items; want 5 pages, %d items", pages, len(got), len(all.Data))
		}
		for i, l := range all.Data {
			if got[i] != l.ID {
				t.Fatalf("item %d by cursor = %s, by page = %s", i, got[i], l.ID)
			}
		}
	})
	t.Run("OKResumesPastAKeyGoneSince", func(t *testing.T) {
		// Suspending the last license of a page takes its key out of the
		// inactive index the cursor names.
		inactive := func(pr store.PageRequest) (*store.Page[*store.LicenseItem], error) {
			return f.db.ListLicenses(f.ctx, sc, store.LicenseFilter{Status: store.LicenseInactive, PageRequest: pr})
		}
		first, err := inactive(store.PageRequest{PerPage: 3})
		if err != nil || first.NextCursor == "" || first.Data[2].ID != all.Data[2].ID {
			t.Fatalf("first inactive page = %+v, %v", first, err)
		}
		if _, err := f.db.SetLicenseStatus(f.ctx, sc, first.Data[2].ID, store.LicenseSuspended); err != nil {
			t.Fatalf("SetLicenseStatus: %v", err)
		}
		next, err := inactive(store.PageRequest{PerPage: 3, Cursor: first.NextCursor})
		if err != nil || len(next.Data) != 3 || next.Data[0].ID != all.Data[3].ID {
			t.Fatalf("after the key gone = %+v, %v; want it to start at %s", next, err, all.Data[3].ID)
		}
	})
	t.Run("OKLookupPagesByCursor", func(t *testing.T) {
		first, err := f.db.ListLicenses(f.ctx, sc, store.LicenseFilter{Key: gen[4].Key, PageRequest: store.PageRequest{PerPage: 1}})
		if err != nil || len(first.Data) != 1 || first.NextCursor != "" {
			t.Fatalf("by key = %+v, %v; want one item and no next", first, err)
		}
	})
	t.Run("OKAuditByCursor", func(t *testing.T) {
		// The whole log walks its index; a from bound pages a range
		// gathered in memory. Both see every entry once.
		from := time.Unix(0, 0)
		for _, af := range []store.AuditFilter{{}, {From: &from}} {
			seen := map[string]bool{}
			af.PageRequest = store.PageRequest{PerPage: 2}
			for i := 0; ; i++ {
				p, err := f.db.ListAudit(f.ctx, sc, af)
				if err != nil || i == 100 {
					t.Fatalf("audit (from %v) page %d: %v", af.From, i+1, err)
				}
				for _, e := range p.Data {
					if seen[e.ID] {
						t.Fatalf("audit (from %v): %s on two pages", af.From, e.ID)
					}
					seen[e.ID] = true
				}
				if p.NextCursor == "" {
					if len(seen) != p.Total || len(seen) < 3 {
						t.Fatalf("audit (from %v) by cursor saw %d entries of %d", af.From, len(seen), p.Total)
					}
					break
				}
				af.Cursor = p.NextCursor
			}
		}
	})
	t.Run("ErrInvalidCursor", func(t *testing.T) {
		first, err := list(store.PageRequest{PerPage: 2})
		if err != nil || first.NextCursor == "" {
			t.Fatalf("first page = %+v, %v", first, err)
		}
		for _, c := range []struct {
			what string
			f    store.LicenseFilter
		}{
			{"not base64", store.LicenseFilter{PageRequest: store.PageRequest{Cursor: "!!"}}},
			{"unknown kind", store.LicenseFilter{PageRequest: store.PageRequest{Cursor: "eHl6"}}},
			{"with a page", store.LicenseFilter{PageRequest: store.PageRequest{Page: 2, Cursor: first.NextCursor}}},
			{"of another filter", store.LicenseFilter{Status: store.LicenseInactive, PageRequest: store.PageRequest{Cursor: first.NextCursor}}},
			{"of another environment", store.LicenseFilter{PageRequest: store.PageRequest{Cursor: first.NextCursor}}},
			{"an offset on an index", store.LicenseFilter{PageRequest: store.PageRequest{Cursor: store.OffsetCursor(2)}}},
			{"a key on a lookup", store.LicenseFilter{Key: gen[0].Key, PageRequest: store.PageRequest{Cursor: first.NextCursor}}},
		} {
			s := sc
			if c.what == "of another environment" {
				s = f.scope(store.EnvDevelopment)
			}
			_, err := f.db.ListLicenses(f.ctx, s, c.f)
			wantCode(t, "ListLicenses(cursor "+c.what+")", err, store.ECodeValidation)
			// Over HTTP the field travels only in the message.
			if !strings.HasPrefix(store.ErrorMessage(err), "cursor ") {
				t.Fatalf("ListLicenses(cursor %s): %q does not name cursor", c.what, store.ErrorMessage(err))
			}
		}
	})
}
