package tui

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"licensectl/server/client"
	"licensectl/server/servertest"
	"licensectl/store"
)

// TestRemoteServerComesBack (issue 25 item 13): the TUI runs against a real
// server, the server stops (polls fail with unavailable) and starts again on
// the same address. Once polls succeed, nothing on screen still says the
// server is unavailable: not the status line, not the list's title.
func TestRemoteServerComesBack(t *testing.T) {
	srv := servertest.New(t)
	org := srv.NewOrg(t)
	ctx := context.Background()
	app, err := srv.Store().CreateApplication(ctx, store.CreateApplicationInput{OrgID: org.ID, Name: "photo-editor"})
	if err != nil {
		t.Fatal(err)
	}
	name := "Pro"
	plan, err := srv.Store().CreatePlan(ctx, store.AppRef{OrgID: org.ID, AppID: app.ID}, store.PlanInput{Name: &name})
	if err != nil {
		t.Fatal(err)
	}
	scope := store.Scope{OrgID: org.ID, AppID: app.ID, Env: store.EnvProduction}
	if _, err := srv.Store().GenerateLicenses(ctx, scope, store.GenerateLicensesInput{PlanID: plan.ID, Quantity: 5}); err != nil {
		t.Fatal(err)
	}
	cfg := srv.Config
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Server.Listen = u.Host // the restarted server answers where the client looks

	h := newHarness(t, client.New(srv.URL, org.APIKey), Options{Remote: true, Where: srv.URL, OrgID: org.ID, AppID: app.ID}, 100, 30)
	over := focused(h.m.top()).(*overview)
	h.contains("Licenses  5")
	h.press("2")
	l := h.licenseList()
	h.contains("5 matching")

	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	// The live check fails, then a reload: the list keeps its rows, stale.
	h.send(tickMsg{screen: l.sid})
	h.contains("✗ unavailable")
	h.press("ctrl+r")
	h.contains("(stale")
	h.contains("✗ unavailable")
	h.send(tickMsg{screen: over.sid})
	h.contains("✗ unavailable")

	back := servertest.Start(t, cfg)
	h.later(h.m.c.pollDelay)
	h.send(tickMsg{screen: l.sid})
	h.contains("5 matching")
	if v := h.view(); strings.Contains(v, "unavailable") || strings.Contains(v, "stale") || strings.Contains(v, "✗") {
		t.Fatalf("the server answers again, yet the screen says otherwise:\n%s", v)
	}
	if h.m.c.pollDelay != 0 {
		t.Fatalf("poll delay after an answer: %s", h.m.c.pollDelay)
	}

	// The Overview's own failure clears with its next answer too.
	if err := back.Close(); err != nil {
		t.Fatal(err)
	}
	h.press("1")
	h.send(tickMsg{screen: over.sid})
	h.contains("✗ unavailable")
	servertest.Start(t, cfg)
	h.later(h.m.c.pollDelay)
	h.send(tickMsg{screen: over.sid})
	h.contains("Licenses  5")
	if v := h.view(); strings.Contains(v, "unavailable") || strings.Contains(v, "✗") {
		t.Fatalf("the Overview polled successfully, yet the screen says otherwise:\n%s", v)
	}
}
