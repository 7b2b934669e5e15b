package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

var keyResetDevice = mutating(bind(groupScreen, "D", "reset device", "D"))

// cascadeDevices is how many devices the cascade names one by one.
const cascadeDevices = 3

// licenseView is what the license detail reads.
type licenseView struct {
	d        *store.LicenseDetail
	app      *store.Application
	user     *store.EndUser
	plan     *store.Plan   // nil when it could not be read
	plans    []*store.Plan // the application's plans, to move the license to
	history  []*store.AuditEntry
	sessions int // live sessions of the license
	// leases are the live seat leases of a floating license (the plan's
	// max_concurrent above 0), newest first.
	leases []*store.Lease
	// more is the bound devices past the detail's first page, read a page
	// at a time as the cursor reaches the end (pages counts the detail's).
	more  []store.LicenseDevice
	pages int
}

// devices is every bound device read so far, newest first.
func (v *licenseView) devices() []store.LicenseDevice {
	return append(slices.Clip(v.d.Devices), v.more...)
}

// floating reports whether the license's devices need a live lease.
func (v *licenseView) floating() bool { return v.plan != nil && v.plan.MaxConcurrent > 0 }

// leaseOf is the live lease the device holds at now, nil without one.
func (v *licenseView) leaseOf(deviceID string, now time.Time) *store.Lease {
	for _, l := range v.leases {
		if l.DeviceID == deviceID && l.Live(now) {
			return l
		}
	}
	return nil
}

// liveLeases counts the seats held at now: a lease read before it ran out
// no longer holds one.
func (v *licenseView) liveLeases(now time.Time) int {
	n := 0
	for _, l := range v.leases {
		if l.Live(now) {
			n++
		}
	}
	return n
}

// unread reports whether bound devices remain past those read.
func (v *licenseView) unread() bool { return len(v.d.Devices)+len(v.more) < v.d.DevicesCount }

// license is the license detail: its state, the validation cascade as the
// server runs it, its devices and its history.
type license struct {
	screenBase
	id, lookupKey string // id, or a key to look up
	v             *licenseView
	err           error
	cursor        int       // device row
	pages         int       // device pages to read: 1 is the detail's own
	advance       bool      // move down once the next page is read
	form          fieldForm // the form whose request is running
	// ellipsis is the glyph set's, for the breadcrumb: title has no ctx.
	ellipsis string
}

// shownState is the license's status as the detail last read it, for the
// status line's report of a change (stateShower).
func (l *license) shownState() (what, state string, ok bool) {
	if l.v == nil {
		return "", "", false
	}
	return "License " + l.v.d.Key, l.v.d.Status, true
}

func newLicense(c *ctx, id string) *license {
	return &license{screenBase: newBase(c), id: id, pages: 1, ellipsis: c.g.ellipsis}
}

// newLicenseByKey opens the license with this (normalised) key.
func newLicenseByKey(c *ctx, key string) *license {
	return &license{screenBase: newBase(c), lookupKey: key, pages: 1, ellipsis: c.g.ellipsis}
}

// title is the key shortened for the breadcrumb: KAX7Q…C94DM.
func (l *license) title() string {
	if l.v != nil && len(l.v.d.Key) == 29 {
		return l.v.d.Key[:5] + l.ellipsis + l.v.d.Key[24:]
	}
	if l.v != nil {
		return l.v.d.Key
	}
	return "License"
}

func (l *license) capturing() bool               { return false }
func (l *license) escape(c *ctx) (bool, tea.Cmd) { return false, nil }
func (l *license) init(c *ctx) tea.Cmd           { return tea.Batch(l.reload(c), l.tick(c)) }

// tick schedules the detail's refresh in remote mode (docs/tui.md §10: every 5 s
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
	return append(out, keyResetDevice, keyCopy, keyCopyID, keyMachineFile, keyOpenDevice, keyHistory)
}

// keyOpenDevice is enter on a device row of the detail (docs/tui.md §5.5).
var keyOpenDevice = bind(groupScreen, "enter", "open device", "enter")

func (l *license) reload(c *ctx) tea.Cmd {
	cx, gen := l.next()
	id, key, pages := l.id, l.lookupKey, l.pages
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
		return readLicense(ctx, c, id, pages)
	})
}

// readLicense reads the license and its first pages of bound devices (the
// detail carries the first): a refresh keeps the devices already paged in.
func readLicense(ctx context.Context, c *ctx, id string, pages int) (*licenseView, error) {
	v := &licenseView{pages: 1}
	var err error
	if v.d, err = c.data.FindLicense(ctx, c.scope(), id); err != nil {
		return nil, err
	}
	for ; v.pages < pages && v.unread(); v.pages++ {
		p, err := c.data.ListDevices(ctx, c.scope(), store.StatusFilter{LicenseID: id,
			PageRequest: store.PageRequest{Page: v.pages + 1, PerPage: store.LicenseDetailDevices}})
		if err != nil {
			return nil, err
		}
		if len(p.Data) == 0 {
			break
		}
		for _, d := range p.Data {
			// The device list has no binding time: BOUND stays blank.
			v.more = append(v.more, store.LicenseDevice{ID: d.ID, Fingerprint: d.Fingerprint, Status: d.Status, LastSeenAt: d.LastSeenAt})
		}
	}
	if v.app, err = c.data.FindApplication(ctx, c.app()); err != nil {
		return nil, err
	}
	if p, err := c.data.FindPlan(ctx, c.app(), v.d.PlanID); err == nil {
		v.plan = p // the limits beside the plan's name; the detail stands without them
	}
	if v.plans, err = c.data.ListPlans(ctx, c.app()); err != nil {
		return nil, err
	}
	if v.floating() {
		if v.leases, err = c.data.ListLeases(ctx, c.scope(), id); err != nil {
			return nil, err
		}
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
		if msg.kind == "device" {
			// Answered whatever the detail reloaded meanwhile: enter was
			// pressed on that device.
			if msg.err != nil {
				return status(c.g.fail+" "+errText(msg.err), true)
			}
			return push(newDeviceDetail(c, msg.val.(*store.Device)))
		}
		if msg.gen != l.gen {
			return nil
		}
		if msg.err != nil {
			l.err, l.advance = msg.err, false
			return readFailed(c, l.sid, msg.err)
		}
		l.v, l.err = msg.val.(*licenseView), nil
		l.id = l.v.d.ID
		c.sessions[l.id] = l.v.sessions
		l.pages = l.v.pages
		if l.advance {
			l.cursor, l.advance = l.cursor+1, false
		}
		l.cursor = min(l.cursor, max(0, len(l.v.devices())-1))
	case actionMsg:
		form := l.form
		l.form = nil
		if msg.err != nil && form != nil && form.fail(msg.err) {
			return openOverlay(form)
		}
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
		if retriesNow(k, l.err != nil) {
			return true, l.reload(c)
		}
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
	switch {
	case c.matches(ks, keyRenew):
		return true, l.renew(c)
	case c.matches(ks, keySetPlan):
		return true, openOverlay(l.planForm(c))
	case c.matches(ks, keyTransfer):
		return true, openOverlay(l.transferForm(c))
	}
	devs := l.v.devices()
	switch {
	case c.matches(ks, keyDown):
		if l.cursor == len(devs)-1 && l.v.unread() && l.pages == l.v.pages {
			// At the last device read: read the next page, then move on.
			l.pages, l.advance = l.pages+1, true
			return true, l.reload(c)
		}
		l.cursor = min(l.cursor+1, max(0, len(devs)-1))
	case c.matches(ks, keyUp):
		l.cursor = max(0, l.cursor-1)
	case c.matches(ks, keyOpenDevice):
		if len(devs) == 0 {
			return true, status("No device is bound", true)
		}
		return true, l.openDevice(c, devs[l.cursor].Fingerprint)
	case c.matches(ks, keyCopy):
		return true, c.copy(it.Key)
	case c.matches(ks, keyCopyID):
		return true, c.copy(it.ID)
	case c.matches(ks, keyShow):
		return true, showValue(it.Key)
	case c.matches(ks, keyMachineFile):
		return true, openOverlay(l.machineFileForm(c))
	case c.matches(ks, keyHistory):
		return true, push(newHistory(c, "license "+it.Key, it.ID))
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

// openDevice reads the device with this fingerprint (the detail's rows
// carry only what the binding says) and opens it.
func (l *license) openDevice(c *ctx, fp string) tea.Cmd {
	return c.load(l.ctx, l.sid, l.gen, "device", func(ctx context.Context) (any, error) {
		p, err := c.data.ListDevices(ctx, c.scope(), store.StatusFilter{Fingerprint: fp, PageRequest: store.PageRequest{Page: 1, PerPage: 1}})
		if err != nil {
			return nil, err
		}
		if len(p.Data) == 0 {
			return nil, store.Errorf(store.ECodeNotFound, "no device %s in %s", fp, c.env)
		}
		return p.Data[0], nil
	})
}

func (l *license) view(c *ctx, w, h int) string {
	if l.v == nil {
		if l.err != nil {
			return c.loadFailed(l.err)
		}
		return "  loading" + c.g.ellipsis
	}
	d, now := l.v.d, c.now()
	var lines []string
	lines = append(lines, c.g.spread("License "+d.Key, d.EffectiveStatus(now)+"   (y copy key "+c.g.dot+" Y copy id)", w))
	user := c.g.dash
	if d.UserEmail != "" {
		user = d.UserEmail
	}
	plan, bound, resets := store.Printable(d.PlanName), fmt.Sprint(d.DevicesCount), fmt.Sprint(d.DeviceResetsRemaining)
	var fromPlan []string
	if p := l.v.plan; p != nil {
		plan += fmt.Sprintf(" (max %d devices, %d resets)", p.MaxDevices, p.DeviceResetLimit)
		if p.MaxConcurrent > 0 {
			plan = strings.TrimSuffix(plan, ")") + fmt.Sprintf(", max_concurrent %d)", p.MaxConcurrent)
		}
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
	if l.v.floating() {
		lines = append(lines, "")
		lines = append(lines, l.leaseLines(c)...)
	}
	lines = append(lines, "", fmt.Sprintf("Devices (%s bound)  %s  live sessions %d", bound, c.g.dot, l.v.sessions))
	t := table{cols: []column{{title: "FINGERPRINT", min: 11, max: 32}, {title: "STATUS", min: 7, max: 7}, {title: "BOUND", priority: 1, min: 7, max: 16}, {title: "LAST SEEN", priority: 1, min: 9, max: 16}, {title: "ID", priority: 2, min: 12, max: 12}}, cursor: l.cursor}
	devs := l.v.devices()
	for _, dv := range devs {
		bound := c.g.dash
		if !dv.BoundAt.IsZero() {
			bound = c.at(dv.BoundAt)
		}
		t.rows = append(t.rows, []string{dv.Fingerprint, dv.Status, bound, c.when(dv.LastSeenAt), tail(dv.ID)})
	}
	var hist []string
	for _, e := range l.v.history {
		hist = append(hist, e.Event+" "+c.at(e.CreatedAt))
	}
	if len(devs) > 0 {
		// The table scrolls inside what the screen has left, keeping a
		// line for the history and one for the devices not read yet.
		room := h - len(lines) - 2
		lines = append(lines, strings.Split(t.view(c, w, max(2, min(len(devs)+1, room))), "\n")...)
	}
	if l.v.unread() {
		lines = append(lines, fmt.Sprintf("  %s %d of %d devices read; down at the last one reads the next %d", c.g.ellipsis, len(devs), d.DevicesCount, store.LicenseDetailDevices))
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
	switch {
	case reason != "":
		verdict = "NO " + c.g.to + " " + reason
	case v.d.Status == store.LicenseInactive && v.d.DevicesCount == 0:
		// No device has activated it, so no session of it exists: "YES"
		// would promise one that nobody can present.
		verdict = "NO " + c.g.to + " inactive: never activated"
	case v.floating():
		verdict = fmt.Sprintf("YES on a device holding a live lease (%d of %d seats in use); without one %s %s",
			v.liveLeases(now), v.plan.MaxConcurrent, c.g.to, store.ReasonLeaseRequired)
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
	// A few devices by name; past them one line per verdict, so that a site
	// license's devices leave room for their table.
	var rest []string
	restN := map[string]int{}
	for i, dv := range v.d.Devices {
		dev := &store.Device{ID: dv.ID, Fingerprint: dv.Fingerprint, Status: dv.Status}
		r, _ := store.ExplainSession(v.app, &v.d.License, v.user, dev, now)
		if r == "" && v.floating() && v.leaseOf(dv.ID, now) == nil {
			// The server checks the seat after the cascade's other reasons.
			r = store.ReasonLeaseRequired
		}
		if r == "" {
			r = "valid"
		}
		if i < cascadeDevices {
			lines = append(lines, fmt.Sprintf("  %s device %s (%s): sessions on it %s %s", c.g.dot, store.Printable(dv.Fingerprint), dv.Status, c.g.to, r))
			continue
		}
		if restN[r] == 0 {
			rest = append(rest, r)
		}
		restN[r]++
	}
	if n := len(v.d.Devices) - cascadeDevices; n > 0 {
		parts := make([]string, 0, len(rest))
		for _, r := range rest {
			parts = append(parts, fmt.Sprintf("%d %s", restN[r], r))
		}
		lines = append(lines, fmt.Sprintf("  %s %d more of the newest devices: sessions on them %s %s", c.g.dot, n, c.g.to, strings.Join(parts, ", ")))
	}
	if v.d.Status == store.LicenseSuspended {
		lines = append(lines, "  Reinstating (u) makes new activations work; sessions revoked by the suspension stay revoked.")
	}
	return lines
}

// renew asks to renew the license by its plan's duration_days, showing the
// expiry it moves from and to (docs/design.md §16); License.Renew decides,
// here for the preview as in the store for the change.
func (l *license) renew(c *ctx) tea.Cmd {
	it := &l.v.d.LicenseItem
	preview := it.License
	if _, err := preview.Renew(store.RenewInput{}, l.v.plan, c.now()); err != nil {
		return status("Cannot renew: "+store.ErrorMessage(err), true)
	}
	a := &action{verb: "Renew", did: "renewed", consequence: func(c *ctx, _ any) []string {
		return []string{fmt.Sprintf("Expires %s → %s (%d days of plan %s, from the later of now and the expiry).",
			c.when(it.ExpiresAt), c.when(preview.ExpiresAt), *l.v.plan.DurationDays, store.Printable(l.v.plan.Name)),
			"An expired license works again with its sessions."}
	}, run: func(ctx context.Context, c *ctx, _ any) error {
		_, err := c.data.RenewLicense(ctx, c.scope(), it.ID, store.RenewInput{})
		return err
	}}
	return confirmAction(c, &l.screenBase, a, "license", it.Key, it)
}

// Fields of the plan and transfer forms, named like the server's error
// fields.
const (
	fieldMovePlan = "plan_id"
	fieldOwner    = "user_email"
)

// planForm asks for the plan to move the license to, then shows what the
// move changes before y; License.ChangePlan decides, here for the preview
// (a refusal such as too_many_devices lands under the field) as in the
// store for the change.
func (l *license) planForm(c *ctx) *form {
	it := &l.v.d.LicenseItem
	var names []string
	byName := map[string]*store.Plan{}
	for _, p := range l.v.plans {
		if p.ID != it.PlanID {
			names = append(names, p.Name)
			byName[p.Name] = p
		}
	}
	f := newForm("Move "+it.Key+" to another plan", "review", choiceField(fieldMovePlan, "Plan", names...))
	var to *store.Plan
	var preview store.License
	f.check = func(f *form) bool {
		to = byName[f.get(fieldMovePlan)]
		if to == nil {
			f.invalid(fieldMovePlan, "no other plan to move to")
			return false
		}
		preview = it.License
		if _, err := preview.ChangePlan(l.v.plan, to, c.now()); err != nil {
			f.invalid(fieldMovePlan, store.ErrorMessage(err))
			return false
		}
		return true
	}
	f.submit = func(f *form) tea.Cmd {
		from := "?"
		if l.v.plan != nil {
			from = store.Printable(l.v.plan.Name)
		}
		dest, next := to, preview
		a := &action{verb: "Move", did: "moved", consequence: func(c *ctx, _ any) []string {
			return []string{fmt.Sprintf("Plan %s → %s: its entitlements follow at once, on live sessions too.", from, store.Printable(dest.Name)),
				fmt.Sprintf("Devices bound %d, the new plan allows %d; device resets left → %d.", it.DevicesCount, dest.MaxDevices, next.DeviceResetsRemaining),
				"Expires " + c.when(it.ExpiresAt) + " (kept)."}
		}, run: func(ctx context.Context, c *ctx, _ any) error {
			_, err := c.data.UpdateLicense(ctx, c.scope(), it.ID, store.LicenseUpdate{PlanID: &dest.ID})
			return err
		}}
		return confirmAction(c, &l.screenBase, a, "license", it.Key, it)
	}
	return f
}

// transferForm asks for the end-user to hand the license to (empty:
// unassign), then shows what the transfer does before y.
func (l *license) transferForm(c *ctx) *form {
	it := &l.v.d.LicenseItem
	owner := textField(fieldOwner, "New owner's e-mail", false)
	owner.hint = "an end-user of this environment; empty: unassign"
	f := newForm("Transfer "+it.Key+" in "+strings.ToUpper(c.env), "review", owner)
	f.submit = func(f *form) tea.Cmd {
		email := strings.TrimSpace(f.get(fieldOwner))
		from, to := orNone(it.UserEmail), orNone(email)
		a := &action{verb: "Transfer", did: "transferred", consequence: func(c *ctx, _ any) []string {
			return []string{fmt.Sprintf("User %s → %s.", store.Printable(from), store.Printable(to)),
				"The previous owner's login sessions lose this license's entitlements at once;",
				"its sessions on activated devices stay (reset a device to move the seat too)."}
		}, run: func(ctx context.Context, c *ctx, _ any) error {
			id := ""
			if email != "" {
				p, err := c.data.ListEndUsers(ctx, c.scope(), store.StatusFilter{Email: email, PageRequest: store.PageRequest{Page: 1, PerPage: 1}})
				if err != nil {
					return err
				}
				if len(p.Data) == 0 {
					return store.Errorf(store.ECodeNotFound, "no end-user %s in %s", email, c.env)
				}
				id = p.Data[0].ID
			}
			_, err := c.data.UpdateLicense(ctx, c.scope(), it.ID, store.LicenseUpdate{UserID: &id})
			return err
		}}
		return confirmAction(c, &l.screenBase, a, "license", it.Key, it)
	}
	return f
}

// orNone names an absent end-user.
func orNone(email string) string {
	if email == "" {
		return "nobody"
	}
	return email
}

// leaseLines is the floating license's seats: who holds one and until when.
func (l *license) leaseLines(c *ctx) []string {
	v, now := l.v, c.now()
	lines := []string{fmt.Sprintf("Leases (%d of %d seats in use)", v.liveLeases(now), v.plan.MaxConcurrent)}
	fps := map[string]string{}
	for _, dv := range v.devices() {
		fps[dv.ID] = dv.Fingerprint
	}
	for _, ls := range v.leases {
		if !ls.Live(now) {
			continue
		}
		fp := ls.Fingerprint
		if fp == "" {
			fp = fps[ls.DeviceID]
		}
		lines = append(lines, fmt.Sprintf("  %s %s holds a seat until %s  (lease %s)", c.g.dot, store.Printable(fp), c.at(ls.ExpiresAt), tail(ls.ID)))
	}
	if len(lines) == 1 {
		lines = append(lines, "  "+c.g.dash+" no device holds a seat")
	}
	return lines
}
