package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

var (
	keyDelete    = irreversible(bind(groupScreen, "X", "delete", "X"))
	keyRevokeKey = irreversible(bind(groupScreen, "X", "revoke", "X"))
)

// whole makes a fetch of a small list that is loaded whole.
func whole[T any](list func(ctx context.Context, c *ctx) ([]T, error)) fetchFunc {
	return func(ctx context.Context, c *ctx, page store.PageRequest, q query) (fetched, error) {
		items, err := list(ctx, c)
		if err != nil {
			return fetched{}, err
		}
		out := make([]any, len(items))
		for i, v := range items {
			out[i] = v
		}
		return fetched{items: out, total: len(out)}, nil
	}
}

// deleteAction is X with the typed word "delete", saying what else goes.
func deleteAction(consequence string, run func(ctx context.Context, c *ctx, it any) error) *action {
	return &action{b: keyDelete, verb: "Delete", ing: "Deleting", did: "deleted", word: "delete",
		consequence: func(*ctx, any) []string { return []string{consequence} }, run: run}
}

// revokedState is the state word of a credential: revoked or active.
func revokedState(revokedAt *time.Time) string {
	if revokedAt != nil {
		return "revoked"
	}
	return "active"
}

func optInt(p *int, none string) string {
	if p == nil {
		return none
	}
	return fmt.Sprint(*p)
}

var plansSpec = &listSpec{
	name: "Plans", noun: "plan",
	cols: []column{
		{title: "NAME", min: 4, max: 24},
		{title: "TRIAL", min: 5, max: 5},
		{title: "DURATION", priority: 2, min: 8, max: 10},
		{title: "MAX DEV", priority: 2, min: 7, max: 7},
		{title: "RESETS", priority: 3, min: 6, max: 6},
		{title: "ENTITLEMENTS", priority: 4, min: 12, max: 40},
	},
	cells: func(c *ctx, it any) []string {
		p := it.(*store.Plan)
		var ents []string
		for _, e := range p.Entitlements {
			ents = append(ents, e.Key)
		}
		trial := "no"
		if p.IsTrial {
			trial = "yes"
		}
		dur := "forever"
		if p.DurationDays != nil {
			dur = fmt.Sprintf("%dd", *p.DurationDays)
		}
		return []string{p.Name, trial, dur, fmt.Sprint(p.MaxDevices), fmt.Sprint(p.DeviceResetLimit), strings.Join(ents, ",")}
	},
	id:      func(it any) string { return it.(*store.Plan).ID },
	primary: func(it any) string { return it.(*store.Plan).Name },
	fetch: whole(func(ctx context.Context, c *ctx) ([]*store.Plan, error) {
		return c.data.ListPlans(ctx, c.app())
	}),
	create: createPlan,
	actions: []*action{
		{b: keyEditPlan, verb: "Edit", ask: editPlan},
		{b: keyEditPolicies, verb: "Edit policies", ask: editPolicies},
		deleteAction("Refused with plan_in_use while inactive, active or suspended licenses use it.",
			func(ctx context.Context, c *ctx, it any) error {
				return c.data.DeletePlan(ctx, c.app(), it.(*store.Plan).ID)
			}),
	},
	empty: "No plans yet. n creates one (licenses are generated for a plan).",
}

var entitlementsSpec = &listSpec{
	name: "Entitlements", noun: "entitlement",
	cols: []column{
		{title: "KEY", min: 3, max: 32},
		{title: "NAME", min: 4, max: 32},
		{title: "DESCRIPTION", priority: 2, min: 11, max: 60},
	},
	cells: func(c *ctx, it any) []string {
		e := it.(*store.Entitlement)
		d := ""
		if e.Description != nil {
			d = *e.Description
		}
		return []string{e.Key, e.Name, d}
	},
	id:      func(it any) string { return it.(*store.Entitlement).ID },
	primary: func(it any) string { return it.(*store.Entitlement).Key },
	fetch: whole(func(ctx context.Context, c *ctx) ([]*store.Entitlement, error) {
		return c.data.ListEntitlements(ctx, c.app())
	}),
	create: createEntitlement,
	actions: []*action{deleteAction("It is removed from every plan and license that grants it.",
		func(ctx context.Context, c *ctx, it any) error {
			return c.data.DeleteEntitlement(ctx, c.app(), it.(*store.Entitlement).ID)
		})},
	empty: "No entitlements yet. n creates one.",
}

var secretsSpec = &listSpec{
	name: "Secrets", noun: "secret",
	cols: []column{
		{title: "LABEL", min: 5, max: 32},
		{title: "ENV", min: 11, max: 11},
		{title: "LAST USED", priority: 2, min: 9, max: 16},
		{title: "REVOKED", min: 7, max: 16},
		{title: "CREATED", priority: 3, min: 7, max: 16},
	},
	cells: func(c *ctx, it any) []string {
		s := it.(*store.AppSecret)
		rev := "no"
		if s.RevokedAt != nil {
			rev = c.when(s.RevokedAt)
		}
		return []string{s.Label, s.Env, c.when(s.LastUsedAt), rev, c.at(s.CreatedAt)}
	},
	id:      func(it any) string { return it.(*store.AppSecret).ID },
	state:   func(it any) string { return revokedState(it.(*store.AppSecret).RevokedAt) },
	primary: func(it any) string { return it.(*store.AppSecret).Label },
	fetch: whole(func(ctx context.Context, c *ctx) ([]*store.AppSecret, error) {
		return c.data.ListAppSecrets(ctx, c.app())
	}),
	create: func(c *ctx, l *list) tea.Cmd {
		return openOverlay(newAsk(c, fmt.Sprintf("New application secret in %s", strings.ToUpper(c.env)), "label: ", func(label string) tea.Cmd {
			return c.actThen(l.ctx, l.sid, "Created secret "+label, func(ctx context.Context) (any, error) {
				a, err := c.data.FindApplication(ctx, c.app())
				if err != nil {
					return nil, err
				}
				env := a.Env(c.env)
				if env == nil {
					return nil, store.Invalid("env", "no %s environment", c.env)
				}
				_, plain, err := c.data.CreateAppSecret(ctx, c.app(), store.CreateSecretInput{EnvironmentID: env.ID, Label: label})
				if err != nil {
					return nil, err
				}
				return shownOnce{title: fmt.Sprintf("New application secret %q (%s)", label, c.env), secret: plain, noun: "application secret"}, nil
			}, l.showOnce)
		}))
	},
	actions: []*action{{
		b: keyRevokeKey, verb: "Revoke", ing: "Revoking", did: "revoked", word: "revoke",
		when: func(it any) bool { return it.(*store.AppSecret).RevokedAt == nil },
		consequence: func(c *ctx, it any) []string {
			return []string{"Servers using it are refused at once (unauthenticated)."}
		},
		run: func(ctx context.Context, c *ctx, it any) error {
			return c.data.RevokeAppSecret(ctx, c.app(), it.(*store.AppSecret).ID)
		},
	}},
	empty: "No secrets yet. n creates one in the current environment (shown once).",
}

// shownOnce is the answer of a create that returns a plaintext, for the
// secret-once modal; noun names the plaintext when it is copied.
type shownOnce struct{ title, secret, noun string }

// showOnce shows a created plaintext in the secret-once modal, over the
// list reloaded with the new row (an actionMsg.onResult).
func (l *list) showOnce(val any) tea.Cmd {
	v := val.(shownOnce)
	return tea.Batch(openOverlay(&secretOnce{title: v.title, secret: v.secret, clip: l.c.copySecret(v.noun)}), l.reload(l.c))
}
