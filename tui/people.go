package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// Bindings of the user and device actions.
var (
	keyBanUser     = mutating(bind(groupScreen, "b", "ban", "b"))
	keyDisableUser = mutating(bind(groupScreen, "d", "disable", "d"))
	keyBlock       = mutating(bind(groupScreen, "b", "block", "b"))
)

func userAction(b *binding, verb, ing, did, to string, cons string, from ...string) *action {
	return &action{
		b: b, verb: verb, ing: ing, did: did,
		when:        func(it any) bool { return slices.Contains(from, it.(*store.EndUser).Status) },
		consequence: func(c *ctx, it any) []string { return []string{cons} },
		run: func(ctx context.Context, c *ctx, it any) error {
			_, err := c.data.SetEndUserStatus(ctx, c.scope(), it.(*store.EndUser).ID, to)
			return err
		},
	}
}

var usersSpec = &listSpec{
	name: "Users", noun: "user", paged: true,
	cols: []column{
		{title: "EMAIL", min: 8, max: 36},
		{title: "STATUS", min: 8, max: 8},
		{title: "ROLES", priority: 3, min: 5, max: 24},
		{title: "LAST LOGIN", priority: 2, min: 10, max: 16},
		{title: "CREATED", priority: 4, min: 7, max: 16},
		{title: "ID", priority: 5, min: 12, max: 12},
	},
	cells: func(c *ctx, it any) []string {
		u := it.(*store.EndUser)
		return []string{u.Email, u.Status, strings.Join(u.Roles, ","), c.when(u.LastLoginAt), c.at(u.CreatedAt), tail(u.ID)}
	},
	id:      func(it any) string { return it.(*store.EndUser).ID },
	state:   func(it any) string { return it.(*store.EndUser).Status },
	primary: func(it any) string { return it.(*store.EndUser).Email },
	fetch: func(ctx context.Context, c *ctx, page store.PageRequest, q query) (fetched, error) {
		p, err := c.data.ListEndUsers(ctx, c.scope(), store.StatusFilter{Status: q.status, Email: q.email, PageRequest: page})
		return pageItems(p, err)
	},
	statuses: userStatuses,
	parse: func(c *ctx, text string) query {
		return parseQuery(text, userStatuses, func(q *query, tok string) bool {
			if strings.Contains(tok, "@") {
				q.email = tok
				return true
			}
			return false
		})
	},
	syntax:    "status:WORD, a full e-mail; other text filters this page",
	searchAll: ":user EMAIL or a full e-mail searches all",
	open:      func(c *ctx, it any) screen { return newUserDetail(c, it.(*store.EndUser)) },
	preview: func(c *ctx, it any) []string {
		u := it.(*store.EndUser)
		roles := strings.Join(u.Roles, ", ")
		if roles == "" {
			roles = c.g.dash
		}
		return []string{" " + store.Printable(u.Email), " status     " + u.Status, " roles      " + store.Printable(roles),
			" last login " + c.when(u.LastLoginAt), " created    " + c.at(u.CreatedAt), " id         " + tail(u.ID),
			"", " enter: the user's licenses and devices"}
	},
	actions: []*action{
		userAction(keyBanUser, "Ban", "Banning", "banned", store.UserBanned, "The user's sessions end (user_banned); reinstating (u) lets them sign in again.", store.UserActive, store.UserDisabled),
		userAction(keyDisableUser, "Disable", "Disabling", "disabled", store.UserDisabled, "The user's sessions end (user_disabled); reinstating (u) lets them sign in again.", store.UserActive),
		userAction(keyReinstate, "Reinstate", "Reinstating", "reinstated", store.UserActive, "The user can sign in again; ended sessions stay ended.", store.UserBanned, store.UserDisabled),
		addRoleAction, removeRoleAction,
	},
	empty: "No end-users in ENV yet: they appear when they sign up through your application.",
}

func deviceAction(b *binding, verb, ing, did, to, cons string, from string) *action {
	return &action{
		b: b, verb: verb, ing: ing, did: did,
		when: func(it any) bool { return it.(*store.Device).Status == from },
		consequence: func(c *ctx, it any) []string {
			return []string{strings.ReplaceAll(cons, "SESSIONS", c.liveSessions(it.(*store.Device).ID))}
		},
		run: func(ctx context.Context, c *ctx, it any) error {
			_, err := c.data.SetDeviceStatus(ctx, c.scope(), it.(*store.Device).ID, to)
			return err
		},
	}
}

var devicesSpec = &listSpec{
	name: "Devices", noun: "device", paged: true,
	cols: []column{
		{title: "FINGERPRINT", min: 11, max: 32},
		{title: "NAME", priority: 3, min: 4, max: 20},
		{title: "PLATFORM", priority: 4, min: 8, max: 12},
		{title: "STATUS", min: 7, max: 7},
		{title: "USER", priority: 3, min: 12, max: 12},
		{title: "LICENSES", priority: 2, min: 8, max: 8},
		{title: "LAST SEEN", priority: 2, min: 9, max: 16},
		{title: "ID", priority: 5, min: 12, max: 12},
	},
	cells: func(c *ctx, it any) []string {
		d := it.(*store.Device)
		return []string{d.Fingerprint, d.Name, d.Platform, d.Standing(), deviceUser(c, d), fmt.Sprint(len(d.LicenseIDs)), c.when(d.LastSeenAt), tail(d.ID)}
	},
	id:      func(it any) string { return it.(*store.Device).ID },
	state:   func(it any) string { return it.(*store.Device).Status },
	primary: func(it any) string { return it.(*store.Device).Fingerprint },
	fetch: func(ctx context.Context, c *ctx, page store.PageRequest, q query) (fetched, error) {
		p, err := c.data.ListDevices(ctx, c.scope(), store.StatusFilter{Status: q.status, Fingerprint: q.fingerprint, PageRequest: page})
		return pageItems(p, err)
	},
	statuses: deviceStatuses,
	parse: func(c *ctx, text string) query {
		return parseQuery(text, deviceStatuses, func(q *query, tok string) bool {
			if fp, ok := strings.CutPrefix(tok, "fp:"); ok {
				q.fingerprint = fp
				return true
			}
			return false
		})
	},
	syntax:    "status:WORD, fp:FINGERPRINT; other text filters this page",
	searchAll: ":device FP or fp:FP searches all",
	open:      func(c *ctx, it any) screen { return newDeviceDetail(c, it.(*store.Device)) },
	preview: func(c *ctx, it any) []string {
		d := it.(*store.Device)
		user := deviceUser(c, d)
		return []string{" " + store.Printable(d.Fingerprint), " status    " + d.Standing(), " name      " + store.Printable(d.Name),
			" platform  " + store.Printable(d.Platform), " user      " + user, fmt.Sprintf(" licenses  %d bound", len(d.LicenseIDs)),
			" last seen " + c.when(d.LastSeenAt), " id        " + tail(d.ID), "", " enter: its user, licenses and live sessions"}
	},
	actions: []*action{
		deviceAction(keyBlock, "Block", "Blocking", "blocked", store.DeviceBlocked, "SESSIONS end (device_blocked); unblocking (u) lets it activate again.", store.DeviceActive),
		deviceAction(keyReinstate, "Unblock", "Unblocking", "unblocked", store.DeviceActive, "The device can activate and validate again.", store.DeviceBlocked),
	},
	empty: "No devices in ENV yet: they appear when a license is activated.",
}

// Bindings of the role changes: r adds without asking (adding again
// changes nothing), R asks which role and then for y.
var (
	keyAddRole    = mutating(bind(groupScreen, "r", "add role", "r"))
	keyRemoveRole = mutating(bind(groupScreen, "R", "remove role", "R"))
)

// addRoleAction is r on Users: a role name, sent at once.
var addRoleAction = &action{
	b: keyAddRole, verb: "Add role", ing: "Adding role", did: "added role",
	ask: func(c *ctx, l *list, it any) tea.Cmd {
		u := it.(*store.EndUser)
		role := textField("role_id", "Role", true)
		role.hint = "lower case, as your application checks it: beta-tester"
		f := newForm("Add a role to "+c.label(u.Email), "add", role)
		f.submit = func(f *form) tea.Cmd {
			r := f.get("role_id")
			return f.run(c, l, fmt.Sprintf("Added role %s to %s", c.label(r), c.label(u.Email)), func(ctx context.Context) (any, error) {
				return c.data.AddEndUserRole(ctx, c.orgID, u.ID, r)
			}, nil)
		}
		return openOverlay(f)
	},
}

// removeRoleAction is R on Users: which of the user's roles, then y.
var removeRoleAction = &action{
	b: keyRemoveRole, verb: "Remove role", ing: "Removing role", did: "removed role",
	when: func(it any) bool { return len(it.(*store.EndUser).Roles) > 0 },
	ask: func(c *ctx, l *list, it any) tea.Cmd {
		u := it.(*store.EndUser)
		f := newForm("Remove a role from "+c.label(u.Email), "remove", choiceField("role_id", "Role", u.Roles...))
		f.submit = func(f *form) tea.Cmd {
			r := f.get("role_id")
			q := fmt.Sprintf("Remove role %s from user %s in %s?", c.label(r), c.label(u.Email), strings.ToUpper(c.env))
			cons := []string{"Your application stops seeing the role for this user; r adds it back."}
			return openOverlay(newConfirm(c, q, cons, "", func() tea.Cmd {
				return c.act(l.ctx, l.sid, fmt.Sprintf("Removed role %s from %s", c.label(r), c.label(u.Email)), func(ctx context.Context) (any, error) {
					return c.data.RemoveEndUserRole(ctx, c.orgID, u.ID, r)
				})
			}))
		}
		return openOverlay(f)
	},
}

// deviceUser names a device's end-user by the tail of the id (the device
// record does not carry the e-mail), or a dash.
func deviceUser(c *ctx, d *store.Device) string {
	if d.UserID == "" {
		return c.g.dash
	}
	return tail(d.UserID)
}
