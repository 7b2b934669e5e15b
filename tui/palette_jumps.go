package tui

import (
	"context"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// A palette jump that must look something up first (:org SLUG, :app SLUG)
// loads like any screen, addressed to no screen (jumpScreen): the root
// applies the answer in Update, where the session's organization and
// application may change.
const jumpScreen = 0

// jumpTo is a jump's answer: the screens to replace the stack with, built
// in Update.
type jumpTo func(m *model) []screen

func (m *model) jump(fn func(ctx context.Context) (jumpTo, error)) tea.Cmd {
	return m.c.load(context.Background(), jumpScreen, 0, "jump", func(ctx context.Context) (any, error) { return fn(ctx) })
}

// landed applies a jump's answer.
func (m *model) landed(msg loadedMsg) tea.Cmd {
	if msg.err != nil {
		return status(m.c.g.fail+" "+errText(msg.err), true)
	}
	stack := msg.val.(jumpTo)(m)
	return func() tea.Msg { return replaceMsg{stack} }
}

// names reports whether what names the record with this id, slug or name.
func names(what, id, slug, name string) bool {
	return what == id || strings.EqualFold(what, slug) || strings.EqualFold(what, name)
}

// jumpOrg is :org SLUG: that organization's home.
func (m *model) jumpOrg(what string) tea.Cmd {
	c := m.c
	return m.jump(func(ctx context.Context) (jumpTo, error) {
		orgs, err := c.data.ListOrganizations(ctx)
		if err != nil {
			return nil, err
		}
		for _, o := range orgs {
			if names(what, o.ID, o.Slug, o.Name) {
				return func(m *model) []screen {
					m.c.orgID, m.c.orgName, m.c.appID, m.c.appName = o.ID, o.Slug, "", ""
					return []screen{newOrgHome(m.c)}
				}, nil
			}
		}
		return nil, store.Errorf(store.ECodeNotFound, "no organization %q", what)
	})
}

// jumpApp is :app SLUG: that application's dashboard in this organization.
func (m *model) jumpApp(what string) tea.Cmd {
	c := m.c
	if c.orgID == "" {
		return status(c.g.fail+" choose an organization first (:orgs)", true)
	}
	org := c.orgID
	return m.jump(func(ctx context.Context) (jumpTo, error) {
		apps, err := c.data.ListApplications(ctx, org)
		if err != nil {
			return nil, err
		}
		for _, a := range apps {
			if names(what, a.ID, a.Slug, a.Name) {
				return func(m *model) []screen {
					return []screen{newOrgHome(m.c), newAppDashboard(m.c, a)}
				}, nil
			}
		}
		return nil, store.Errorf(store.ECodeNotFound, "no application %q", what)
	})
}
