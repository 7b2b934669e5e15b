package tui

import (
	"context"
	"encoding/json"
	"strings"
	"time"

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
	actor := e.Actor.Type
	if e.Actor.ID != "" {
		actor += " " + tail(e.Actor.ID)
	}
	return []string{c.at(e.CreatedAt), e.Event, actor, e.Target.Type + " " + tail(e.Target.ID), e.IP}
}

// auditJSON is what y copies from an audit row: the whole entry.
func auditJSON(it any) string {
	b, _ := json.MarshalIndent(it.(*store.AuditEntry), "", "  ")
	return string(b)
}

var auditSpec = &listSpec{
	name: "Audit", noun: "entry", paged: true,
	cols:    auditCols,
	cells:   auditCells,
	id:      func(it any) string { return it.(*store.AuditEntry).ID },
	primary: auditJSON,
	fetch: func(ctx context.Context, c *ctx, page int, q query) ([]any, int, error) {
		p, err := c.data.ListAudit(ctx, c.scope(), store.AuditFilter{Event: q.event, From: q.since, PageRequest: store.PageRequest{Page: page, PerPage: perPage}})
		return pageItems(p, err)
	},
	parse: func(c *ctx, text string) query {
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
			default:
				return false
			}
			return true
		})
	},
	empty: "No audit entries in ENV yet.",
}
