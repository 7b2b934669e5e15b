package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestListLicensesByCursor walks the license list by next_cursor over HTTP:
// every license once, in the order one big page gives, and a cursor the list
// did not answer with is 400 validation_failed naming cursor.
func TestListLicensesByCursor(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	plan := f.newPlan(t, map[string]any{"name": "A"})
	generate(t, f, map[string]any{"plan_id": plan, "quantity": 12})
	all := getPage(t, f, "/licenses?per_page=100")
	if all.NextCursor != "" {
		t.Fatalf("one page of every license: next_cursor %q, want none", all.NextCursor)
	}

	var got []any
	path, pages := "/licenses?per_page=5", 0
	for ; pages < 10; pages++ {
		p := getPage(t, f, path)
		if p.Total != 12 || p.PerPage != 5 {
			t.Fatalf("GET %s: total %d, per_page %d", path, p.Total, p.PerPage)
		}
		if pages > 0 && p.Page != 0 {
			t.Fatalf("GET %s: page %d, want 0 when asked by cursor", path, p.Page)
		}
		for _, l := range p.Data {
			got = append(got, l["id"])
		}
		if p.NextCursor == "" {
			break
		}
		path = "/licenses?per_page=5&cursor=" + url.QueryEscape(p.NextCursor)
	}
	if pages != 2 || len(got) != len(all.Data) {
		t.Fatalf("%d pages, %d licenses; want 3 pages of 12", pages+1, len(got))
	}
	for i, l := range all.Data {
		if got[i] != l["id"] {
			t.Fatalf("license %d by cursor = %v, by page = %v", i, got[i], l["id"])
		}
	}

	first := getPage(t, f, "/licenses?per_page=5")
	for _, q := range []string{"cursor=%21%21", "cursor=" + first.NextCursor + "&page=2", "cursor=" + first.NextCursor + "&status=suspended"} {
		r := f.do(t, "GET", "/licenses?"+q, nil)
		r.WantError(t, http.StatusBadRequest, "validation_failed")
		if !strings.Contains(string(r.Body), `"message":"cursor `) {
			t.Fatalf("GET /licenses?%s: %s does not name cursor", q, r.Body)
		}
	}
}
