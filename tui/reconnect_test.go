package tui

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"licensectl/config"
	"licensectl/server/client"
	"licensectl/server/servertest"
	"licensectl/store"
)

// remoteApp is a real server with an organization, an application, a plan
// and n licenses, and the configuration that starts it again where it was.
type remoteApp struct {
	srv   *servertest.Server
	cfg   config.Config
	org   *servertest.Org
	app   *store.Application
	scope store.Scope
	plan  *store.Plan
}

func startRemoteApp(t *testing.T, n int) *remoteApp {
	t.Helper()
	r := &remoteApp{srv: servertest.New(t)}
	r.org = r.srv.NewOrg(t)
	ctx := context.Background()
	var err error
	if r.app, err = r.srv.Store().CreateApplication(ctx, store.CreateApplicationInput{OrgID: r.org.ID, Name: "photo-editor"}); err != nil {
		t.Fatal(err)
	}
	name := "Pro"
	if r.plan, err = r.srv.Store().CreatePlan(ctx, store.AppRef{OrgID: r.org.ID, AppID: r.app.ID}, store.PlanInput{Name: &name}); err != nil {
		t.Fatal(err)
	}
	r.scope = store.Scope{OrgID: r.org.ID, AppID: r.app.ID, Env: store.EnvProduction}
	if _, err := r.srv.Store().GenerateLicenses(ctx, r.scope, store.GenerateLicensesInput{PlanID: r.plan.ID, Quantity: n}); err != nil {
		t.Fatal(err)
	}
	r.cfg = r.srv.Config
	u, err := url.Parse(r.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	r.cfg.Server.Listen = u.Host // the restarted server answers where the client looks
	return r
}

// stop stops the server; restart starts it again on the same address and file.
func (r *remoteApp) stop(t *testing.T) {
	t.Helper()
	if err := r.srv.Close(); err != nil {
		t.Fatal(err)
	}
}

func (r *remoteApp) restart(t *testing.T) { r.srv = servertest.Start(t, r.cfg) }

func (r *remoteApp) options() Options {
	return Options{Data: client.New(r.srv.URL, r.org.APIKey), Remote: true, Where: r.srv.URL, OrgID: r.org.ID, AppID: r.app.ID}
}

// TestRemoteServerComesBack (issue 25 item 13): the TUI runs against a real
// server, the server stops (polls fail with unavailable) and starts again on
// the same address. Once polls succeed, nothing on screen still says the
// server is unavailable: not the status line, not the list's title.
func TestRemoteServerComesBack(t *testing.T) {
	r := startRemoteApp(t, 5)
	o := r.options()
	h := newHarness(t, o.Data, o, 100, 30)
	over := focused(h.m.top()).(*overview)
	h.contains("Licenses  5")
	h.press("2")
	l := h.licenseList()
	h.contains("5 matching")

	r.stop(t)
	// The live check fails, then a reload: the list keeps its rows, stale.
	h.send(tickMsg{screen: l.sid})
	h.contains("✗ unavailable")
	h.press("ctrl+r")
	h.contains("(stale")
	h.contains("✗ unavailable")
	h.send(tickMsg{screen: over.sid})
	h.contains("✗ unavailable")

	// comesBack starts the server again, lets screen sid poll once the
	// back-off has passed, and finds nothing on screen still reporting the
	// outage.
	comesBack := func(sid uint64, want string) {
		t.Helper()
		r.restart(t)
		h.later(h.m.c.pollDelay)
		h.send(tickMsg{screen: sid})
		h.contains(want)
		if v := h.view(); strings.Contains(v, "unavailable") || strings.Contains(v, "stale") || strings.Contains(v, "✗") {
			t.Fatalf("the server answers again, yet the screen says otherwise:\n%s", v)
		}
		if h.m.c.pollDelay != 0 {
			t.Fatalf("poll delay after an answer: %s", h.m.c.pollDelay)
		}
	}
	comesBack(l.sid, "5 matching")

	// The Overview's own failure clears with its next answer too.
	r.stop(t)
	h.press("1")
	h.send(tickMsg{screen: over.sid})
	h.contains("✗ unavailable")
	comesBack(over.sid, "Licenses  5")
}

// TestProgramServerComesBack: the same outage in the real tea.Program, its
// ticks and back-off running on their own: the Overview polls, fails while
// the server is down, and once it is back shows what changed meanwhile,
// with no error left on screen.
func TestProgramServerComesBack(t *testing.T) {
	r := startRemoteApp(t, 5)
	o := r.options()
	o.Refresh = 100 * time.Millisecond
	m, err := build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	waitFor(t, tm, "Licenses  5", "ready")
	r.stop(t)
	waitFor(t, tm, "✗ unavailable")
	r.restart(t)
	if _, err := r.srv.Store().GenerateLicenses(context.Background(), r.scope, store.GenerateLicensesInput{PlanID: r.plan.ID, Quantity: 1}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tm, "Licenses  6") // the next poll after the restart
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	v := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).View()
	if strings.Contains(v, "unavailable") || strings.Contains(v, "✗") {
		t.Fatalf("polls succeed, yet the screen says otherwise:\n%s", v)
	}
}
