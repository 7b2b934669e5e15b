package tui

import (
	"context"

	"licensectl/store"
)

// Data is the part of the admin store interface the TUI calls. *bolt.DB
// (local) and *client.Client (remote) both implement it through the CLI's
// admin interface; declaring only what the screens use keeps the TUI
// independent of how that interface is split and named.
type Data interface {
	FindOrganization(ctx context.Context, id string) (*store.Organization, error)
	ListOrganizations(ctx context.Context) ([]*store.Organization, error)
	ListMembers(ctx context.Context, orgID string) ([]*store.Member, error)
	AddMember(ctx context.Context, in store.AddMemberInput) (*store.Member, error)
	RemoveMember(ctx context.Context, orgID, id string) error

	CreateApplication(ctx context.Context, in store.CreateApplicationInput) (*store.Application, error)
	ListApplications(ctx context.Context, orgID string) ([]*store.Application, error)
	FindApplication(ctx context.Context, ref store.AppRef) (*store.Application, error)
	UpdateApplication(ctx context.Context, ref store.AppRef, upd store.ApplicationUpdate) (*store.Application, error)
	DeleteApplication(ctx context.Context, ref store.AppRef, permanent bool) error

	CreateAPIKey(ctx context.Context, orgID, label string) (*store.APIKey, string, error)
	ListAPIKeys(ctx context.Context, orgID string) ([]*store.APIKey, error)
	RevokeAPIKey(ctx context.Context, orgID, id string) error
	CreateAppSecret(ctx context.Context, ref store.AppRef, in store.CreateSecretInput) (*store.AppSecret, string, error)
	ListAppSecrets(ctx context.Context, ref store.AppRef) ([]*store.AppSecret, error)
	RevokeAppSecret(ctx context.Context, ref store.AppRef, id string) error

	CreateEntitlement(ctx context.Context, ref store.AppRef, in store.CreateEntitlementInput) (*store.Entitlement, error)
	ListEntitlements(ctx context.Context, ref store.AppRef) ([]*store.Entitlement, error)
	DeleteEntitlement(ctx context.Context, ref store.AppRef, id string) error
	CreatePlan(ctx context.Context, ref store.AppRef, in store.PlanInput) (*store.Plan, error)
	ListPlans(ctx context.Context, ref store.AppRef) ([]*store.Plan, error)
	FindPlan(ctx context.Context, ref store.AppRef, id string) (*store.Plan, error)
	DeletePlan(ctx context.Context, ref store.AppRef, id string) error
	UpdatePlan(ctx context.Context, ref store.AppRef, id string, in store.PlanInput) (*store.Plan, error)

	GenerateLicenses(ctx context.Context, s store.Scope, in store.GenerateLicensesInput) ([]*store.LicenseItem, error)
	ListLicenses(ctx context.Context, s store.Scope, f store.LicenseFilter) (*store.Page[*store.LicenseItem], error)
	FindLicense(ctx context.Context, s store.Scope, id string) (*store.LicenseDetail, error)
	SetLicenseStatus(ctx context.Context, s store.Scope, id, status string) (*store.License, error)
	ResetLicenseDevice(ctx context.Context, s store.Scope, licenseID, deviceID string) error
	RenewLicense(ctx context.Context, s store.Scope, id string, in store.RenewInput) (*store.LicenseItem, error)
	UpdateLicense(ctx context.Context, s store.Scope, id string, u store.LicenseUpdate) (*store.LicenseItem, error)
	CountLicenseSessions(ctx context.Context, s store.Scope, licenseID string) (int, error)
	IssueMachineFile(ctx context.Context, s store.Scope, licenseID string, in store.LicenseMachineFileInput) (*store.IssuedMachineFile, error)
	CountDeviceSessions(ctx context.Context, s store.Scope, deviceID string) (int, error)
	ListLeases(ctx context.Context, s store.Scope, licenseID string) ([]*store.Lease, error)

	ListEndUsers(ctx context.Context, s store.Scope, f store.StatusFilter) (*store.Page[*store.EndUser], error)
	SetEndUserStatus(ctx context.Context, s store.Scope, id, status string) (*store.EndUser, error)
	AddEndUserRole(ctx context.Context, orgID, userID, role string) (*store.EndUserRoles, error)
	RemoveEndUserRole(ctx context.Context, orgID, userID, role string) (*store.EndUserRoles, error)
	ListDevices(ctx context.Context, s store.Scope, f store.StatusFilter) (*store.Page[*store.Device], error)
	SetDeviceStatus(ctx context.Context, s store.Scope, id, status string) (*store.Device, error)

	ListAudit(ctx context.Context, s store.Scope, f store.AuditFilter) (*store.Page[*store.AuditEntry], error)
	ListOrgAudit(ctx context.Context, orgID string, f store.AuditFilter) (*store.Page[*store.AuditEntry], error)

	ListWebhooks(ctx context.Context, ref store.AppRef) ([]*store.Webhook, error)
	UpdateWebhook(ctx context.Context, ref store.AppRef, id string, u store.WebhookUpdate) (*store.Webhook, error)
	DeleteWebhook(ctx context.Context, ref store.AppRef, id string) error
	ListDeliveries(ctx context.Context, ref store.AppRef, webhookID string, f store.DeliveryFilter) (*store.Page[*store.Delivery], error)
	RetryDelivery(ctx context.Context, ref store.AppRef, webhookID, deliveryID string) error
}

// The admin interface must keep offering what the TUI calls.
var _ Data = store.Admin(nil)
