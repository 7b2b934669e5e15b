package tui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

var keyDisableApp = mutating(bind(groupScreen, "D", "disable", "D"))

var orgsSpec = &listSpec{
	name: "Organizations", noun: "organization",
	cols: []column{
		{title: "NAME", min: 4, max: 32},
		{title: "SLUG", min: 4, max: 32},
		{title: "CREATED", priority: 2, min: 7, max: 16},
		{title: "ID", priority: 3, min: 12, max: 12},
	},
	cells: func(c *ctx, it any) []string {
		o := it.(*store.Organization)
		return []string{o.Name, o.Slug, c.at(o.CreatedAt), tail(o.ID)}
	},
	id:      func(it any) string { return it.(*store.Organization).ID },
	primary: func(it any) string { return it.(*store.Organization).Slug },
	fetch: whole(func(ctx context.Context, c *ctx) ([]*store.Organization, error) {
		return c.data.ListOrganizations(ctx)
	}),
	open: func(c *ctx, it any) screen {
		o := it.(*store.Organization)
		c.orgID, c.orgName = o.ID, o.Slug
		return newOrgHome(c)
	},
	empty: "No organizations yet: create one with `licensectl org create NAME`.",
}

var appsSpec = &listSpec{
	name: "Apps", noun: "application",
	cols: []column{
		{title: "NAME", min: 4, max: 32},
		{title: "SLUG", min: 4, max: 32},
		{title: "STATUS", min: 8, max: 8},
		{title: "CREATED", priority: 2, min: 7, max: 16},
	},
	cells: func(c *ctx, it any) []string {
		a := it.(*store.Application)
		return []string{a.Name, a.Slug, a.Status, c.at(a.CreatedAt)}
	},
	id:      func(it any) string { return it.(*store.Application).ID },
	state:   func(it any) string { return it.(*store.Application).Status },
	primary: func(it any) string { return it.(*store.Application).Slug },
	fetch: whole(func(ctx context.Context, c *ctx) ([]*store.Application, error) {
		return c.data.ListApplications(ctx, c.orgID)
	}),
	open:   func(c *ctx, it any) screen { return newAppDashboard(c, it.(*store.Application)) },
	create: createApp,
	actions: []*action{{
		b: keyDisableApp, verb: "Disable", ing: "Disabling", did: "disabled",
		when: func(it any) bool { return it.(*store.Application).Status == store.AppActive },
		consequence: func(c *ctx, it any) []string {
			return []string{"Every runtime call of the application fails (application_disabled) until it is enabled."}
		},
		run: func(ctx context.Context, c *ctx, it any) error {
			return c.data.DeleteApplication(ctx, store.AppRef{OrgID: c.orgID, AppID: it.(*store.Application).ID}, false)
		},
	}, {
		// The typed word of a permanent deletion is the slug: it cannot be
		// typed from habit.
		b: keyDelete, verb: "Delete permanently", ing: "Deleting", did: "deleted",
		word:    "slug",
		wordFor: func(it any) string { return it.(*store.Application).Slug },
		consequence: func(c *ctx, it any) []string {
			return []string{"Everything under it goes: environments, licenses, users, devices, secrets."}
		},
		run: func(ctx context.Context, c *ctx, it any) error {
			return c.data.DeleteApplication(ctx, store.AppRef{OrgID: c.orgID, AppID: it.(*store.Application).ID}, true)
		},
	}},
	empty: "No applications yet. n creates one.",
}

var membersSpec = &listSpec{
	name: "Members", noun: "member",
	cols: []column{
		{title: "EMAIL", min: 5, max: 36},
		{title: "ROLE", min: 9, max: 9},
		{title: "NAME", priority: 2, min: 4, max: 24},
		{title: "CREATED", priority: 3, min: 7, max: 16},
	},
	cells: func(c *ctx, it any) []string {
		m := it.(*store.Member)
		return []string{m.Email, m.Role, strings.TrimSpace(m.FirstName + " " + m.LastName), c.at(m.CreatedAt)}
	},
	id:      func(it any) string { return it.(*store.Member).ID },
	primary: func(it any) string { return it.(*store.Member).Email },
	fetch: whole(func(ctx context.Context, c *ctx) ([]*store.Member, error) {
		return c.data.ListMembers(ctx, c.orgID)
	}),
	create: createMember,
	actions: []*action{{
		b: irreversible(bind(groupScreen, "X", "remove", "X")), verb: "Remove", ing: "Removing", did: "removed", word: "remove",
		consequence: func(c *ctx, it any) []string {
			return []string{"The member loses access to the dashboard; the last owner cannot be removed."}
		},
		run: func(ctx context.Context, c *ctx, it any) error {
			return c.data.RemoveMember(ctx, c.orgID, it.(*store.Member).ID)
		},
	}},
	empty: "No members.",
}

var apiKeysSpec = &listSpec{
	name: "API keys", noun: "API key",
	cols: []column{
		{title: "LABEL", min: 5, max: 32},
		{title: "LAST USED", min: 9, max: 16},
		{title: "REVOKED", min: 7, max: 16},
		{title: "CREATED", priority: 2, min: 7, max: 16},
	},
	cells: func(c *ctx, it any) []string {
		k := it.(*store.APIKey)
		rev := "no"
		if k.RevokedAt != nil {
			rev = c.when(k.RevokedAt)
		}
		return []string{k.Label, c.when(k.LastUsedAt), rev, c.at(k.CreatedAt)}
	},
	id:      func(it any) string { return it.(*store.APIKey).ID },
	state:   func(it any) string { return revokedState(it.(*store.APIKey).RevokedAt) },
	primary: func(it any) string { return it.(*store.APIKey).Label },
	fetch: whole(func(ctx context.Context, c *ctx) ([]*store.APIKey, error) {
		return c.data.ListAPIKeys(ctx, c.orgID)
	}),
	create: func(c *ctx, l *list) tea.Cmd {
		return openOverlay(newAsk(c, "New API key", "label: ", func(label string) tea.Cmd {
			return c.actThen(l.ctx, l.sid, "Created API key "+label, func(ctx context.Context) (any, error) {
				_, plain, err := c.data.CreateAPIKey(ctx, c.orgID, label)
				if err != nil {
					return nil, err
				}
				return shownOnce{title: fmt.Sprintf("New API key %q", label), secret: plain, noun: "API key"}, nil
			}, l.showOnce)
		}))
	},
	actions: []*action{{
		b: keyRevokeKey, verb: "Revoke", ing: "Revoking", did: "revoked", word: "revoke",
		when: func(it any) bool { return it.(*store.APIKey).RevokedAt == nil },
		consequence: func(c *ctx, it any) []string {
			lines := []string{"Scripts using it are refused at once (unauthenticated)."}
			if c.remote {
				lines = append(lines, "It may be the key this TUI uses: the session would stop working.")
			}
			return lines
		},
		run: func(ctx context.Context, c *ctx, it any) error {
			return c.data.RevokeAPIKey(ctx, c.orgID, it.(*store.APIKey).ID)
		},
	}},
	empty: "No API keys. n creates one (shown once).",
}

func newOrgHome(c *ctx) screen {
	ts := []screen{newList(c, appsSpec), newList(c, membersSpec), newList(c, apiKeysSpec)}
	if src, ok := c.data.(usageData); ok {
		ts = append(ts, &usage{screenBase: newBase(c), src: src})
	}
	ts = append(ts, newList(c, orgAuditSpec))
	t := newTabs(c, c.orgName, ts...)
	t.org = true
	return t
}
