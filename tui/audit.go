package tui

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/server/api"
	"licensectl/store"
)

var auditCols = []column{
	{title: "TIME", min: 7, max: 16},
	{title: "EVENT", min: 12, max: 28},
	{title: "ACTOR", priority: 2, min: 5, max: 24},
	{title: "TARGET", priority: 3, min: 6, max: 24},
	{title: "IP", priority: 4, min: 2, max: 15},
}

func auditCells(c *ctx, it any) []string {
	e := it.(*store.AuditEntry)
	return []string{c.at(e.CreatedAt), e.Event, who(e.Actor.Type, e.Actor.ID), who(e.Target.Type, e.Target.ID), e.IP}
}

// who names an actor or a target: its type and the tail of its id, or the
// type alone when the id adds nothing (the operator's id is "operator"; a
// runtime call that named no license has none).
func who(typ, id string) string {
	if id == "" || id == typ {
		return typ
	}
	return typ + " " + tail(id)
}

// auditLine is an entry on one line (Activity, the Overview's recent
// activity): time, event, who acted and on what, and the address. A target
// that is the actor itself (a license activating, the runtime naming a
// license) is named once.
func auditLine(c *ctx, e *store.AuditEntry) string {
	a, t := e.Actor, e.Target
	parts := []string{c.at(e.CreatedAt), e.Event}
	switch {
	case a.Type == t.Type && (a.ID == "" || t.ID == "" || a.ID == t.ID):
		parts = append(parts, who(t.Type, cmp.Or(t.ID, a.ID)))
	default:
		parts = append(parts, who(a.Type, a.ID), who(t.Type, t.ID))
	}
	if e.IP != "" {
		parts = append(parts, e.IP)
	}
	return strings.Join(parts, "  ")
}

// auditJSON is what y copies from an audit row: the whole entry.
func auditJSON(it any) string {
	b, _ := json.MarshalIndent(api.AuditEntryOf(it.(*store.AuditEntry)), "", "  ")
	return string(b)
}

// auditLogSpec is a paged audit log read by list: the application's
// environment log (Audit) or the organization's own (Org audit).
func auditLogSpec(name, empty string, list func(ctx context.Context, c *ctx, f store.AuditFilter) (*store.Page[*store.AuditEntry], error)) *listSpec {
	return &listSpec{
		name: name, noun: "entry", paged: true,
		cols:    auditCols,
		cells:   auditCells,
		id:      func(it any) string { return it.(*store.AuditEntry).ID },
		primary: auditJSON,
		fetch: func(ctx context.Context, c *ctx, page store.PageRequest, q query) (fetched, error) {
			return pageItems(list(ctx, c, store.AuditFilter{Event: q.event, From: q.since, To: q.until, PageRequest: page}))
		},
		parse: parseAudit,
		bare:  "event:",
		open:  func(c *ctx, it any) screen { return newEntryView(c, it.(*store.AuditEntry)) },
		empty: empty,
	}
}

var auditSpec = auditLogSpec("Audit", "No audit entries in ENV yet.",
	func(ctx context.Context, c *ctx, f store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
		return c.data.ListAudit(ctx, c.scope(), f)
	})

// orgAuditSpec is the organization's own log: members, API keys and the
// organization itself, which belong to no application.
var orgAuditSpec = auditLogSpec("Org audit", "No organization events yet (members, API keys).",
	func(ctx context.Context, c *ctx, f store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
		return c.data.ListOrgAudit(ctx, c.orgID, f)
	})

// parseAudit reads event:NAME, since:24h, from:RFC3339 and to:RFC3339.
func parseAudit(c *ctx, text string) query {
	return parseQuery(text, nil, func(q *query, tok string) bool {
		switch {
		case strings.HasPrefix(tok, "event:"):
			q.event = tok[6:]
		case strings.HasPrefix(tok, "since:"):
			d, err := time.ParseDuration(tok[6:])
			if err != nil {
				return false
			}
			t := c.now().Add(-d)
			q.since = &t
		case strings.HasPrefix(tok, "from:"):
			t, err := time.Parse(time.RFC3339, tok[5:])
			if err != nil {
				return false
			}
			q.since = &t
		case strings.HasPrefix(tok, "to:"):
			t, err := time.Parse(time.RFC3339, tok[3:])
			if err != nil {
				return false
			}
			q.until = &t
		default:
			return false
		}
		return true
	})
}

// entryView shows one audit entry whole, as JSON, scrolled with j/k; y
// copies it.
type entryView struct {
	screenBase
	e     *store.AuditEntry
	lines []string
	top   int
}

func newEntryView(c *ctx, e *store.AuditEntry) screen {
	return &entryView{screenBase: newBase(c), e: e, lines: printableLines(auditJSON(e))}
}

func (v *entryView) title() string                      { return v.e.Event }
func (v *entryView) init(c *ctx) tea.Cmd                { return nil }
func (v *entryView) update(c *ctx, msg tea.Msg) tea.Cmd { return nil }
func (v *entryView) capturing() bool                    { return false }
func (v *entryView) escape(c *ctx) (bool, tea.Cmd)      { return false, nil }
func (v *entryView) reload(c *ctx) tea.Cmd              { return nil }

func (v *entryView) keys(c *ctx) []*binding {
	if v.e.Target.Type == "license" && c.appID != "" {
		return []*binding{keyOpenTarget, keyCopy, keyDown, keyUp}
	}
	return []*binding{keyCopy, keyDown, keyUp}
}

// keyOpenTarget opens the license an audit entry is about.
var keyOpenTarget = bind(groupScreen, "o", "open the license", "o")

func (v *entryView) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	ks := k.String()
	switch {
	case c.matches(ks, keyCopy):
		return true, c.copy(auditJSON(v.e))
	case c.matches(ks, keyCopyID):
		return true, c.copy(v.e.ID)
	case c.matches(ks, keyOpenTarget) && v.e.Target.Type == "license" && c.appID != "":
		return true, push(newLicense(c, v.e.Target.ID))
	case c.matches(ks, keyDown):
		v.top = min(v.top+1, max(0, len(v.lines)-1))
	case c.matches(ks, keyUp):
		v.top = max(0, v.top-1)
	default:
		return false, nil
	}
	return true, nil
}

func (v *entryView) view(c *ctx, w, h int) string {
	head := fmt.Sprintf("Audit entry %s %s %s (y copy JSON %s Y copy id)", v.e.Event, c.g.dot, c.at(v.e.CreatedAt), c.g.dot)
	out := []string{c.st.title.Render(c.g.truncate(head, w))}
	for _, l := range v.lines[min(v.top, len(v.lines)):] {
		if len(out) >= h {
			break
		}
		out = append(out, c.g.truncate(l, w))
	}
	return strings.Join(out, "\n")
}

// printableLines splits text into lines with the controls of stored free
// text made visible (docs/design.md §8).
func printableLines(text string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = store.Printable(l)
	}
	return lines
}

// keyHistory opens a detail's history: the audit entries about its record.
var keyHistory = bind(groupScreen, "h", "history", "h")

// newHistory is the audit log of one record (a license, device or user),
// newest first, every page of it; what names the record in the title.
func newHistory(c *ctx, what, targetID string) screen {
	spec := auditLogSpec("History of "+what, "No audit entries about "+what+" in ENV.",
		func(ctx context.Context, c *ctx, f store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
			if f.Event != "" {
				// The store filters by target or by event, not both.
				return nil, store.Invalid("event", "a record's history lists all its events; filter by event on the Audit tab (6)")
			}
			f.TargetID = targetID
			return c.data.ListAudit(ctx, c.scope(), f)
		})
	return newList(c, spec)
}
