package tui

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"licensectl/offline"
	"licensectl/server/servertest"
	"licensectl/store"
	"licensectl/store/bolt"
	"licensectl/store/password"
	"licensectl/store/postgres/pgtest"
)

// updating reports the -update flag (rewrite the golden files under
// testdata). teatest's golden package registers it in this test binary.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// fixedNow is the clock of every test: relative times in goldens stay put.
var fixedNow = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	time.Local = time.UTC // the status line shows local times; goldens must not depend on TZ
	os.Setenv("LANG", "C.UTF-8")
	code := m.Run()
	pgtest.Stop() // the throw-away cluster of LICENSECTL_TEST_STORE=postgres, if any
	os.Exit(code)
}

// harness drives the root model by hand: commands run synchronously and
// their messages are fed back until nothing is left.
type harness struct {
	t    testing.TB
	m    *model
	now  time.Time
	quit bool
}

func newHarness(t testing.TB, data Data, o Options, w, h int) *harness {
	t.Helper()
	hs := &harness{t: t, now: fixedNow}
	o.Data = data
	o.Now = func() time.Time { return hs.now }
	if o.Env == "" {
		o.Env = store.EnvProduction
	}
	m, err := build(context.Background(), o)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	m.c.noTicks = true
	hs.m = m
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(m.Init())
	return hs
}

func (h *harness) send(msg tea.Msg) {
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

// run executes cmd and everything it leads to.
func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		var msg tea.Msg
		select {
		case msg = <-done:
		case <-time.After(10 * time.Second):
			h.t.Fatal("a command did not finish")
		}
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.QuitMsg:
			h.quit = true
		default:
			_, next := h.m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// press sends keys: names like "enter", "esc", "up", "ctrl+r", or text
// sent as one batch of runes (as a fast typist's keys arrive).
func (h *harness) press(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.send(keyMsg(k))
	}
}

func (h *harness) view() string { return h.m.View() }

func (h *harness) contains(want string) {
	h.t.Helper()
	if v := h.view(); !strings.Contains(v, want) {
		h.t.Fatalf("view lacks %q:\n%s", want, v)
	}
}

// later moves the clock on (past the typed-confirmation guard).
func (h *harness) later(d time.Duration) { h.now = h.now.Add(d) }

// golden compares got with testdata/name.golden (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// seeded is a real bbolt store with an organization, an application, a
// plan and n licenses.
type seeded struct {
	db    *bolt.DB
	orgID string
	app   *store.Application
	plan  *store.Plan
}

// licenseItems lists the seeded licenses, newest first.
func (s *seeded) licenseItems(t testing.TB) []*store.LicenseItem {
	t.Helper()
	p, err := s.db.ListLicenses(context.Background(), s.scope(), store.LicenseFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Data
}

func seed(t testing.TB, n int) *seeded {
	t.Helper()
	ctx := context.Background()
	// A cheap hasher: members and end-users need one, and argon2id at its
	// real cost would dominate the suite.
	db, err := bolt.Open(filepath.Join(t.TempDir(), "licensectl.db"), bolt.Options{Policies: store.Policies{Hasher: password.NewHasher(password.Options{Params: &servertest.CheapHash}), MachineFiles: offline.Sign}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	org, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	app, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org.ID, Name: "photo-editor"})
	if err != nil {
		t.Fatal(err)
	}
	name, maxDev := "Pro", 2
	plan, err := db.CreatePlan(ctx, store.AppRef{OrgID: org.ID, AppID: app.ID}, store.PlanInput{Name: &name, MaxDevices: &maxDev})
	if err != nil {
		t.Fatal(err)
	}
	s := store.Scope{OrgID: org.ID, AppID: app.ID, Env: store.EnvProduction}
	for n > 0 {
		q := min(n, store.MaxGenerate)
		if _, err := db.GenerateLicenses(ctx, s, store.GenerateLicensesInput{PlanID: plan.ID, Quantity: q}); err != nil {
			t.Fatal(err)
		}
		n -= q
	}
	return &seeded{db: db, orgID: org.ID, app: app, plan: plan}
}

func (s *seeded) scope() store.Scope {
	return store.Scope{OrgID: s.orgID, AppID: s.app.ID, Env: store.EnvProduction}
}

// licenses opens the app dashboard on the Licenses tab.
func (s *seeded) licenses(t testing.TB, data Data, o Options) (*harness, *list) {
	t.Helper()
	o.OrgID, o.AppID = s.orgID, s.app.ID
	h := newHarness(t, data, o, 100, 30)
	h.press("2")
	return h, h.licenseList()
}

func (h *harness) licenseList() *list {
	t := h.m.stack[len(h.m.stack)-1].(*tabs)
	return t.tabs[1].(*list)
}
