package server_test

import (
	"net/http"
	"testing"
	"time"

	"licensectl/server/servertest"
)

func TestAuditLogs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	start := f.s.Clock().Now()
	ent := f.newEntitlement(t, "audited")
	f.s.Clock().Advance(time.Minute)
	plan := f.newPlan(t, map[string]any{"name": "Audited", "entitlement_ids": []string{ent}})
	f.s.Clock().Advance(time.Minute)
	mid := f.s.Clock().Now()
	lics := generate(t, f, map[string]any{"plan_id": plan, "quantity": 3})
	f.s.Clock().Advance(time.Minute)
	f.do(t, "PATCH", "/licenses/"+lics[0]["id"].(string), map[string]any{"status": "suspended"}).Want(t, http.StatusOK)
	f.do(t, "PATCH", "/plans/"+plan, map[string]any{"name": "Audited 2"}).Want(t, http.StatusOK)
	generate(t, f, map[string]any{"plan_id": plan}, "x-environment", "development")
	end := f.s.Clock().Now().Add(time.Second)

	t.Run("OK", func(t *testing.T) {
		p := getPage(t, f, "/audit-logs?per_page=100")
		// application.created, entitlement.created, plan.created, 3 × license.created, license.suspended, plan.updated.
		if p.Total != 8 || len(p.Data) != 8 {
			t.Fatalf("total = %d, len %d", p.Total, len(p.Data))
		}
		var events []string
		for _, e := range p.Data {
			events = append(events, e["event"].(string))
			servertest.WantKeys(t, e, "id", "event", "actor", "target", "ip", "user_agent", "metadata", "created_at")
		}
		if events[0] != "plan.updated" || events[1] != "license.suspended" || events[7] != "application.created" {
			t.Fatalf("events newest first = %v", events)
		}
		e := p.Data[1]
		actor, target := e["actor"].(map[string]any), e["target"].(map[string]any)
		servertest.WantKeys(t, actor, "type", "id")
		servertest.WantKeys(t, target, "type", "id")
		if actor["type"] != "api_key" || actor["id"] == "" || target["type"] != "license" || target["id"] != lics[0]["id"] {
			t.Fatalf("entry = %v", e)
		}
		if e["ip"] != "127.0.0.1" || e["user_agent"] == "" {
			t.Fatalf("ip/user_agent = %v / %v", e["ip"], e["user_agent"])
		}
		if m := e["metadata"].(map[string]any); m["from"] != "inactive" || m["to"] != "suspended" {
			t.Fatalf("metadata = %v", m)
		}
		servertest.WantTime(t, "created_at", e["created_at"])
	})

	t.Run("Environments", func(t *testing.T) {
		p := getPage(t, f, "/audit-logs?per_page=100", "x-environment", "development")
		got := map[string]int{}
		for _, e := range p.Data {
			got[e["event"].(string)]++
		}
		// Application-level events reach both logs; license events only their own.
		if got["plan.created"] != 1 || got["plan.updated"] != 1 || got["entitlement.created"] != 1 || got["license.created"] != 1 || got["license.suspended"] != 0 {
			t.Fatalf("development events = %v", got)
		}
	})

	t.Run("Filters", func(t *testing.T) {
		for _, c := range []struct {
			query     string
			total, n  int
			firstEvnt string
		}{
			{"?event=license.created", 3, 3, "license.created"},
			{"?event=license.created&per_page=2&page=2", 3, 1, "license.created"},
			{"?event=license.created&per_page=2&page=3", 3, 0, ""},
			{"?event=nothing.here", 0, 0, ""},
			{"?from=" + mid.Format(time.RFC3339Nano), 5, 5, "plan.updated"},
			{"?to=" + mid.Format(time.RFC3339Nano), 3, 3, "plan.created"},
			{"?from=" + start.Format(time.RFC3339Nano) + "&to=" + end.Format(time.RFC3339Nano), 8, 8, "plan.updated"}, // application.created shares start,
			{"?from=" + mid.Format(time.RFC3339Nano) + "&event=plan.created", 0, 0, ""},
			{"?to=" + mid.Format(time.RFC3339Nano) + "&event=plan.created", 1, 1, "plan.created"},
			{"?from=" + mid.Format(time.RFC3339Nano) + "&per_page=2&page=2", 5, 2, "license.created"},
			{"?from=" + mid.Format(time.RFC3339Nano) + "&per_page=2&page=4", 5, 0, ""},
			{"?from=" + mid.In(time.FixedZone("x", -5*3600)).Format(time.RFC3339Nano), 5, 5, "plan.updated"},
			{"?target_id=" + lics[0]["id"].(string), 2, 2, "license.suspended"},
			{"?target_id=" + lics[1]["id"].(string), 1, 1, "license.created"},
			{"?target_id=" + plan + "&per_page=1&page=2", 2, 1, "plan.created"},
			{"?target_id=" + lics[0]["id"].(string) + "&to=" + mid.Format(time.RFC3339Nano), 0, 0, ""},
			{"?target_id=nope", 0, 0, ""},
		} {
			p := getPage(t, f, "/audit-logs"+c.query)
			if p.Total != c.total || len(p.Data) != c.n {
				t.Errorf("%s: total %d, len %d; want %d, %d", c.query, p.Total, len(p.Data), c.total, c.n)
				continue
			}
			if c.n > 0 && p.Data[0]["event"] != c.firstEvnt {
				t.Errorf("%s: first event %v, want %s", c.query, p.Data[0]["event"], c.firstEvnt)
			}
		}
	})

	t.Run("ErrValidation", func(t *testing.T) {
		for _, q := range []string{"from=yesterday", "to=2024-01-01", "from=" + end.Format(time.RFC3339) + "&to=" + start.Format(time.RFC3339), "per_page=0", "per_page=101", "page=x",
			"target_id=" + plan + "&event=plan.created"} {
			f.do(t, "GET", "/audit-logs?"+q, nil).WantError(t, http.StatusBadRequest, "validation_failed")
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		theirs := f.s.NewOrg(t)
		f.s.As(t, theirs.APIKey, "GET", "/v1/mgmt/applications/"+f.app+"/audit-logs", nil).WantError(t, http.StatusNotFound, "not_found")
		f.s.As(t, f.key, "GET", "/v1/mgmt/applications/nope/audit-logs", nil).WantError(t, http.StatusNotFound, "not_found")
	})
}
