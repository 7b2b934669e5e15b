package tui

import (
	"context"
	"fmt"
	"time"

	"licensectl/store"
)

// fakeData answers with fixed records (fixed ids and keys, so goldens do
// not depend on UUIDv7 randomness); its hooks inject errors and blocking.
type fakeData struct {
	Data     // nil: a call the fake does not answer panics the test
	org      *store.Organization
	app      *store.Application
	plans    []*store.Plan
	licenses []*store.LicenseItem
	// block, when set, makes ListLicenses wait for it to close.
	block chan struct{}
	// genErr is what GenerateLicenses returns; genIn is what it was asked.
	genErr error
	genIn  store.GenerateLicensesInput
	// ents are what ListEntitlements answers.
	ents   []*store.Entitlement
	secret string
	// audit, when set, is what ListAudit answers (one license.created
	// entry otherwise).
	audit []*store.AuditEntry
	// webhooks are what ListWebhooks answers.
	webhooks []*store.Webhook
}

func fixedID(n int) string { return fmt.Sprintf("0190a2b3-c4d5-7e6f-8a9b-%012d", n) }

func newFake() *fakeData {
	created := fixedNow.Add(-72 * time.Hour)
	f := &fakeData{
		org: &store.Organization{ID: fixedID(1), Name: "Acme", Slug: "acme", CreatedAt: created},
		app: &store.Application{ID: fixedID(2), OrgID: fixedID(1), Name: "Photo Editor", Slug: "photo-editor", Status: store.AppActive, CreatedAt: created,
			Environments: []store.Environment{{ID: fixedID(3), Name: store.EnvDevelopment, PublicKey: "app_pub_test_FAKEFAKEFAKE"}, {ID: fixedID(4), Name: store.EnvProduction, PublicKey: "app_pub_live_FAKEFAKEFAKE"}}},
		secret: "app_sec_live_NOT-A-REAL-SECRET-0123456789",
	}
	days := 30
	f.plans = []*store.Plan{{ID: fixedID(5), AppID: fixedID(2), Name: "Pro", MaxDevices: 2, DeviceResetLimit: 3, DurationDays: &days, CreatedAt: created}}
	statuses := []string{store.LicenseActive, store.LicenseInactive, store.LicenseSuspended, store.LicenseRevoked}
	for i := range 40 {
		exp := fixedNow.Add(time.Duration(i+1) * 24 * time.Hour)
		l := &store.LicenseItem{License: store.License{ID: fixedID(100 + i), Key: fmt.Sprintf("7KQ2M-9XW4T-HB3ZP-0D6RN-C5V%02d", i), PlanID: fixedID(5),
			Status: statuses[i%len(statuses)], ExpiresAt: &exp, CreatedAt: created.Add(time.Duration(-i) * time.Hour)}, PlanName: "Pro"}
		if i%3 == 0 {
			l.UserEmail = fmt.Sprintf("user%d@example.com", i)
			l.DevicesCount = 1
		}
		f.licenses = append(f.licenses, l)
	}
	return f
}

func (f *fakeData) FindOrganization(ctx context.Context, id string) (*store.Organization, error) {
	return f.org, nil
}

func (f *fakeData) ListMembers(ctx context.Context, orgID string) ([]*store.Member, error) {
	return []*store.Member{{ID: fixedID(6), OrgID: f.org.ID, Email: "owner@example.com", Role: store.RoleOwner, CreatedAt: f.org.CreatedAt}}, nil
}

func (f *fakeData) ListOrganizations(ctx context.Context) ([]*store.Organization, error) {
	return []*store.Organization{f.org}, nil
}

func (f *fakeData) ListApplications(ctx context.Context, orgID string) ([]*store.Application, error) {
	return []*store.Application{f.app}, nil
}

func (f *fakeData) FindApplication(ctx context.Context, ref store.AppRef) (*store.Application, error) {
	return f.app, nil
}

func (f *fakeData) ListPlans(ctx context.Context, ref store.AppRef) ([]*store.Plan, error) {
	return f.plans, nil
}

func (f *fakeData) ListEntitlements(ctx context.Context, ref store.AppRef) ([]*store.Entitlement, error) {
	return f.ents, nil
}

func (f *fakeData) ListWebhooks(ctx context.Context, ref store.AppRef) ([]*store.Webhook, error) {
	return f.webhooks, nil
}

func (f *fakeData) ListAppSecrets(ctx context.Context, ref store.AppRef) ([]*store.AppSecret, error) {
	return nil, nil
}

func (f *fakeData) CreateAppSecret(ctx context.Context, ref store.AppRef, in store.CreateSecretInput) (*store.AppSecret, string, error) {
	return &store.AppSecret{ID: fixedID(7), Label: in.Label}, f.secret, nil
}

func (f *fakeData) ListLicenses(ctx context.Context, s store.Scope, lf store.LicenseFilter) (*store.Page[*store.LicenseItem], error) {
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	var match []*store.LicenseItem
	for _, l := range f.licenses {
		if lf.Status == "" || l.Status == lf.Status {
			match = append(match, l)
		}
	}
	_ = lf.Normalize()
	p := &store.Page[*store.LicenseItem]{Total: len(match), Page: lf.Page, PerPage: lf.PerPage}
	if off := lf.Offset(); off < len(match) {
		p.Data = match[off:min(len(match), off+lf.PerPage)]
	}
	return p, nil
}

func (f *fakeData) GenerateLicenses(ctx context.Context, s store.Scope, in store.GenerateLicensesInput) ([]*store.LicenseItem, error) {
	f.genIn = in
	if f.genErr != nil {
		return nil, f.genErr
	}
	return f.licenses[:in.Quantity], nil
}

func (f *fakeData) ListEndUsers(ctx context.Context, s store.Scope, sf store.StatusFilter) (*store.Page[*store.EndUser], error) {
	if sf.Email != "" {
		u := &store.EndUser{ID: fixedID(800), Email: sf.Email, Status: store.UserActive, CreatedAt: fixedNow.Add(-48 * time.Hour)}
		return &store.Page[*store.EndUser]{Data: []*store.EndUser{u}, Total: 1}, nil
	}
	return &store.Page[*store.EndUser]{Total: 7}, nil
}

func (f *fakeData) ListDevices(ctx context.Context, s store.Scope, sf store.StatusFilter) (*store.Page[*store.Device], error) {
	return &store.Page[*store.Device]{Total: 3}, nil
}

func (f *fakeData) ListAudit(ctx context.Context, s store.Scope, af store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
	if f.audit != nil {
		data := f.audit
		if af.PerPage > 0 {
			data = data[:min(len(data), af.PerPage)] // page 1, as Activity asks
		}
		return &store.Page[*store.AuditEntry]{Data: data, Total: len(f.audit)}, nil
	}
	e := &store.AuditEntry{ID: fixedID(50), Event: "license.created", Actor: store.Actor{Type: "api_key", ID: fixedID(60)},
		Target: store.Target{Type: "license", ID: fixedID(100)}, CreatedAt: fixedNow.Add(-5 * time.Minute)}
	return &store.Page[*store.AuditEntry]{Data: []*store.AuditEntry{e}, Total: 1}, nil
}

func (f *fakeData) FindLicense(ctx context.Context, s store.Scope, id string) (*store.LicenseDetail, error) {
	for n, l := range f.licenses {
		if l.ID == id {
			d := &store.LicenseDetail{LicenseItem: *l, Entitlements: []store.EntitlementRef{{Key: "export.pdf"}}}
			for i := range l.DevicesCount {
				d.Devices = append(d.Devices, store.LicenseDevice{ID: fixedID(900 + n + i), Fingerprint: "fp-laptop-1", Status: store.DeviceActive, BoundAt: fixedNow.Add(-time.Hour)})
			}
			return d, nil
		}
	}
	return nil, store.NotFound("license")
}

// CountLicenseSessions: every license with a device has one live session.
func (f *fakeData) CountLicenseSessions(ctx context.Context, s store.Scope, id string) (int, error) {
	for _, l := range f.licenses {
		if l.ID == id {
			return l.DevicesCount, nil
		}
	}
	return 0, store.Errorf(store.ECodeNotFound, "license not found")
}

func (f *fakeData) SetLicenseStatus(ctx context.Context, s store.Scope, id, status string) (*store.License, error) {
	for _, l := range f.licenses {
		if l.ID == id {
			l.Status = status
			return &l.License, nil
		}
	}
	return nil, store.Errorf(store.ECodeNotFound, "license not found")
}

func (f *fakeData) FindPlan(ctx context.Context, ref store.AppRef, id string) (*store.Plan, error) {
	for _, p := range f.plans {
		if p.ID == id {
			return p, nil
		}
	}
	return nil, store.Errorf(store.ECodeNotFound, "plan not found")
}
