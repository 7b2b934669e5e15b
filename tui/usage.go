package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// usageData is the billing capability the Usage tab needs; backends
// without billing do not get the tab.
type usageData interface {
	BillingUsage(ctx context.Context, orgID string, at time.Time) (*store.Usage, error)
}

// usage shows the organization's consumption against its tier's limits.
type usage struct {
	screenBase
	src usageData
	u   *store.Usage
	err error
}

func (u *usage) title() string                 { return "Usage" }
func (u *usage) capturing() bool               { return false }
func (u *usage) escape(c *ctx) (bool, tea.Cmd) { return false, nil }
func (u *usage) keys(c *ctx) []*binding        { return []*binding{keyRefresh} }
func (u *usage) init(c *ctx) tea.Cmd           { return u.reload(c) }

func (u *usage) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	if retriesNow(k, u.u == nil && u.err != nil) {
		return true, u.reload(c)
	}
	return false, nil
}

func (u *usage) reload(c *ctx) tea.Cmd {
	cx, gen := u.next()
	src, org, now := u.src, c.orgID, c.now()
	return c.load(cx, u.sid, gen, "usage", func(ctx context.Context) (any, error) {
		return src.BillingUsage(ctx, org, now)
	})
}

func (u *usage) update(c *ctx, msg tea.Msg) tea.Cmd {
	if msg, ok := msg.(loadedMsg); ok && msg.gen == u.gen {
		if msg.err != nil {
			u.err = msg.err
			return readFailed(c, u.sid, msg.err)
		}
		u.u, u.err = msg.val.(*store.Usage), nil
	}
	return nil
}

// quota is a count against its limit ("7/10,000"), -1 being no limit, and
// says when the count is over it.
func (c *ctx) quota(n store.UsageCount) string {
	limit := "∞"
	if c.g == asciiGlyphs {
		limit = "unlimited"
	}
	if n.Limit != store.Unlimited {
		limit = count(int(n.Limit))
	}
	q := count(int(n.Current)) + "/" + limit
	if n.Limit != store.Unlimited && n.Current > n.Limit {
		q += "  over limit"
	}
	return q
}

func (u *usage) view(c *ctx, w, h int) string {
	if u.u == nil {
		if u.err != nil {
			return c.loadFailed(u.err)
		}
		return "  loading" + c.g.ellipsis
	}
	gauge := func(name string, n store.UsageCount) string { return "  " + name + " " + c.quota(n) }
	lines := []string{
		fmt.Sprintf("Tier %s (%s) %s period from %s", u.u.PlanName, u.u.Status, c.g.dot, u.u.PeriodStart.Format("2006-01-02")),
		"",
		gauge("applications", u.u.Applications),
		gauge("active licenses", u.u.LicensesActive),
		gauge("runtime requests", u.u.RuntimeRequests),
	}
	return strings.Join(lines, "\n")
}
