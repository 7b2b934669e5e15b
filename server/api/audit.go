package api

import (
	"time"

	"licensectl/store"
)

// AuditEntry is an audit log entry in lists. Metadata is an object ({} when
// the event carries none).
type AuditEntry struct {
	ID        string         `json:"id"`
	Event     string         `json:"event"`
	Actor     AuditActor     `json:"actor"`
	Target    AuditTarget    `json:"target"`
	IP        string         `json:"ip"`
	UserAgent string         `json:"user_agent"`
	Metadata  map[string]any `json:"metadata"`
	CreatedAt time.Time      `json:"created_at"`
}

// AuditActor is who made an audited change.
type AuditActor struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// AuditTarget is what an audited change was about.
type AuditTarget struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// AuditEntryOf is the wire form of an entry.
func AuditEntryOf(e *store.AuditEntry) AuditEntry {
	meta := e.Metadata
	if meta == nil {
		meta = map[string]any{}
	}
	return AuditEntry{ID: e.ID, Event: e.Event, Actor: AuditActor{Type: e.Actor.Type, ID: e.Actor.ID}, Target: AuditTarget(e.Target),
		IP: e.IP, UserAgent: e.UserAgent, Metadata: meta, CreatedAt: e.CreatedAt}
}
