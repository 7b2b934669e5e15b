package tui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"licensectl/server/client"
	"licensectl/store"
	"licensectl/store/bolt"
)

func TestCreateApp(t *testing.T) {
	s := seed(t, 0)
	h := newHarness(t, s.db, Options{OrgID: s.orgID}, 120, 30)
	h.contains("photo-editor")
	h.press("n")
	h.contains("New application in")
	h.press("enter")
	h.contains("✗ required") // checked in the form: nothing was sent
	h.press("Studio", "enter")
	h.contains("✓ Created application Studio")
	apps, err := s.db.ListApplications(context.Background(), s.orgID)
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) != 2 || !slices.ContainsFunc(apps, func(a *store.Application) bool { return a.Name == "Studio" }) {
		t.Fatalf("applications after n: %d", len(apps))
	}
	h.contains("studio") // the list was reloaded with the new row
}

func TestCreateMember(t *testing.T) {
	s := seed(t, 0)
	h := newHarness(t, s.db, Options{OrgID: s.orgID}, 120, 30)
	h.press("2", "n")
	h.contains("Add a member to")
	h.contains("< developer >")
	h.press("ann@example.com", "tab", "right", "tab", "Ann", "tab", "Lee", "tab", "s3cret pass", "tab", "s3cret pasx", "enter")
	h.contains("the two passwords differ")
	if v := h.view(); strings.Contains(v, "s3cret") {
		t.Fatalf("a password is shown in clear:\n%s", v)
	}
	h.press("backspace", "s", "enter")
	h.contains("✓ Added member ann@example.com")
	ms, err := s.db.ListMembers(context.Background(), s.orgID)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ms, func(m *store.Member) bool { return m.Email == "ann@example.com" })
	if i < 0 || ms[i].Role != store.RoleViewer || ms[i].FirstName != "Ann" || ms[i].LastName != "Lee" {
		t.Fatalf("members after n: %+v", ms)
	}
	if _, err := s.db.Login(context.Background(), "ann@example.com", "s3cret pass", time.Hour); err != nil {
		t.Fatalf("the new member cannot sign in with the typed password: %v", err)
	}

	// The store's own checks come back under their field.
	h.press("n", "not-an-email", "tab", "tab", "tab", "tab", "pw", "tab", "pw", "ctrl+s")
	h.contains("Add a member to")
	h.contains("✗ email")
}

func TestCreatePlanAndEntitlement(t *testing.T) {
	s := seed(t, 0)
	ctx := context.Background()
	ref := store.AppRef{OrgID: s.orgID, AppID: s.app.ID}
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	h.press("8", "n")
	h.contains("New plan")
	h.press("Zero", "tab", "backspace", "0", "ctrl+s")
	h.contains("New plan") // kept open with the store's message under the field
	h.contains("✗ max_devices must be between")
	h.press("backspace", "3", "tab", "tab", "right", "tab", "14", "tab", "backspace", "30", "tab", "backspace", "2", "tab", "ctrl+u", "600", "tab", "ctrl+u", "7", "tab", "enter")
	h.contains("✓ Created plan Zero")
	plans, err := s.db.ListPlans(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(plans, func(p *store.Plan) bool { return p.Name == "Zero" })
	if i < 0 || plans[i].MaxDevices != 3 || !plans[i].IsTrial || plans[i].DurationDays == nil || *plans[i].DurationDays != 14 || plans[i].DeviceResetWindowDays != 30 ||
		plans[i].MaxConcurrent != 2 || plans[i].LeaseSeconds != 600 || plans[i].MaxOfflineDays != 7 {
		t.Fatalf("plan after n: %+v", plans)
	}
	h.press("n", "Forever", "tab", "tab", "tab", "ctrl+s")
	h.contains("✓ Created plan Forever")
	plans, _ = s.db.ListPlans(ctx, ref)
	if i := slices.IndexFunc(plans, func(p *store.Plan) bool { return p.Name == "Forever" }); i < 0 || plans[i].DurationDays != nil || plans[i].MaxDevices != 1 || plans[i].IsTrial || plans[i].RebindMode() != store.RebindMost {
		t.Fatalf("an empty duration is not forever, or the defaults changed: %+v", plans[i])
	}
	// The last field: re-binding, most unless turned off.
	h.press("n", "Fixed", "tab", "tab", "tab", "tab", "tab", "tab", "tab", "tab", "tab")
	h.contains("most: a new fingerprint")
	h.press("right", "ctrl+s")
	h.contains("✓ Created plan Fixed")
	plans, _ = s.db.ListPlans(ctx, ref)
	if i := slices.IndexFunc(plans, func(p *store.Plan) bool { return p.Name == "Fixed" }); i < 0 || plans[i].Rebind != store.RebindOff {
		t.Fatalf("plan with re-binding turned off: %+v", plans)
	}

	h.press("9", "n", "Not A Key", "tab", "PDF export", "ctrl+s")
	h.contains("New entitlement")
	h.contains("✗ key must match")
	h.press("ctrl+u", "export.pdf", "ctrl+s")
	h.contains("✓ Created entitlement export.pdf")
	ents, err := s.db.ListEntitlements(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Key != "export.pdf" || ents[0].Name != "PDF export" || ents[0].Description != nil {
		t.Fatalf("entitlements after n: %+v", ents)
	}
}

// registering is a Data that can register webhooks, as the CLI's backend
// can; the URL checks are the backend's business and are not repeated.
type registering struct {
	*bolt.DB
	registered []string
}

func (r *registering) RegisterWebhook(ctx context.Context, ref store.AppRef, url string, events []string) (*store.Webhook, error) {
	r.registered = append(r.registered, url)
	return r.CreateWebhook(ctx, ref, url, events)
}

func (r *registering) WebhookEvents(context.Context) ([]string, error) { return store.Events(), nil }

func TestRegisterWebhook(t *testing.T) {
	s := seed(t, 0)
	ctx := context.Background()
	ref := store.AppRef{OrgID: s.orgID, AppID: s.app.ID}
	data := &registering{DB: s.db}
	h := newHarness(t, data, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	h.press("7", "n")
	h.contains("Register a webhook")
	h.contains("Events: license.*")
	h.press("https://hooks.example.com/in", "tab")
	// The events are a multi-select: * and license.* first, then every
	// name the backend offers; license.* is picked.
	h.contains("▶ [ ] *")
	h.contains("[x] license.*")
	h.contains("j/k move · space pick")
	h.press("j", " ", "ctrl+s")
	h.contains("✗ required") // nothing picked: nothing is sent
	h.press(" ")
	for range slices.Index(store.Events(), "user.login") + 1 {
		h.press("j")
	}
	h.contains("▶ [ ] user.login")
	h.press(" ")
	h.contains("Events: license.*, user.login")
	h.press("enter")
	h.contains("Signing secret of https://hooks.example.com/in")
	h.contains("This is the only time it is shown")
	hooks, err := s.db.ListWebhooks(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(hooks) != 1 || !slices.Equal(hooks[0].Events, []string{"license.*", "user.login"}) {
		t.Fatalf("webhooks after n: %+v", hooks)
	}
	if hooks[0].Secret != "" {
		h.contains(hooks[0].Secret)
	}
	h.press("enter")
	h.contains("✓ Registered webhook https://hooks.example.com/in")
	if len(data.registered) != 1 {
		t.Fatalf("RegisterWebhook calls: %v", data.registered)
	}
}

func TestRegisterWebhookRefusedWithoutRegistrar(t *testing.T) {
	s := seed(t, 0)
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	h.press("7", "n")
	h.contains("✗ this connection cannot register webhooks")
	if v := h.view(); strings.Contains(v, "Register a webhook") {
		t.Fatalf("the form opened:\n%s", v)
	}
}

func TestReadOnlyCannotCreate(t *testing.T) {
	s := seed(t, 0)
	if _, err := s.db.RegisterEndUser(context.Background(), s.scope(), "eve@example.com", "correct horse"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, s.db, Options{OrgID: s.orgID, ReadOnly: true}, 120, 30)
	h.press("n")
	h.press("2", "n")
	if v := h.view(); strings.Contains(v, "New application") || strings.Contains(v, "Add a member") {
		t.Fatalf("n opened a form in a read-only session:\n%s", v)
	}
	h = newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID, ReadOnly: true}, 120, 30)
	h.press("3")
	h.contains("eve@example.com")
	h.press("r")
	if v := h.view(); strings.Contains(v, "Add a role") {
		t.Fatalf("r opened a form in a read-only session:\n%s", v)
	}
}

func TestEndUserRoles(t *testing.T) {
	s := seed(t, 0)
	ctx := context.Background()
	u, err := s.db.RegisterEndUser(ctx, s.scope(), "eve@example.com", "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	roles := func() []string {
		p, err := s.db.ListEndUsers(ctx, s.scope(), store.StatusFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range p.Data {
			if x.ID == u.ID {
				return x.Roles
			}
		}
		t.Fatal("user gone")
		return nil
	}
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	h.press("3")
	h.contains("eve@example.com")
	h.press("R")
	h.contains("Nothing to remove role here")

	h.press("r")
	h.contains("Add a role to eve@example.com")
	h.press("Beta Tester", "enter")
	h.contains("✗ role_id must match") // the store's check, under the field
	h.press("ctrl+u", "beta", "enter")
	h.contains("✓ Added role beta to eve@example.com")
	if got := roles(); !slices.Equal(got, []string{"beta"}) {
		t.Fatalf("roles after r: %v", got)
	}
	h.contains("beta") // the row was reloaded

	h.press("R")
	h.contains("Remove a role from eve@example.com")
	h.press("enter")
	h.contains("Remove role beta from user eve@example.com in PRODUCTION?")
	h.press("enter") // only y confirms
	if got := roles(); len(got) != 1 {
		t.Fatalf("enter removed the role: %v", got)
	}
	h.press("y")
	h.contains("✓ Removed role beta from eve@example.com")
	if got := roles(); len(got) != 0 {
		t.Fatalf("roles after R y: %v", got)
	}
}

func TestGoldenMemberForm(t *testing.T) {
	f := newFake()
	h := newHarness(t, f, Options{OrgID: f.org.ID, Where: "/srv/licensectl/licensectl.db"}, 80, 24)
	h.press("2", "n", "ann@example.com", "tab", "tab", "Ann", "tab", "tab", "pw", "tab", "px", "enter")
	h.contains("the two passwords differ")
	golden(t, "member_form_80x24", h.view())
}

// remoteRegistrar registers webhooks through the server, as the CLI's
// remote backend does.
type remoteRegistrar struct{ *client.Client }

func (r remoteRegistrar) RegisterWebhook(ctx context.Context, ref store.AppRef, url string, events []string) (*store.Webhook, error) {
	return r.CreateWebhook(ctx, ref, url, events)
}

// TestFormKeepsServerErrors (docs/tui.md §4, principle 7, and §12): a validation error of
// the server keeps the form open with what was typed, the message under
// the field it names. Over HTTP the error has no Field: the message names
// it. An error naming no field of the form is shown at the form's foot.
func TestFormKeepsServerErrors(t *testing.T) {
	r := startRemoteApp(t, 1)
	ctx := context.Background()
	if _, err := r.srv.Store().RegisterEndUser(ctx, r.scope, "dave@example.com", "correct horse"); err != nil {
		t.Fatal(err)
	}
	o := r.options()
	o.Data = remoteRegistrar{o.Data.(*client.Client)}
	h := newHarness(t, o.Data, o, 120, 30)

	h.press("3", "r", "Bad Role!", "enter")
	h.contains("Add a role to dave@example.com")
	h.contains("Role: Bad Role!")
	h.contains("✗ role_id must match")

	h.press("esc", "7", "n", "not a url", "ctrl+s")
	h.contains("Register a webhook")
	h.contains("URL:    not a url")
	h.contains("✗ url must be an absolute https URL")

	h.press("esc", "esc")
	h.m.stack = h.m.stack[:1] // the org home
	h.press("2", "n", "ann@example.com", "tab", "tab", "tab", "tab", "short", "tab", "short", "ctrl+s")
	h.contains("Add a member to")
	h.contains("ann@example.com")
	h.contains("✗ password")

	// A field the form does not have: the message goes to the foot.
	f := newForm("Test", "send", textField("name", "Name", false))
	if !f.fail(store.Invalid("label", "label is required")) || f.err != "label is required" {
		t.Fatalf("an error naming no field of the form: kept %v, foot %q", f.err != "", f.err)
	}
	if f.fail(store.Errorf(store.ECodeConflict, "taken")) {
		t.Fatal("a conflict kept the form open")
	}
}
