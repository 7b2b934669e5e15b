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

// securityEvents are marked in the live tail.
var securityEvents = []string{"user.login_failed", "session.refresh_reused", "runtime.replay_rejected", "device.blocked"}

// activity is the live tail of the audit log (remote only): it polls page
// 1 and keeps the entries newer than the last one seen.
type activity struct {
	screenBase
	entries []*store.AuditEntry
	lastID  string
	paused  bool
	gap     int // entries that arrived in a burst larger than a page
	started time.Time
	seen    int
	cursor  int  // the selected entry
	moved   bool // the user moved the cursor: new entries do not move it off its entry
}

const activityKeep = 200

var keyPause = bind(groupScreen, "space", "pause", " ", "space")

func newActivity(c *ctx) *activity { return &activity{screenBase: newBase(c)} }

func (a *activity) title() string                 { return "Activity" }
func (a *activity) capturing() bool               { return false }
func (a *activity) escape(c *ctx) (bool, tea.Cmd) { return false, nil }
func (a *activity) keys(c *ctx) []*binding        { return []*binding{keyOpen, keyPause} }

func (a *activity) init(c *ctx) tea.Cmd {
	a.started = c.now()
	if !c.remote {
		return nil
	}
	return a.reload(c)
}

func (a *activity) reload(c *ctx) tea.Cmd {
	if !c.remote {
		return nil
	}
	cx, gen := a.next()
	return c.load(cx, a.sid, gen, "tail", func(ctx context.Context) (any, error) {
		p, err := c.data.ListAudit(ctx, c.scope(), store.AuditFilter{PageRequest: store.PageRequest{Page: 1, PerPage: perPage}})
		if err != nil {
			return nil, err
		}
		return p.Data, nil
	})
}

func (a *activity) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	switch ks := k.String(); {
	case c.matches(ks, keyPause):
		a.paused = !a.paused
	case c.matches(ks, keyDown):
		a.cursor, a.moved = min(a.cursor+1, max(0, len(a.entries)-1)), true
	case c.matches(ks, keyUp):
		a.cursor, a.moved = max(0, a.cursor-1), true
	case c.matches(ks, keyOpen):
		// The entry, whence o opens the license it is about.
		if a.cursor < len(a.entries) {
			return true, push(newEntryView(c, a.entries[a.cursor]))
		}
	default:
		return false, nil
	}
	return true, nil
}

func (a *activity) update(c *ctx, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case loadedMsg:
		next := c.every(2*time.Second, a.sid)
		if msg.gen != a.gen || msg.err != nil {
			return next
		}
		page := msg.val.([]*store.AuditEntry)
		var fresh []*store.AuditEntry
		// UUIDv7 ids sort by time: newer entries have greater ids.
		for _, e := range page {
			if e.ID > a.lastID {
				fresh = append(fresh, e)
			}
		}
		if a.lastID != "" && len(fresh) == len(page) && len(page) == perPage {
			a.gap++
		}
		if len(fresh) > 0 {
			a.lastID = fresh[0].ID
			a.seen += len(fresh)
			a.entries = append(fresh, a.entries...)
			a.entries = a.entries[:min(len(a.entries), activityKeep)]
			if a.moved {
				a.cursor = min(a.cursor+len(fresh), len(a.entries)-1)
			}
		}
		return next
	case tickMsg:
		if msg.skip || a.paused {
			return c.every(2*time.Second, a.sid)
		}
		return a.reload(c)
	}
	return nil
}

func (a *activity) view(c *ctx, w, h int) string {
	if !c.remote {
		return "Live activity needs --server: while the TUI holds the data file nothing else can write.\nThe Audit tab (6) shows what happened."
	}
	mins := max(1, c.now().Sub(a.started).Minutes())
	head := fmt.Sprintf("Live activity %s %.1f events/min", c.g.dot, float64(a.seen)/mins)
	if a.paused {
		head += " [paused: space resumes]"
	}
	lines := []string{head}
	if a.gap > 0 {
		lines = append(lines, fmt.Sprintf("  %s more in bursts (open Audit)", c.g.ellipsis))
	}
	for i, e := range a.entries {
		mark := " "
		if slices.Contains(securityEvents, e.Event) {
			mark = "!"
		}
		cur := " "
		if i == a.cursor {
			cur = c.g.cursor
		}
		lines = append(lines, cur+mark+" "+auditLine(c, e))
		if len(lines) >= h {
			break
		}
	}
	return strings.Join(lines, "\n")
}
