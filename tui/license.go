package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

var keyResetDevice = mutating(bind(groupScreen, "D", "reset device", "D"))

// licenseView is what the license detail reads.
type licenseView struct {
	d        *store.LicenseDetail
	app      *store.Application
	user     *store.EndUser
	plan     *store.Plan // nil when it could not be read
	history  []*store.AuditEntry
	sessions int // live sessions of the license
}

// license is the license detail: its state, the validation cascade as the
// server runs it, its devices and its history.
type license struct {
	screenBase
	id, lookupKey string // id, or a key to look up
	v             *licenseView
	err           error
	cursor        int // device row
}

func newLicense(c *ctx, id string) *license { return &license{screenBase: newBase(c), id: id} }

// newLicenseByKey opens the license with this (normalised) key.
func newLicenseByKey(c *ctx, key string) *license {
	return &license{screenBase: newBase(c), lookupKey: key}
}

func (l *license) title() string {
	if l.v != nil {
		return c0(l.v.d.Key)
	}
	return "License"
}

// c0 shortens a key for the breadcrumb without a ctx.
func c0(k string) string {
	if len(k) == 29 {
		return k[:5] + "…" + k[24:]
	}
	return k
}

func (l *license) capturing() bool               { return false }
func (l *license) escape(c *ctx) (bool, tea.Cmd) { return false, nil }
func (l *license) init(c *ctx) tea.Cmd           { return tea.Batch(l.reload(c), l.tick(c)) }

// tick schedules the detail's refresh in remote mode (tui.md §10: every 5 s
// by default); locally nobody else writes while the TUI holds the file.
func (l *license) tick(c *ctx) tea.Cmd {
	if !c.remote {
		return nil
	}
	return c.every(c.refresh, l.sid)
}

func (l *license) keys(c *ctx) []*binding {
	out := []*binding{}
	for _, a := range licenseActions {
		out = append(out, a.b)
	}
	return append(out, keyResetDevice, keyCopy, keyCopyID)
}

func (l *license) reload(c *ctx) tea.Cmd {
	cx, gen := l.next()
	id, key := l.id, l.lookupKey
	return c.load(cx, l.sid, gen, "license", func(ctx context.Context) (any, error) {
		if id == "" {
			p, err := c.data.ListLicenses(ctx, c.scope(), store.LicenseFilter{Key: key, PageRequest: store.PageRequest{Page: 1, PerPage: 1}})
			if err != nil {
				return nil, err
			}
			if len(p.Data) == 0 {
				return nil, store.Errorf(store.ECodeNotFound, "no license %s in %s", key, c.env)
			}
			id = p.Data[0].ID
		}
		return readLicense(ctx, c, id)
	})
}

func readLicense(ctx context.Context, c *ctx, id string) (*licenseView, error) {
	v := &licenseView{}
	var err error
	if v.d, err = c.data.FindLicense(ctx, c.scope(), id); err != nil {
		return nil, err
	}
	if v.app, err = c.data.FindApplication(ctx, c.app()); err != nil {
		return nil, err
	}
	if p, err := c.data.FindPlan(ctx, c.app(), v.d.PlanID); err == nil {
		v.plan = p // the limits beside the plan's name; the detail stands without them
	}
	if v.d.UserEmail != "" {
		u, err := c.data.ListEndUsers(ctx, c.scope(), store.StatusFilter{Email: v.d.UserEmail, PageRequest: store.PageRequest{Page: 1, PerPage: 1}})
		if err != nil {
			return nil, err
		}
		if len(u.Data) == 1 {
			v.user = u.Data[0]
		}
	}
	a, err := c.data.ListAudit(ctx, c.scope(), store.AuditFilter{TargetID: id, PageRequest: store.PageRequest{Page: 1, PerPage: 10}})
	if err != nil {
		return nil, err
	}
	v.history = a.Data
	if v.sessions, err = c.data.CountLicenseSessions(ctx, c.scope(), id); err != nil {
		return nil, err
	}
	return v, nil
}

func (l *license) update(c *ctx, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.gen != l.gen {
			return nil
		}
		if msg.err != nil {
			l.err = msg.err
			return readFailed(c, l.sid, msg.err)
		}
		l.v, l.err = msg.val.(*licenseView), nil
		l.id = l.v.d.ID
		c.sessions[l.id] = l.v.sessions
		l.cursor = min(l.cursor, max(0, len(l.v.d.Devices)-1))
	case actionMsg:
		return l.reload(c)
	case tickMsg:
		if msg.skip {
			return l.tick(c)
		}
		return tea.Batch(l.reload(c), l.tick(c))
	}
	return nil
}

func (l *license) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	if l.v == nil {
		return false, nil
	}
	ks := k.String()
	it := &l.v.d.LicenseItem
	for _, a := range licenseActions {
		if c.matches(ks, a.b) {
			if !a.when(it) {
				return true, status(fmt.Sprintf("A %s license cannot be %s", it.Status, a.did), true)
			}
			return true, confirmAction(c, &l.screenBase, a, "license", it.Key, it)
		}
	}
	devs := l.v.d.Devices
	switch {
	case c.matches(ks, keyDown):
		l.cursor = min(l.cursor+1, max(0, len(devs)-1))
	case c.matches(ks, keyUp):
		l.cursor = max(0, l.cursor-1)
	case c.matches(ks, keyCopy):
		return true, c.copy(it.Key)
	case c.matches(ks, keyCopyID):
		return true, c.copy(it.ID)
	case c.matches(ks, keyShow):
		return true, showValue(it.Key)
	case c.matches(ks, keyResetDevice):
		if len(devs) == 0 {
			return true, status("No device is bound", true)
		}
		d := devs[l.cursor]
		a := &action{verb: "Reset", did: "reset", consequence: func(c *ctx, _ any) []string {
			return []string{"The device is unbound and its sessions on this license end.",
				"A reset made here does not consume the user's reset quota (it does not count against the plan's resets)."}
		}, run: func(ctx context.Context, c *ctx, _ any) error {
			return c.data.ResetLicenseDevice(ctx, c.scope(), it.ID, d.ID)
		}}
		return true, confirmAction(c, &l.screenBase, a, "device", d.Fingerprint, d)
	default:
		return false, nil
	}
	return true, nil
}

func (l *license) view(c *ctx, w, h int) string {
	if l.v == nil {
		if l.err != nil {
			return c.g.fail + " " + errText(l.err) + "\n  ctrl+r retry " + c.g.dot + " esc back"
		}
		return "  loading" + c.g.ellipsis
	}
	d, now := l.v.d, c.now()
	var lines []string
	lines = append(lines, spread("License "+d.Key, d.EffectiveStatus(now)+"   (y copy key "+c.g.dot+" Y copy id)", w))
	user := c.g.dash
	if d.UserEmail != "" {
		user = d.UserEmail
	}
	plan, bound, resets := store.Printable(d.PlanName), fmt.Sprint(len(d.Devices)), fmt.Sprint(d.DeviceResetsRemaining)
	var fromPlan []string
	if p := l.v.plan; p != nil {
		plan += fmt.Sprintf(" (max %d devices, %d resets)", p.MaxDevices, p.DeviceResetLimit)
		bound += fmt.Sprintf("/%d", p.MaxDevices)
		resets += fmt.Sprintf(" of %d", p.DeviceResetLimit)
		for _, e := range p.Entitlements {
			fromPlan = append(fromPlan, e.ID)
		}
	}
	lines = append(lines, fmt.Sprintf("Plan %s  %s  User %s  %s  Activated %s  %s  Expires %s", plan, c.g.dot, store.Printable(user), c.g.dot, c.when(d.ActivatedAt), c.g.dot, c.when(d.ExpiresAt)))
	var ents []string
	for _, e := range d.Entitlements {
		from := "license"
		if slices.Contains(fromPlan, e.ID) {
			from = "plan"
		}
		ents = append(ents, fmt.Sprintf("%s (%s)", store.Printable(e.Key), from))
	}
	if len(ents) == 0 {
		ents = []string{c.g.dash}
	}
	lines = append(lines, fmt.Sprintf("Entitlements  %s            Device resets remaining  %s", strings.Join(ents, "  "), resets), "")
	lines = append(lines, l.cascade(c)...)
	lines = append(lines, "", fmt.Sprintf("Devices (%s bound)  %s  live sessions %d", bound, c.g.dot, l.v.sessions))
	t := table{cols: []column{{title: "FINGERPRINT", min: 11, max: 32}, {title: "STATUS", min: 7, max: 7}, {title: "BOUND", priority: 1, min: 7, max: 16}, {title: "LAST SEEN", priority: 1, min: 9, max: 16}, {title: "ID", priority: 2, min: 12, max: 12}}, cursor: l.cursor}
	for _, dv := range d.Devices {
		t.rows = append(t.rows, []string{dv.Fingerprint, dv.Status, c.at(dv.BoundAt), c.when(dv.LastSeenAt), tail(dv.ID)})
	}
	if len(d.Devices) > 0 {
		lines = append(lines, strings.Split(t.view(c, w, len(d.Devices)+1), "\n")...)
	}
	var hist []string
	for _, e := range l.v.history {
		hist = append(hist, e.Event+" "+c.at(e.CreatedAt))
	}
	if len(hist) > 0 {
		lines = append(lines, "History  "+strings.Join(hist, " "+c.g.dot+" "))
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	return strings.Join(lines, "\n")
}

// cascade explains, from the same function the server validates with,
// whether a session of this license would validate now.
func (l *license) cascade(c *ctx) []string {
	v, now := l.v, c.now()
	reason, steps := store.ExplainSession(v.app, &v.d.License, v.user, nil, now)
	verdict := "YES"
	if reason != "" {
		verdict = "NO " + c.g.to + " " + reason
	}
	lines := []string{"Would a session of this license validate now?   " + verdict}
	rootSeen := false
	for _, s := range steps {
		if s.Check == "device status" {
			continue // per device, below
		}
		mark := c.g.ok
		line := s.Check + ": " + s.Detail
		if !s.OK {
			mark = c.g.fail
			if !rootSeen {
				line += "   " + c.g.from + " root cause (the server reports " + s.Reason + ")"
				rootSeen = true
			}
		}
		lines = append(lines, "  "+mark+" "+line)
	}
	for _, dv := range v.d.Devices {
		dev := &store.Device{ID: dv.ID, Fingerprint: dv.Fingerprint, Status: dv.Status}
		r, _ := store.ExplainSession(v.app, &v.d.License, v.user, dev, now)
		if r == "" {
			r = "valid"
		}
		lines = append(lines, fmt.Sprintf("  %s device %s (%s): sessions on it %s %s", c.g.dot, store.Printable(dv.Fingerprint), dv.Status, c.g.to, r))
	}
	if v.d.Status == store.LicenseSuspended {
		lines = append(lines, "  Reinstating (u) makes new activations work; sessions revoked by the suspension stay revoked.")
	}
	return lines
}
