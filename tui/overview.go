package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// pulse is what the Overview shows; every number is the total of a
// one-item page, which the store keeps as a counter.
type pulse struct {
	app       *store.Application
	licenses  map[string]int
	users     map[string]int
	devices   map[string]int
	plans     int
	secrets   int
	webhooks  int
	activated bool
	recent    []*store.AuditEntry
	// requests are the month's runtime requests against the tier's limit;
	// nil when the backend has no billing or the credential may not read it.
	requests *store.UsageCount
}

// overview is the app dashboard's first tab.
type overview struct {
	screenBase
	p      *pulse
	err    error
	loaded time.Time
	dash   *tabs // the dashboard it is a tab of: its hints name the other tabs' keys
}

func newOverview(c *ctx) *overview { return &overview{screenBase: newBase(c)} }

func (o *overview) title() string                 { return "Overview" }
func (o *overview) capturing() bool               { return false }
func (o *overview) escape(c *ctx) (bool, tea.Cmd) { return false, nil }
func (o *overview) keys(c *ctx) []*binding        { return []*binding{keyCopy, keyRefresh} }
func (o *overview) init(c *ctx) tea.Cmd           { return tea.Batch(o.reload(c), o.tick(c)) }
func (o *overview) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	if retriesNow(k, o.p == nil && o.err != nil) {
		return true, o.reload(c)
	}
	if c.matches(k.String(), keyCopy) && o.p != nil {
		if env := o.p.app.Env(c.env); env != nil {
			return true, c.copy(env.PublicKey)
		}
	}
	return false, nil
}

func (o *overview) tick(c *ctx) tea.Cmd {
	if !c.remote {
		return nil
	}
	return c.every(c.refresh, o.sid)
}

func (o *overview) reload(c *ctx) tea.Cmd {
	cx, gen := o.next()
	return c.load(cx, o.sid, gen, "pulse", func(ctx context.Context) (any, error) { return readPulse(ctx, c) })
}

func readPulse(ctx context.Context, c *ctx) (*pulse, error) {
	s, one := c.scope(), store.PageRequest{Page: 1, PerPage: 1}
	p := &pulse{licenses: map[string]int{}, users: map[string]int{}, devices: map[string]int{}}
	var err error
	if p.app, err = c.data.FindApplication(ctx, c.app()); err != nil {
		return nil, err
	}
	for _, st := range licenseStatuses {
		l, err := c.data.ListLicenses(ctx, s, store.LicenseFilter{Status: st, PageRequest: one})
		if err != nil {
			return nil, err
		}
		p.licenses[st] = l.Total
	}
	for _, st := range []string{store.UserActive, store.UserBanned, store.UserDisabled} {
		u, err := c.data.ListEndUsers(ctx, s, store.StatusFilter{Status: st, PageRequest: one})
		if err != nil {
			return nil, err
		}
		p.users[st] = u.Total
	}
	for _, st := range []string{store.DeviceActive, store.DeviceBlocked} {
		d, err := c.data.ListDevices(ctx, s, store.StatusFilter{Status: st, PageRequest: one})
		if err != nil {
			return nil, err
		}
		p.devices[st] = d.Total
	}
	plans, err := c.data.ListPlans(ctx, c.app())
	if err != nil {
		return nil, err
	}
	p.plans = len(plans)
	secrets, err := c.data.ListAppSecrets(ctx, c.app())
	if err != nil {
		return nil, err
	}
	for _, sec := range secrets {
		if sec.Env == c.env && sec.RevokedAt == nil {
			p.secrets++
		}
	}
	hooks, err := c.data.ListWebhooks(ctx, c.app())
	if err != nil {
		return nil, err
	}
	p.webhooks = len(hooks)
	if src, ok := c.data.(usageData); ok {
		// Billing is not every credential's to read (a developer's key gets
		// forbidden): the Overview then goes without the line, not without
		// everything else.
		if u, err := src.BillingUsage(ctx, c.orgID, c.now()); err == nil {
			p.requests = &u.RuntimeRequests
		}
	}
	a, err := c.data.ListAudit(ctx, s, store.AuditFilter{PageRequest: store.PageRequest{Page: 1, PerPage: 10}})
	if err != nil {
		return nil, err
	}
	p.recent = a.Data
	act, err := c.data.ListAudit(ctx, s, store.AuditFilter{Event: "license.activated", PageRequest: one})
	if err != nil {
		return nil, err
	}
	p.activated = act.Total > 0
	return p, nil
}

func (o *overview) update(c *ctx, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.gen != o.gen {
			return nil
		}
		if msg.err != nil {
			o.err = msg.err
			return readFailed(c, o.sid, msg.err)
		}
		o.p, o.err, o.loaded = msg.val.(*pulse), nil, c.now()
	case tickMsg:
		if msg.skip {
			return o.tick(c)
		}
		return tea.Batch(o.tick(c), o.reload(c))
	}
	return nil
}

func (o *overview) view(c *ctx, w, h int) string {
	if o.p == nil {
		if o.err != nil {
			return c.loadFailed(o.err)
		}
		return "  loading" + c.g.ellipsis
	}
	p := o.p
	var lines []string
	counts := func(name string, order []string, m map[string]int) string {
		var parts []string
		total := 0
		for _, st := range order {
			parts = append(parts, fmt.Sprintf("%s %s", st, count(m[st])))
			total += m[st]
		}
		return fmt.Sprintf("%-9s %s  (%s)", name, count(total), strings.Join(parts, " "+c.g.dot+" "))
	}
	lines = append(lines,
		counts("Licenses", licenseStatuses, p.licenses),
		counts("Users", []string{store.UserActive, store.UserBanned, store.UserDisabled}, p.users),
		counts("Devices", []string{store.DeviceActive, store.DeviceBlocked}, p.devices))
	if p.requests != nil {
		lines = append(lines, "Runtime requests this month "+c.quota(*p.requests)+" (tier limit)")
	}
	if env := p.app.Env(c.env); env != nil {
		lines = append(lines, "Public key "+env.PublicKey+"   (y copy)")
	}
	lines = append(lines, "", "Getting started")
	check := func(done bool, text, todo string) string {
		if done {
			return "  " + c.g.ok + " " + text
		}
		return "  " + c.g.dot + " " + text + " " + c.g.dash + " " + todo
	}
	total := 0
	for _, n := range p.licenses {
		total += n
	}
	lines = append(lines,
		check(true, "an app exists ("+p.app.Slug+")", ""),
		check(p.plans > 0, "a plan exists", "create one: "+o.newOn("Plans")),
		check(total > 0, "a license is generated", o.newOn("Licenses")),
		check(p.secrets > 0, "an application secret exists in "+c.env, o.newOn("Secrets")),
		check(p.webhooks > 0, "a webhook is registered", o.newOn("Webhooks")),
		check(p.activated, "a license.activated event has been seen", "activate from your application"))
	lines = append(lines, "", "Recent activity")
	for _, e := range p.recent {
		lines = append(lines, "  "+auditLine(c, e))
	}
	if len(p.recent) == 0 {
		lines = append(lines, "  none yet")
	}
	if !c.remote {
		lines = append(lines, "", "Live activity needs --server: nothing else writes while the TUI holds the file.")
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	return strings.Join(lines, "\n")
}

// newOn names where n creates what a checklist item lacks: "n on Plans (8)",
// with the number key of that tab as the dashboard orders them.
func (o *overview) newOn(tab string) string {
	if o.dash != nil {
		if k := o.dash.number(tab); k != "" {
			return fmt.Sprintf("n on %s (%s)", tab, k)
		}
	}
	return "n on " + tab
}

func newAppDashboard(c *ctx, a *store.Application) screen {
	c.appID, c.appName = a.ID, a.Slug
	ov := newOverview(c)
	t := newTabs(c, a.Slug,
		ov, newList(c, licensesSpec), newList(c, usersSpec), newList(c, devicesSpec),
		newActivity(c), newList(c, auditSpec), newList(c, webhooksSpec), newList(c, plansSpec), newList(c, entitlementsSpec), newList(c, secretsSpec))
	t.app = true
	ov.dash = t
	return t
}
