package api

import (
	"time"
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
