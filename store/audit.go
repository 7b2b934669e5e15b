package store

import (
	"context"
	"time"
)

// AuditEntry records one change or security event.
type AuditEntry struct {
	ID        string
	OrgID     string
	AppID     string
	EnvID     string
	Event     string
	Actor     Actor
	Target    Target
	IP        string
	UserAgent string
	Metadata  map[string]any
	CreatedAt time.Time
}

// Target is what an audit entry is about.
type Target struct {
	Type string
	ID   string
}

// AuditFilter selects a page of audit entries; From is inclusive, To exclusive.
type AuditFilter struct {
	Event string
	From  *time.Time
	To    *time.Time
	PageRequest
}

// AuditLog reads audit entries.
type AuditLog interface {
	// ListAudit returns a page of the environment's entries, newest first.
	ListAudit(ctx context.Context, s Scope, f AuditFilter) (*Page[*AuditEntry], error)
}
