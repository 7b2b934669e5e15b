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
// TargetID keeps the entries whose Target.ID is that id (a license's, a
// user's, a device's history). Event and TargetID exclude each other: each
// is an index of its own, and combining them would mean reading every entry
// of the target to test its event, so a page would no longer cost only the
// keys it shows.
type AuditFilter struct {
	Event    string
	TargetID string
	From     *time.Time
	To       *time.Time
	PageRequest
}

// Normalize fills in the page defaults and checks the filter. Returns
// validation_failed naming page, per_page, from (not before to) or target_id
// (together with event).
func (f *AuditFilter) Normalize() error {
	if err := CheckStorableFields(f); err != nil {
		return err
	}
	if err := f.PageRequest.Normalize(); err != nil {
		return err
	}
	if f.From != nil && f.To != nil && !f.From.Before(*f.To) {
		return Invalid("from", "from must be before to")
	}
	if f.Event != "" && f.TargetID != "" {
		return Invalid("target_id", "target_id cannot be combined with event")
	}
	return nil
}

// AuditLog reads audit entries.
type AuditLog interface {
	// ListAudit returns a page of the environment's entries, newest first,
	// filtered as f says. Returns validation_failed (see AuditFilter.Normalize),
	// not_found.
	ListAudit(ctx context.Context, s Scope, f AuditFilter) (*Page[*AuditEntry], error)
}
