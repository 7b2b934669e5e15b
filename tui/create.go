package tui

import (
	"context"
	"fmt"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// The n forms of the org home and the app's catalog tabs (§5.2, §5.8).
// Field names are the store's error fields, so that a validation error
// comes back under the field that caused it.

// createApp is n on Apps: a name; the slug is derived by the store.
func createApp(c *ctx, l *list) tea.Cmd {
	f := newForm("New application in "+c.orgName, "create", textField("name", "Name", true))
	f.submit = func(f *form) tea.Cmd {
		name := f.get("name")
		return f.run(c, l, "Created application "+c.label(name), func(ctx context.Context) (any, error) {
			return c.data.CreateApplication(ctx, store.CreateApplicationInput{OrgID: c.orgID, Name: name})
		}, nil)
	}
	return openOverlay(f)
}

// memberRoles are the member roles, least privileged last; a new member
// is offered developer first, the role most additions need.
var memberRoles = []string{store.RoleOwner, store.RoleAdmin, store.RoleDeveloper, store.RoleViewer}

// createMember is n on Members. The password is typed twice and the two
// are compared here: a typo would otherwise lock the member out.
func createMember(c *ctx, l *list) tea.Cmd {
	f := newForm("Add a member to "+c.orgName, "add",
		textField("email", "E-mail", true),
		choiceField("role", "Role", memberRoles...).set(store.RoleDeveloper),
		textField("first_name", "First name", false),
		textField("last_name", "Last name", false),
		passwordField("password", "Password"),
		passwordField("password_again", "Password again"))
	f.check = func(f *form) bool {
		if f.field("password").raw() != f.field("password_again").raw() {
			f.invalid("password_again", "the two passwords differ")
			return false
		}
		return true
	}
	f.submit = func(f *form) tea.Cmd {
		in := store.AddMemberInput{OrgID: c.orgID, Email: f.get("email"), Role: f.get("role"),
			FirstName: f.get("first_name"), LastName: f.get("last_name"), Password: f.field("password").raw()}
		return f.run(c, l, "Added member "+c.label(in.Email), func(ctx context.Context) (any, error) {
			return c.data.AddMember(ctx, in)
		}, nil)
	}
	return openOverlay(f)
}

// createPlan is n on Plans: the fields that decide what a license is; the
// policies (P) and entitlements are edited afterwards.
func createPlan(c *ctx, l *list) tea.Cmd {
	st := planForm("New plan", "create", nil)
	st.submit = func(f *form) tea.Cmd {
		req := st.plan
		return f.run(c, l, "Created plan "+c.label(*req.Name), func(ctx context.Context) (any, error) {
			return c.data.CreatePlan(ctx, c.app(), req)
		}, nil)
	}
	return openOverlay(st.form)
}

// editPlan is e on Plans: the same fields, filled with the plan's values;
// only what they hold is sent, so the policies and entitlements stay.
func editPlan(c *ctx, l *list, it any) tea.Cmd {
	p := it.(*store.Plan)
	st := planForm("Edit plan "+store.Printable(p.Name), "save", p)
	st.submit = func(f *form) tea.Cmd {
		req := st.plan
		return f.run(c, l, "Saved plan "+c.label(*req.Name), func(ctx context.Context) (any, error) {
			return c.data.UpdatePlan(ctx, c.app(), p.ID, req)
		}, nil)
	}
	return openOverlay(st.form)
}

// planFormState is a plan form with the input its check builds.
type planFormState struct {
	*form
	plan store.PlanInput
}

// planForm is the plan form, empty or filled from p.
func planForm(title, verb string, p *store.Plan) *planFormState {
	dur := textField("duration_days", "Duration (days)", false)
	dur.hint = "empty: the licenses never expire"
	name := textField("name", "Name", true)
	maxDev := textField("max_devices", "Max devices", true).set(fmt.Sprint(store.DefaultMaxDevices))
	resets := textField("device_reset_limit", "Device resets", true).set(fmt.Sprint(store.DefaultDeviceResetLimit))
	window := textField("device_reset_window_days", "Reset window", true).set("0")
	window.hint = "days the device resets count in; 0: the license's life"
	seats := textField("max_concurrent", "Seats", true).set("0")
	seats.hint = "floating seats in use at once; 0: no cap"
	lease := textField("lease_seconds", "Lease (s)", true).set(fmt.Sprint(store.DefaultLeaseSeconds))
	lease.hint = "a seat's lease without heartbeats, 60 to 86400 seconds"
	offline := textField("max_offline_days", "Offline days", true).set(fmt.Sprint(store.DefaultOfflineDays))
	offline.hint = "longest a machine file lasts; 0: no offline use"
	trial := choiceField("is_trial", "Trial", "no", "yes")
	rebind := choiceField("rebind", "Re-binding", store.RebindMost, store.RebindOff)
	rebind.hint = "most: a new fingerprint with most of a bound device's components keeps its seat"
	if p != nil {
		if p.RebindMode() == store.RebindOff {
			rebind.choice = 1
		}
		offline.set(fmt.Sprint(p.MaxOfflineDays))
		seats.set(fmt.Sprint(p.MaxConcurrent))
		lease.set(fmt.Sprint(p.LeaseSeconds))
		name.set(p.Name)
		maxDev.set(fmt.Sprint(p.MaxDevices))
		resets.set(fmt.Sprint(p.DeviceResetLimit))
		window.set(fmt.Sprint(p.DeviceResetWindowDays))
		if p.IsTrial {
			trial.choice = 1
		}
		if p.DurationDays != nil {
			dur.set(fmt.Sprint(*p.DurationDays))
		}
	}
	st := &planFormState{form: newForm(title, verb, name, maxDev, resets, trial, dur, window, seats, lease, offline, rebind)}
	st.check = func(f *form) bool {
		in := store.PlanInput{}
		ok := true
		name, isTrial, rebind := f.get("name"), f.get("is_trial") == "yes", f.get("rebind")
		in.Name, in.IsTrial, in.Rebind = &name, &isTrial, &rebind
		for _, n := range []struct {
			field string
			to    **int
		}{{"max_devices", &in.MaxDevices}, {"device_reset_limit", &in.DeviceResetLimit},
			{"device_reset_window_days", &in.DeviceResetWindowDays}, {"max_concurrent", &in.MaxConcurrent},
			{"lease_seconds", &in.LeaseSeconds}, {"max_offline_days", &in.MaxOfflineDays}} {
			v, err := strconv.Atoi(f.get(n.field))
			if err != nil {
				f.invalid(n.field, "a whole number")
				ok = false
				continue
			}
			*n.to = &v
		}
		var days *int
		if s := f.get("duration_days"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				f.invalid("duration_days", "a whole number of days, or empty for forever")
				ok = false
			}
			days = &n
		}
		in.DurationDays = &days
		st.plan = in
		return ok
	}
	return st
}

// createEntitlement is n on Entitlements.
func createEntitlement(c *ctx, l *list) tea.Cmd {
	key := textField("key", "Key", true)
	key.hint = "lower case, as your application checks it: export.pdf"
	f := newForm("New entitlement", "create", key, textField("name", "Name", true), textField("description", "Description", false))
	f.submit = func(f *form) tea.Cmd {
		in := store.CreateEntitlementInput{Key: f.get("key"), Name: f.get("name")}
		if d := f.get("description"); d != "" {
			in.Description = &d
		}
		return f.run(c, l, "Created entitlement "+c.label(in.Key), func(ctx context.Context) (any, error) {
			return c.data.CreateEntitlement(ctx, c.app(), in)
		}, nil)
	}
	return openOverlay(f)
}

// webhookRegistrar registers an endpoint after the network checks of its
// URL. CreateWebhook trusts that they were done, and they need the
// server's configuration (or, locally, the CLI's), so the TUI cannot do
// them: a Data without this capability cannot register webhooks.
type webhookRegistrar interface {
	RegisterWebhook(ctx context.Context, ref store.AppRef, url string, events []string) (*store.Webhook, error)
}

// webhookEventLister lists the event names an endpoint can subscribe to;
// the form shows them when the Data can.
type webhookEventLister interface {
	WebhookEvents(ctx context.Context) ([]string, error)
}

// createWebhook is n on Webhooks: the URL and the events. The secret is
// shown once.
func createWebhook(c *ctx, l *list) tea.Cmd {
	reg, ok := c.data.(webhookRegistrar)
	if !ok {
		return status(c.g.fail+" this connection cannot register webhooks", true)
	}
	ev, ok := c.data.(webhookEventLister)
	if !ok {
		return openOverlay(webhookForm(c, l, reg, nil))
	}
	return c.load(l.ctx, l.sid, l.gen, "form", func(ctx context.Context) (any, error) {
		// Without the list the form still offers * and license.*.
		names, _ := ev.WebhookEvents(ctx)
		return webhookForm(c, l, reg, names), nil
	})
}

// webhookForm is the URL and a multi-select of the events: every name
// the backend offers, after "*" and "license.*" (docs/tui.md §5.8).
// "license.*" is picked, the family most endpoints want.
func webhookForm(c *ctx, l *list, reg webhookRegistrar, names []string) *form {
	events := multiField("events", "Events", append([]string{"*", "license.*"}, names...)...).set("license.*")
	events.required = true
	f := newForm("Register a webhook", "register", textField("url", "URL", true), events)
	f.submit = func(f *form) tea.Cmd {
		u, evs := f.get("url"), f.field("events").values()
		return f.run(c, l, "Registered webhook "+c.label(u), func(ctx context.Context) (any, error) {
			w, err := reg.RegisterWebhook(ctx, c.app(), u, evs)
			if err != nil {
				return nil, err
			}
			return shownOnce{title: fmt.Sprintf("Signing secret of %s", store.Printable(w.URL)), secret: w.Secret, noun: "signing secret"}, nil
		}, l.showOnce)
	}
	return f
}
