package storetest

import (
	"slices"
	"testing"

	"licensectl/store"
)

// testReadScopes: every read of the catalog, the accounts and the licenses answers only
// for its own organization, application and environment. Another's record
// is not_found, never forbidden and never someone else's; an exact filter
// that finds nothing in the scope is an empty page.
func testReadScopes(t *testing.T, open Opener) {
	f := newFixture(t, open)
	theirOrg, theirApp := seedOrg(t, f.db, f.ctx)
	theirRef := store.AppRef{OrgID: theirOrg.ID, AppID: theirApp.ID}
	theirs := store.AppRef{OrgID: f.org.ID, AppID: theirApp.ID} // my organization, their application
	theirScope := store.Scope{OrgID: f.org.ID, AppID: theirApp.ID, Env: store.EnvProduction}
	if _, err := f.db.CreateEntitlement(f.ctx, theirRef, store.CreateEntitlementInput{Key: "theirs", Name: "Theirs"}); err != nil {
		t.Fatal(err)
	}
	theirPlan, err := f.db.CreatePlan(f.ctx, theirRef, store.PlanInput{Name: ptr("Theirs")})
	if err != nil {
		t.Fatal(err)
	}
	theirMember, err := f.db.AddMember(f.ctx, store.AddMemberInput{OrgID: theirOrg.ID, Email: "their-member@reads.test", Password: Password, Role: store.RoleViewer})
	if err != nil {
		t.Fatal(err)
	}
	theirUser, err := f.be.RegisterEndUser(f.ctx, store.Scope{OrgID: theirOrg.ID, AppID: theirApp.ID, Env: store.EnvProduction}, "their-user@reads.test", Password)
	if err != nil {
		t.Fatal(err)
	}
	theirLics, err := f.db.GenerateLicenses(f.ctx, store.Scope{OrgID: theirOrg.ID, AppID: theirApp.ID, Env: store.EnvProduction},
		store.GenerateLicensesInput{PlanID: theirPlan.ID, Quantity: 1})
	if err != nil {
		t.Fatal(err)
	}
	theirLic := theirLics[0]
	_, gen := f.licenses(t, store.PlanInput{Name: ptr("Mine")}, 1)
	dev := f.activate(t, gen[0].Key, "reads-device")
	mine := f.scope(store.EnvProduction)
	dev2 := f.scope(store.EnvDevelopment)
	if _, err := f.be.RegisterEndUser(f.ctx, mine, "my-user@reads.test", Password); err != nil {
		t.Fatal(err)
	}

	t.Run("ErrNotFound", func(t *testing.T) {
		for _, c := range []struct {
			what string
			call func() error
		}{
			{"ListEntitlements(their application)", func() error { _, err := f.db.ListEntitlements(f.ctx, theirs); return err }},
			{"FindPlan(their application)", func() error { _, err := f.db.FindPlan(f.ctx, theirs, theirPlan.ID); return err }},
			{"FindPlan(their plan in my application)", func() error { _, err := f.db.FindPlan(f.ctx, f.ref(), theirPlan.ID); return err }},
			{"ListMembers(unknown organization)", func() error { _, err := f.db.ListMembers(f.ctx, store.NewID()); return err }},
			{"FindMember(their member)", func() error { _, err := f.db.FindMember(f.ctx, f.org.ID, theirMember.ID); return err }},
			{"FindEndUser(their user)", func() error { _, err := f.be.FindEndUser(f.ctx, f.org.ID, theirUser.ID); return err }},
			{"ListEndUsers(their application)", func() error { _, err := f.db.ListEndUsers(f.ctx, theirScope, store.StatusFilter{}); return err }},
			{"ListDevices(their application)", func() error { _, err := f.db.ListDevices(f.ctx, theirScope, store.StatusFilter{}); return err }},
			{"CountDeviceSessions(their application)", func() error { _, err := f.db.CountDeviceSessions(f.ctx, theirScope, dev.ID); return err }},
			{"CountDeviceSessions(device of the other environment)", func() error { _, err := f.db.CountDeviceSessions(f.ctx, dev2, dev.ID); return err }},
			{"ListLicenses(their application)", func() error { _, err := f.db.ListLicenses(f.ctx, theirScope, store.LicenseFilter{}); return err }},
			{"FindLicense(their application)", func() error { _, err := f.db.FindLicense(f.ctx, theirScope, theirLic.ID); return err }},
			{"FindLicense(their license in my scope)", func() error { _, err := f.db.FindLicense(f.ctx, mine, theirLic.ID); return err }},
			{"FindLicense(license of the other environment)", func() error { _, err := f.db.FindLicense(f.ctx, dev2, gen[0].ID); return err }},
			{"ListLeases(their license in my scope)", func() error { _, err := f.db.ListLeases(f.ctx, mine, theirLic.ID); return err }},
			{"ListLeases(license of the other environment)", func() error { _, err := f.db.ListLeases(f.ctx, dev2, gen[0].ID); return err }},
			{"CountLicenseSessions(their license in my scope)", func() error { _, err := f.db.CountLicenseSessions(f.ctx, mine, theirLic.ID); return err }},
		} {
			wantCode(t, c.what, c.call(), store.ECodeNotFound)
		}
	})

	t.Run("OKEmptyLookups", func(t *testing.T) {
		for _, c := range []struct {
			what string
			list func() (*store.Page[*store.EndUser], *store.Page[*store.Device], error)
		}{
			{"ListEndUsers(their user's address)", func() (*store.Page[*store.EndUser], *store.Page[*store.Device], error) {
				p, err := f.db.ListEndUsers(f.ctx, mine, store.StatusFilter{Email: "their-user@reads.test"})
				return p, nil, err
			}},
			{"ListEndUsers(address, another status)", func() (*store.Page[*store.EndUser], *store.Page[*store.Device], error) {
				p, err := f.db.ListEndUsers(f.ctx, mine, store.StatusFilter{Email: "my-user@reads.test", Status: store.UserBanned})
				return p, nil, err
			}},
			{"ListDevices(fingerprint of the other environment)", func() (*store.Page[*store.EndUser], *store.Page[*store.Device], error) {
				p, err := f.db.ListDevices(f.ctx, dev2, store.StatusFilter{Fingerprint: "reads-device"})
				return nil, p, err
			}},
			{"ListDevices(fingerprint, another status)", func() (*store.Page[*store.EndUser], *store.Page[*store.Device], error) {
				p, err := f.db.ListDevices(f.ctx, mine, store.StatusFilter{Fingerprint: "reads-device", Status: store.DeviceBlocked})
				return nil, p, err
			}},
		} {
			users, devices, err := c.list()
			if err != nil {
				t.Fatalf("%s: %v", c.what, err)
			}
			if users != nil && (users.Total != 0 || len(users.Data) != 0) || devices != nil && (devices.Total != 0 || len(devices.Data) != 0) {
				t.Fatalf("%s = %+v %+v, want an empty page", c.what, users, devices)
			}
		}
	})

	t.Run("OKLicenseLookups", func(t *testing.T) {
		for _, c := range []struct {
			what string
			s    store.Scope
			f    store.LicenseFilter
			want int
		}{
			{"ListLicenses(my key)", mine, store.LicenseFilter{Key: gen[0].Key}, 1},
			{"ListLicenses(their key)", mine, store.LicenseFilter{Key: theirLic.Key}, 0},
			{"ListLicenses(key of the other environment)", dev2, store.LicenseFilter{Key: gen[0].Key}, 0},
			{"ListLicenses(my key, nobody's address)", mine, store.LicenseFilter{Key: gen[0].Key, UserEmail: "nobody@reads.test"}, 0},
			{"ListLicenses(their user's address)", mine, store.LicenseFilter{UserEmail: "their-user@reads.test"}, 0},
		} {
			p, err := f.db.ListLicenses(f.ctx, c.s, c.f)
			if err != nil || p.Total != c.want || len(p.Data) != c.want {
				t.Fatalf("%s = %+v, %v; want %d licenses", c.what, p, err, c.want)
			}
		}
	})

	t.Run("OKLookupPastItsPage", func(t *testing.T) {
		p, err := f.db.ListEndUsers(f.ctx, mine, store.StatusFilter{Email: " MY-USER@reads.test ", PageRequest: store.PageRequest{Page: 2}})
		if err != nil || p.Total != 1 || len(p.Data) != 0 || p.NextCursor != "" {
			t.Fatalf("ListEndUsers(address, page 2) = %+v, %v; want total 1 and no data", p, err)
		}
		d, err := f.db.ListDevices(f.ctx, mine, store.StatusFilter{Fingerprint: " reads-device "})
		if err != nil || d.Total != 1 || len(d.Data) != 1 || d.Data[0].ID != dev.ID {
			t.Fatalf("ListDevices(fingerprint with spaces) = %+v, %v; want the device", d, err)
		}
	})

	t.Run("OKSecretsAndKeysNewestFirst", func(t *testing.T) {
		env := f.app.Env(store.EnvProduction)
		var secrets []string
		for _, url := range []string{"https://reads.test/a", "https://reads.test/b"} {
			sec, _, err := f.db.CreateAppSecret(f.ctx, f.ref(), store.CreateSecretInput{EnvironmentID: env.ID, Label: url})
			if err != nil {
				t.Fatal(err)
			}
			secrets = append([]string{sec.ID}, secrets...)
			if _, _, err := f.db.CreateAppSecret(f.ctx, theirRef, store.CreateSecretInput{EnvironmentID: theirApp.Env(store.EnvProduction).ID, Label: "theirs"}); err != nil {
				t.Fatal(err)
			}
			if _, _, err := f.db.CreateAPIKey(f.ctx, theirOrg.ID, "theirs"); err != nil {
				t.Fatal(err)
			}
		}
		gotSecrets, err := f.db.ListAppSecrets(f.ctx, f.ref())
		if err != nil || !slices.Equal(ids(gotSecrets, func(s *store.AppSecret) string { return s.ID }), secrets) {
			t.Fatalf("ListAppSecrets = %+v, %v; want %v, newest first", gotSecrets, err, secrets)
		}
		keys, err := f.db.ListAPIKeys(f.ctx, f.org.ID)
		if err != nil || len(keys) != 0 {
			t.Fatalf("ListAPIKeys(my organization) = %+v, %v; want none of theirs", keys, err)
		}
		if keys, err = f.db.ListAPIKeys(f.ctx, theirOrg.ID); err != nil || len(keys) != 2 || keys[0].ID < keys[1].ID {
			t.Fatalf("ListAPIKeys(their organization) = %+v, %v; want their two, newest first", keys, err)
		}
	})
}

// ids is the ids of list, in its order.
func ids[T any](list []T, id func(T) string) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = id(v)
	}
	return out
}
