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
	polled  bool // a page was read: what the next one adds is new
	total   int  // the log's total at the last poll
	// gaps are the entries a burst larger than a page left out, by the id
	// of the burst's oldest entry shown: its gap row comes under it.
	gaps   map[string]int
	paused bool
	cursor int  // the selected entry
	moved  bool // the user moved the cursor: new entries do not move it off its entry
}

const activityKeep = 200

var keyPause = bind(groupScreen, "space", "pause", " ", "space")

func newActivity(c *ctx) *activity { return &activity{screenBase: newBase(c), gaps: map[string]int{}} }

func (a *activity) title() string                 { return "Activity" }
func (a *activity) capturing() bool               { return false }
func (a *activity) escape(c *ctx) (bool, tea.Cmd) { return false, nil }
func (a *activity) keys(c *ctx) []*binding        { return []*binding{keyOpen, keyPause} }

func (a *activity) init(c *ctx) tea.Cmd {
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
		return c.data.ListAudit(ctx, c.scope(), store.AuditFilter{PageRequest: store.PageRequest{Page: 1, PerPage: perPage}})
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
		page := msg.val.(*store.Page[*store.AuditEntry])
		var fresh []*store.AuditEntry
		// UUIDv7 ids sort by time: newer entries have greater ids.
		for _, e := range page.Data {
			if e.ID > a.lastID {
				fresh = append(fresh, e)
			}
		}
		if a.polled && len(fresh) > 0 && len(fresh) == len(page.Data) {
			// Nothing seen before is on the page: what the log grew by
			// beyond it is the burst's part not shown (docs/tui.md §10).
			if n := page.Total - a.total - len(fresh); n > 0 {
				a.gaps[fresh[len(fresh)-1].ID] += n
			}
		}
		a.total, a.polled = page.Total, true
		if len(fresh) > 0 {
			a.lastID = fresh[0].ID
			a.entries = append(fresh, a.entries...)
			for _, e := range a.entries[min(len(a.entries), activityKeep):] {
				delete(a.gaps, e.ID)
			}
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
	head := fmt.Sprintf("Live activity %s %s events/min", c.g.dot, count(a.perMinute(c.now())))
	if a.paused {
		head += " [paused: space resumes]"
	}
	var rows []string
	end := 0 // the rows up to the cursor's entry and its gap row
	for i, e := range a.entries {
		mark := " "
		if slices.Contains(securityEvents, e.Event) {
			mark = "!"
		}
		cur := " "
		if i == a.cursor {
			cur = c.g.cursor
		}
		rows = append(rows, cur+mark+" "+auditLine(c, e))
		if n := a.gaps[e.ID]; n > 0 {
			rows = append(rows, fmt.Sprintf("   %s %s more (open Audit)", c.g.ellipsis, count(n)))
		}
		if i == a.cursor {
			end = len(rows)
		}
	}
	// The rows scroll with the cursor, so that a gap row under a burst of
	// a whole page can be reached.
	bodyH := max(1, h-1)
	from := max(0, end-bodyH)
	return strings.Join(append([]string{head}, rows[from:min(len(rows), from+bodyH)]...), "\n")
}

// perMinute counts the entries of the last minute by their own times, not
// by when they were polled: the backlog shown on opening is not a burst.
// A burst's entries left out count when its oldest entry shown is that
// recent (they are older, but not older than the entry before the burst).
func (a *activity) perMinute(now time.Time) int {
	since, n := now.Add(-time.Minute), 0
	for _, e := range a.entries {
		if e.CreatedAt.Before(since) {
			break // newest first
		}
		n += 1 + a.gaps[e.ID]
	}
	return n
}
