package main

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/server/api"
	"licensectl/server/servertest"
)

// The README's `webhook deliveries` example is the table the command
// prints: the same columns, and rows of the same shape as real ones (an
// answer of 500 with no error, an attempt that got no answer with its
// error), so a column added to the command and not to the README fails
// here.
func TestREADMEWebhookDeliveries(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			// The first attempt gets no answer: the connection is dropped.
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(rc.Close)

	srv := servertest.New(t, func(c *config.Config) {
		c.Webhooks.AllowHTTP, c.Webhooks.AllowPrivateTargets = true, true
	})
	org := srv.NewOrg(t)
	c := newRemote(t, srv.URL, org.APIKey)
	c.ok("app", "create", "Photo Editor")
	var hook api.WebhookCreated
	c.json(&hook, "webhook", "create", "--app", "photo-editor", "--url", rc.URL+"/hooks", "--events", "plan.*")
	c.ok("plan", "create", "--app", "photo-editor", "Pro", "--max-devices", "2")
	c.ok("plan", "create", "--app", "photo-editor", "Team", "--max-devices", "5")
	deadline := time.Now().Add(20 * time.Second)
	for {
		var page api.Page[api.Delivery]
		c.json(&page, "webhook", "deliveries", "--app", "photo-editor", hook.ID)
		tried := 0
		for _, d := range page.Data {
			if d.Attempts > 0 {
				tried++
			}
		}
		if tried == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the two deliveries were not attempted in 20 s: %+v", page.Data)
		}
		time.Sleep(50 * time.Millisecond)
	}
	printed := c.ok("webhook", "deliveries", "--app", "photo-editor", hook.ID)
	real := tableCells(t, printed)

	example := tableCells(t, readmeBlock(t, "deliveries"))
	if got, want := strings.Join(example[0], " | "), strings.Join(real[0], " | "); got != want {
		t.Fatalf("README deliveries header:\n  %s\nthe command prints:\n  %s", got, want)
	}
	if len(example) < 3 {
		t.Fatalf("README deliveries example has %d rows, want one answered and one unanswered", len(example)-1)
	}
	for _, row := range example[1:] {
		found := false
		for _, r := range real[1:] {
			found = found || sameShape(row, r)
		}
		if !found {
			t.Errorf("README deliveries row %q has the shape of no real row; the command printed:\n%s", row, printed)
		}
	}
}

// tableCells splits a table into rows of cells, cells being separated by
// two spaces or more (a cell such as LAST ATTEMPT holds one space), and
// drops the footer line.
func tableCells(t *testing.T, out string) [][]string {
	t.Helper()
	var rows [][]string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " ")
		if line == "" || !strings.Contains(line, "  ") {
			continue
		}
		rows = append(rows, regexp.MustCompile(`\s{2,}`).Split(line, -1))
	}
	if len(rows) == 0 {
		t.Fatalf("no table in:\n%s", out)
	}
	return rows
}

var (
	cellID       = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	cellTime     = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)
	cellDuration = regexp.MustCompile(`^(<1ms|\d+(\.\d+)?(ms|s|m))$`)
	cellNumber   = regexp.MustCompile(`^\d+$`)
)

// sameShape reports whether two rows have the same columns, each holding
// the same kind of value, with the same status, HTTP answer (none, or
// which) and an error in the same place.
func sameShape(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	kind := func(s string) string {
		switch {
		case cellID.MatchString(s):
			return "id"
		case cellTime.MatchString(s):
			return "time"
		case cellDuration.MatchString(s):
			return "duration"
		case cellNumber.MatchString(s):
			return "number"
		}
		return "text"
	}
	for i := range a {
		if kind(a[i]) != kind(b[i]) {
			return false
		}
	}
	// ID EVENT STATUS ATTEMPTS HTTP: the status and the HTTP answer say
	// which case the row shows.
	return a[2] == b[2] && (a[4] == "0") == (b[4] == "0")
}
