package store

import (
	"encoding/json"
	"time"
)

// The object an event concerns travels in its webhook payload as a snapshot
// taken in the transaction of the change, in the shape of its management
// list item and never with a secret or token. The snapshots live here, next
// to the domain, so that every backend renders the same payload; the JSON
// tags are the payload's contract (docs/design.md §9).

// EventPayload is the body of a webhook delivery.
type EventPayload struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      EventData `json:"data"`
}

// EventData is the data of a delivery: where the event happened, its audit
// entry, and the object under its kind (license, user, device, plan, …).
type EventData struct {
	ApplicationID *string
	Environment   *string // production|development; nil for application-level events
	AuditID       string
	Kind          string // the key the object goes under; "" for none
	Object        any
	Extra         map[string]any // more top-level keys (webhook.test: webhook_id)
}

// MarshalJSON flattens the object under its kind next to the fixed keys.
func (d EventData) MarshalJSON() ([]byte, error) {
	m := map[string]any{"application_id": d.ApplicationID, "environment": d.Environment}
	if d.AuditID != "" {
		m["audit_id"] = d.AuditID
	}
	if d.Kind != "" {
		m[d.Kind] = d.Object
	}
	for k, v := range d.Extra {
		m[k] = v
	}
	return json.Marshal(m)
}

// PlanRefSnapshot names a license's plan.
type PlanRefSnapshot struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// UserRefSnapshot names a license's end-user.
type UserRefSnapshot struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

// LicenseSnapshot is a license as in the management license list.
type LicenseSnapshot struct {
	ID           string           `json:"id"`
	Key          string           `json:"key"`
	Status       string           `json:"status"`
	Plan         PlanRefSnapshot  `json:"plan"`
	User         *UserRefSnapshot `json:"user"`
	DevicesCount int              `json:"devices_count"`
	ActivatedAt  *time.Time       `json:"activated_at"`
	ExpiresAt    *time.Time       `json:"expires_at"`
	// MaintenanceExpiresAt is null when updates are unlimited.
	MaintenanceExpiresAt *time.Time `json:"maintenance_expires_at"`
	CreatedAt            time.Time  `json:"created_at"`
	UpdatedAt            time.Time  `json:"updated_at"`
}

// SnapshotLicense takes a license's snapshot at now (its effective status).
func SnapshotLicense(l *LicenseItem, now time.Time) LicenseSnapshot {
	s := LicenseSnapshot{ID: l.ID, Key: l.Key, Status: l.EffectiveStatus(now), Plan: PlanRefSnapshot{ID: l.PlanID, Name: l.PlanName},
		DevicesCount: l.DevicesCount, ActivatedAt: l.ActivatedAt, ExpiresAt: l.ExpiresAt, MaintenanceExpiresAt: l.MaintenanceExpiresAt, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
	if l.UserID != "" {
		s.User = &UserRefSnapshot{ID: l.UserID, Email: l.UserEmail}
	}
	return s
}

// UserSnapshot is an end-user as in the management end-user list.
type UserSnapshot struct {
	ID          string     `json:"id"`
	Email       string     `json:"email"`
	Status      string     `json:"status"`
	Roles       []string   `json:"roles"`
	LastLoginAt *time.Time `json:"last_login_at"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
}

// SnapshotUser takes an end-user's snapshot; the password hash stays behind.
func SnapshotUser(u *EndUser) UserSnapshot {
	roles := u.Roles
	if roles == nil {
		roles = []string{}
	}
	return UserSnapshot{ID: u.ID, Email: u.Email, Status: u.Status, Roles: roles, LastLoginAt: u.LastLoginAt, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt}
}

// DeviceSnapshot is a device as in the management device list.
type DeviceSnapshot struct {
	ID          string     `json:"id"`
	Fingerprint string     `json:"fingerprint"`
	Name        string     `json:"name"`
	Platform    string     `json:"platform"`
	Status      string     `json:"status"`
	UserID      *string    `json:"user_id"`
	LicenseIDs  []string   `json:"license_ids"`
	LastSeenAt  *time.Time `json:"last_seen_at"`
	CreatedAt   time.Time  `json:"created_at"`
}

// SnapshotDevice takes a device's snapshot.
func SnapshotDevice(d *Device) DeviceSnapshot {
	s := DeviceSnapshot{ID: d.ID, Fingerprint: d.Fingerprint, Name: d.Name, Platform: d.Platform, Status: d.Status,
		LicenseIDs: d.LicenseIDs, LastSeenAt: d.LastSeenAt, CreatedAt: d.CreatedAt}
	if s.LicenseIDs == nil {
		s.LicenseIDs = []string{}
	}
	if d.UserID != "" {
		s.UserID = &d.UserID
	}
	return s
}

// PlanSnapshot is a plan as in the management plan list: its entitlements
// are their short forms, names included, as the list answers them.
type PlanSnapshot struct {
	ID                    string                   `json:"id"`
	Name                  string                   `json:"name"`
	IsTrial               bool                     `json:"is_trial"`
	DurationDays          *int                     `json:"duration_days"`
	MaxDevices            int                      `json:"max_devices"`
	DeviceResetLimit      int                      `json:"device_reset_limit"`
	DeviceResetWindowDays int                      `json:"device_reset_window_days"`
	MaxConcurrent         int                      `json:"max_concurrent"`
	LeaseSeconds          int                      `json:"lease_seconds"`
	MaxOfflineDays        int                      `json:"max_offline_days"`
	MaintenanceDays       *int                     `json:"maintenance_days"`
	Rebind                string                   `json:"rebind"`
	ExternalProductID     *string                  `json:"external_product_id"`
	Policies              json.RawMessage          `json:"policies"`
	Entitlements          []EntitlementRefSnapshot `json:"entitlements"`
	CreatedAt             time.Time                `json:"created_at"`
	UpdatedAt             time.Time                `json:"updated_at"`
}

// EntitlementRefSnapshot is the short form of an entitlement inside a plan.
type EntitlementRefSnapshot struct {
	ID   string `json:"id"`
	Key  string `json:"key"`
	Name string `json:"name"`
}

// SnapshotPlan takes a plan's snapshot; p.Entitlements must be resolved
// (SnapshotSource.Plan does it).
func SnapshotPlan(p *Plan) PlanSnapshot {
	ents := make([]EntitlementRefSnapshot, 0, len(p.Entitlements))
	for _, e := range p.Entitlements {
		ents = append(ents, EntitlementRefSnapshot(e))
	}
	pol := p.Policies
	if len(pol) == 0 {
		pol = json.RawMessage("null")
	}
	return PlanSnapshot{ID: p.ID, Name: p.Name, IsTrial: p.IsTrial, DurationDays: p.DurationDays, MaxDevices: p.MaxDevices,
		DeviceResetLimit: p.DeviceResetLimit, DeviceResetWindowDays: p.DeviceResetWindowDays,
		MaxConcurrent: p.MaxConcurrent, LeaseSeconds: p.LeaseSeconds, MaxOfflineDays: p.MaxOfflineDays, MaintenanceDays: p.MaintenanceDays, Rebind: p.RebindMode(), ExternalProductID: p.ExternalProductID, Policies: pol, Entitlements: ents,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

// EntitlementSnapshot is an entitlement as in the management list.
type EntitlementSnapshot struct {
	ID          string    `json:"id"`
	Key         string    `json:"key"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	CreatedAt   time.Time `json:"created_at"`
}

// SnapshotEntitlement takes an entitlement's snapshot.
func SnapshotEntitlement(e *Entitlement) EntitlementSnapshot {
	return EntitlementSnapshot{ID: e.ID, Key: e.Key, Name: e.Name, Description: e.Description, CreatedAt: e.CreatedAt}
}

// ApplicationSnapshot is an application as in the management list.
type ApplicationSnapshot struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Slug   string `json:"slug"`
	Status string `json:"status"`
	// SupportEmail is null when the application names no support address.
	SupportEmail *string   `json:"support_email"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// SnapshotApplication takes an application's snapshot.
func SnapshotApplication(a *Application) ApplicationSnapshot {
	return ApplicationSnapshot{ID: a.ID, Name: a.Name, Slug: a.Slug, Status: a.Status, SupportEmail: a.SupportEmailOrNil(), CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

// SupportEmailOrNil is the application's support address as the wire
// carries it: nil when it has none.
func (a *Application) SupportEmailOrNil() *string {
	if a.SupportEmail == "" {
		return nil
	}
	e := a.SupportEmail
	return &e
}

// WebhookSnapshot is a webhook endpoint as in its list: no secret.
type WebhookSnapshot struct {
	ID            string    `json:"id"`
	ApplicationID string    `json:"application_id"`
	URL           string    `json:"url"`
	Events        []string  `json:"events"`
	Status        string    `json:"status"`
	CreatedAt     time.Time `json:"created_at"`
}

// SnapshotWebhook takes an endpoint's snapshot.
func SnapshotWebhook(w *Webhook) WebhookSnapshot {
	return WebhookSnapshot{ID: w.ID, ApplicationID: w.AppID, URL: w.URL, Events: w.Events, Status: w.Status, CreatedAt: w.CreatedAt}
}

// SecretSnapshot is an application secret as in its list: never its
// plaintext or hash.
type SecretSnapshot struct {
	ID            string     `json:"id"`
	Label         string     `json:"label"`
	EnvironmentID string     `json:"environment_id"`
	LastUsedAt    *time.Time `json:"last_used_at"`
	RevokedAt     *time.Time `json:"revoked_at"`
	CreatedAt     time.Time  `json:"created_at"`
}

// SnapshotSecret takes an application secret's snapshot.
func SnapshotSecret(x *AppSecret) SecretSnapshot {
	return SecretSnapshot{ID: x.ID, Label: x.Label, EnvironmentID: x.EnvironmentID, LastUsedAt: x.LastUsedAt, RevokedAt: x.RevokedAt, CreatedAt: x.CreatedAt}
}

// APIKeySnapshot is a developer API key as in its list: never its
// plaintext or hash.
type APIKeySnapshot struct {
	ID         string     `json:"id"`
	Label      string     `json:"label"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
	CreatedAt  time.Time  `json:"created_at"`
}

// SnapshotAPIKey takes an API key's snapshot.
func SnapshotAPIKey(k *APIKey) APIKeySnapshot {
	return APIKeySnapshot{ID: k.ID, Label: k.Label, LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt, CreatedAt: k.CreatedAt}
}

// MemberSnapshot is a dashboard member as in the member list: no password
// hash, and none of the profile the list leaves out.
type MemberSnapshot struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// SnapshotMember takes a member's snapshot.
func SnapshotMember(m *Member) MemberSnapshot {
	return MemberSnapshot{ID: m.ID, Email: m.Email, Role: m.Role, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
}

// OrganizationSnapshot is an organization as GET /v1/mgmt/organizations/me
// reads it: there is no organization list, and that read holds nothing
// secret.
type OrganizationSnapshot struct {
	ID            string    `json:"id"`
	Name          string    `json:"name"`
	Slug          string    `json:"slug"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
	EmailVerified bool      `json:"email_verified"`
}

// SnapshotOrganization takes an organization's snapshot.
func SnapshotOrganization(o *Organization) OrganizationSnapshot {
	return OrganizationSnapshot{ID: o.ID, Name: o.Name, Slug: o.Slug, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt, EmailVerified: o.EmailVerified}
}

// RefSnapshot is the object of an event whose object is gone (a deletion)
// or whose kind has no management read to take the shape of (session,
// billing_transaction): its id only.
type RefSnapshot struct {
	ID string `json:"id"`
}

// SnapshotSource loads, inside the change's transaction, the records an
// event's snapshot is made of. Each returns nil, nil when the record is gone.
type SnapshotSource interface {
	LicenseItem(id string) (*LicenseItem, error)
	EndUser(id string) (*EndUser, error)
	Device(id string) (*Device, error)
	// Plan returns the plan with its Entitlements resolved.
	Plan(id string) (*Plan, error)
	Entitlement(id string) (*Entitlement, error)
	Application(id string) (*Application, error)
	Webhook(id string) (*Webhook, error)
	AppSecret(id string) (*AppSecret, error)
	APIKey(id string) (*APIKey, error)
	Member(id string) (*Member, error)
	Organization(id string) (*Organization, error)
}

// Snapshot decides what an event about target carries: the kind it goes
// under in the payload's data and the object's snapshot. An object that is
// gone (a deletion) or of a kind without a management read is its id alone;
// no target, nothing.
func Snapshot(target Target, src SnapshotSource, now time.Time) (string, any, error) {
	if target.Type == "" {
		return "", nil, nil
	}
	if target.ID == "" {
		return target.Type, nil, nil
	}
	obj, err := snapshotOf(target, src, now)
	if err != nil {
		return "", nil, err
	}
	if obj == nil {
		obj = RefSnapshot{ID: target.ID}
	}
	return target.Type, obj, nil
}

// EventExtra is what an event's data carries beside its object, from the
// audit entry's metadata: license.checked_out names the device that took
// the machine file (its snapshot) and the file's expiry (docs/design.md §13);
// the changes after the sale carry their before/after pairs (§16), a
// re-bound device its previous fingerprint and the license (§17). Other
// events carry nothing more.
func EventExtra(event string, metadata map[string]any, src SnapshotSource) (map[string]any, error) {
	if pairs, ok := changePairs[event]; ok {
		extra := map[string]any{}
		for _, k := range pairs {
			if v, ok := metadata[k]; ok {
				extra[k] = v
			}
		}
		return extra, nil
	}
	if event != EventLicenseCheckedOut {
		return nil, nil
	}
	id, _ := metadata["device_id"].(string)
	_, device, err := Snapshot(Target{Type: "device", ID: id}, src, time.Time{})
	if err != nil {
		return nil, err
	}
	return map[string]any{"device": device, "expires_at": metadata["expires_at"]}, nil
}

// changePairs are the keys of its metadata each change carries in its
// payload beside its object (the before/after pairs of the changes after
// the sale), those that are present.
var changePairs = map[string][]string{
	EventLicenseRenewed:     {"previous_expires_at", "expires_at", "previous_maintenance_expires_at", "maintenance_expires_at"},
	EventLicenseUpdated:     {"previous_expires_at", "expires_at", "previous_maintenance_expires_at", "maintenance_expires_at"},
	EventLicensePlanChanged: {"previous_plan", "plan"},
	EventLicenseTransferred: {"previous_user", "user"},
	EventDeviceRebound:      {"previous_fingerprint", "license_id", "previous_device_id"},
}

// snapshotOf is the snapshot of target's record, nil when it is gone or
// its kind has none.
func snapshotOf(target Target, src SnapshotSource, now time.Time) (any, error) {
	id := target.ID
	switch target.Type {
	case "license":
		return snap(src.LicenseItem(id))(func(l *LicenseItem) any { return SnapshotLicense(l, now) })
	case "user":
		return snap(src.EndUser(id))(func(u *EndUser) any { return SnapshotUser(u) })
	case "device":
		return snap(src.Device(id))(func(d *Device) any { return SnapshotDevice(d) })
	case "plan":
		return snap(src.Plan(id))(func(p *Plan) any { return SnapshotPlan(p) })
	case "entitlement":
		return snap(src.Entitlement(id))(func(e *Entitlement) any { return SnapshotEntitlement(e) })
	case "application":
		return snap(src.Application(id))(func(a *Application) any { return SnapshotApplication(a) })
	case "webhook":
		return snap(src.Webhook(id))(func(w *Webhook) any { return SnapshotWebhook(w) })
	case "secret":
		return snap(src.AppSecret(id))(func(x *AppSecret) any { return SnapshotSecret(x) })
	case "api_key":
		return snap(src.APIKey(id))(func(k *APIKey) any { return SnapshotAPIKey(k) })
	case "member":
		return snap(src.Member(id))(func(m *Member) any { return SnapshotMember(m) })
	case "organization":
		return snap(src.Organization(id))(func(o *Organization) any { return SnapshotOrganization(o) })
	}
	return nil, nil
}

// snap turns a load's result into its snapshot by render, nil when gone.
func snap[T any](v *T, err error) func(render func(*T) any) (any, error) {
	return func(render func(*T) any) (any, error) {
		if err != nil || v == nil {
			return nil, err
		}
		return render(v), nil
	}
}
