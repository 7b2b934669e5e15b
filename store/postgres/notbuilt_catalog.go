package postgres

// Not yet built: the catalog part (see the brief).

import (
	"context"
	"errors"
	"io"
	"time"

	"licensectl/store"
)

var _ = io.EOF
var _ = time.Second
var _ context.Context

var errNotBuiltcatalog = errors.New("postgres: not built yet")

// CreateApplication implements store.Applications.
func (db *DB) CreateApplication(ctx context.Context, in store.CreateApplicationInput) (*store.Application, error) {
	return nil, errNotBuiltcatalog
}

// DeleteApplication implements store.Applications.
func (db *DB) DeleteApplication(ctx context.Context, ref store.AppRef, permanent bool) error {
	return errNotBuiltcatalog
}

// FindApplication implements store.Applications.
func (db *DB) FindApplication(ctx context.Context, ref store.AppRef) (*store.Application, error) {
	return nil, errNotBuiltcatalog
}

// ListApplications implements store.Applications.
func (db *DB) ListApplications(ctx context.Context, orgID string) ([]*store.Application, error) {
	return nil, errNotBuiltcatalog
}

// UpdateApplication implements store.Applications.
func (db *DB) UpdateApplication(ctx context.Context, ref store.AppRef, upd store.ApplicationUpdate) (*store.Application, error) {
	return nil, errNotBuiltcatalog
}

// CreateEntitlement implements store.Entitlements.
func (db *DB) CreateEntitlement(ctx context.Context, ref store.AppRef, in store.CreateEntitlementInput) (*store.Entitlement, error) {
	return nil, errNotBuiltcatalog
}

// DeleteEntitlement implements store.Entitlements.
func (db *DB) DeleteEntitlement(ctx context.Context, ref store.AppRef, id string) error {
	return errNotBuiltcatalog
}

// ListEntitlements implements store.Entitlements.
func (db *DB) ListEntitlements(ctx context.Context, ref store.AppRef) ([]*store.Entitlement, error) {
	return nil, errNotBuiltcatalog
}

// CreatePlan implements store.Plans.
func (db *DB) CreatePlan(ctx context.Context, ref store.AppRef, in store.PlanInput) (*store.Plan, error) {
	return nil, errNotBuiltcatalog
}

// DeletePlan implements store.Plans.
func (db *DB) DeletePlan(ctx context.Context, ref store.AppRef, id string) error {
	return errNotBuiltcatalog
}

// FindPlan implements store.Plans.
func (db *DB) FindPlan(ctx context.Context, ref store.AppRef, id string) (*store.Plan, error) {
	return nil, errNotBuiltcatalog
}

// ListPlans implements store.Plans.
func (db *DB) ListPlans(ctx context.Context, ref store.AppRef) ([]*store.Plan, error) {
	return nil, errNotBuiltcatalog
}

// UpdatePlan implements store.Plans.
func (db *DB) UpdatePlan(ctx context.Context, ref store.AppRef, id string, in store.PlanInput) (*store.Plan, error) {
	return nil, errNotBuiltcatalog
}

// CreateAPIKey implements store.APIKeys.
func (db *DB) CreateAPIKey(ctx context.Context, orgID string, label string) (*store.APIKey, string, error) {
	return nil, "", errNotBuiltcatalog
}

// ListAPIKeys implements store.APIKeys.
func (db *DB) ListAPIKeys(ctx context.Context, orgID string) ([]*store.APIKey, error) {
	return nil, errNotBuiltcatalog
}

// RevokeAPIKey implements store.APIKeys.
func (db *DB) RevokeAPIKey(ctx context.Context, orgID string, id string) error {
	return errNotBuiltcatalog
}

// CreateAppSecret implements store.AppSecrets.
func (db *DB) CreateAppSecret(ctx context.Context, ref store.AppRef, in store.CreateSecretInput) (*store.AppSecret, string, error) {
	return nil, "", errNotBuiltcatalog
}

// ListAppSecrets implements store.AppSecrets.
func (db *DB) ListAppSecrets(ctx context.Context, ref store.AppRef) ([]*store.AppSecret, error) {
	return nil, errNotBuiltcatalog
}

// RevokeAppSecret implements store.AppSecrets.
func (db *DB) RevokeAppSecret(ctx context.Context, ref store.AppRef, id string) error {
	return errNotBuiltcatalog
}

// AuthenticateAPIKey implements store.Credentials.
func (db *DB) AuthenticateAPIKey(ctx context.Context, plaintext string) (*store.APIKey, error) {
	return nil, errNotBuiltcatalog
}

// AuthenticateAppSecret implements store.Credentials.
func (db *DB) AuthenticateAppSecret(ctx context.Context, plaintext string) (*store.AppSecret, error) {
	return nil, errNotBuiltcatalog
}

// ListAudit implements store.AuditLog.
func (db *DB) ListAudit(ctx context.Context, s store.Scope, f store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
	return nil, errNotBuiltcatalog
}

// ListOrgAudit implements store.OrgAuditLog.
func (db *DB) ListOrgAudit(ctx context.Context, orgID string, f store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
	return nil, errNotBuiltcatalog
}

// PruneAudit implements store.AuditRetention.
func (db *DB) PruneAudit(ctx context.Context, batch int) (int, error) {
	return 0, errNotBuiltcatalog
}

// FindEndUser implements store.EndUserAccounts.
func (db *DB) FindEndUser(ctx context.Context, orgID string, id string) (*store.EndUser, error) {
	return nil, errNotBuiltcatalog
}

// RegisterEndUser implements store.EndUserAccounts.
func (db *DB) RegisterEndUser(ctx context.Context, s store.Scope, email string, password string) (*store.EndUser, error) {
	return nil, errNotBuiltcatalog
}
