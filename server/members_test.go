package server_test

import (
	"net/http"
	"strings"
	"testing"

	"licensectl/server/servertest"
)

func TestOrganization(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	owner := s.OwnerToken(t, org)

	t.Run("OK", func(t *testing.T) {
		for _, cred := range []string{owner, org.APIKey, s.Member(t, org, "viewer"), s.Member(t, org, "developer")} {
			m := s.As(t, cred, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK).Map(t)
			servertest.WantKeys(t, m, "id", "name", "slug", "created_at", "updated_at", "email_verified")
			if m["id"] != org.ID || m["email_verified"] != true {
				t.Fatalf("organization = %v", m)
			}
			servertest.WantTime(t, "created_at", m["created_at"])
			servertest.WantTime(t, "updated_at", m["updated_at"])
		}

		before := s.As(t, owner, "GET", "/v1/mgmt/organizations/me", nil).Map(t)
		s.Clock().Advance(1e9)
		u := s.As(t, owner, "PATCH", "/v1/mgmt/organizations/me", map[string]any{"name": "  Renamed Inc  "}).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, u, "id", "name", "slug", "updated_at")
		if u["name"] != "Renamed Inc" || u["slug"] != before["slug"] || u["updated_at"] == before["updated_at"] {
			t.Fatalf("updated = %v, before %v", u, before)
		}
		servertest.WantTime(t, "updated_at", u["updated_at"])
		after := s.As(t, org.APIKey, "GET", "/v1/mgmt/organizations/me", nil).Map(t)
		if after["name"] != "Renamed Inc" {
			t.Fatalf("after = %v", after)
		}
		// An empty PATCH changes nothing.
		s.As(t, owner, "PATCH", "/v1/mgmt/organizations/me", map[string]any{}).Want(t, http.StatusOK)
	})

	t.Run("ErrValidationFailed", func(t *testing.T) {
		wantFieldError(t, s.As(t, owner, "PATCH", "/v1/mgmt/organizations/me", map[string]any{"name": " "}), "name")
		wantFieldError(t, s.As(t, owner, "PATCH", "/v1/mgmt/organizations/me", map[string]any{"name": strings.Repeat("n", 101)}), "name")
		wantFieldError(t, s.As(t, owner, "PATCH", "/v1/mgmt/organizations/me", map[string]any{"name": 7}), "name")
	})

	t.Run("ErrInvalidJSON", func(t *testing.T) {
		s.As(t, owner, "PATCH", "/v1/mgmt/organizations/me", "[").WantError(t, http.StatusBadRequest, "invalid_json")
	})

	t.Run("ErrForbidden", func(t *testing.T) {
		app := newApp(t, s, org.APIKey, "Secret Holder")
		envs := s.As(t, org.APIKey, "GET", "/v1/mgmt/applications/"+app+"/environments", nil).List(t)
		var sec struct {
			Plaintext string `json:"plaintext"`
		}
		s.As(t, org.APIKey, "POST", "/v1/mgmt/applications/"+app+"/secrets", map[string]any{"environment_id": envs[0]["id"]}).JSON(t, &sec)
		s.As(t, sec.Plaintext, "GET", "/v1/mgmt/organizations/me", nil).WantError(t, http.StatusForbidden, "forbidden")
		s.As(t, sec.Plaintext, "GET", "/v1/mgmt/organizations/members", nil).WantError(t, http.StatusForbidden, "forbidden")
	})

	t.Run("ErrUnauthenticated", func(t *testing.T) {
		s.Do(t, "GET", "/v1/mgmt/organizations/me", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
	})
}

func TestMembers(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	owner := s.OwnerToken(t, org)
	add := func(t *testing.T, cred, role string) (string, string) {
		t.Helper()
		email := newAddress("added")
		r := s.As(t, cred, "POST", "/v1/mgmt/organizations/members", map[string]any{
			"email": email, "password": servertest.Password, "role": role, "first_name": "Grace", "last_name": "Hopper",
		}).Want(t, http.StatusCreated)
		m := r.Map(t)
		servertest.WantKeys(t, m, "success", "message", "member_id")
		if m["success"] != true || m["message"] == "" || m["member_id"] == "" {
			t.Fatalf("added = %v", m)
		}
		return m["member_id"].(string), email
	}

	t.Run("OK", func(t *testing.T) {
		id, email := add(t, owner, "developer")
		// The added member is verified and may sign in and write at once.
		l := s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": email, "password": servertest.Password}).Want(t, http.StatusOK).Map(t)
		if l["email_verified"] != true {
			t.Fatalf("login = %v", l)
		}
		newApp(t, s, l["access_token"].(string), "Dev App")

		list := s.As(t, owner, "GET", "/v1/mgmt/organizations/members", nil).Want(t, http.StatusOK).List(t)
		if len(list) != 2 {
			t.Fatalf("members = %v", list)
		}
		for _, m := range list {
			servertest.WantKeys(t, m, "id", "email", "role", "created_at", "updated_at")
			servertest.WantTime(t, "created_at", m["created_at"])
		}
		// Oldest first: the owner, then the new member.
		if list[0]["email"] != org.OwnerEmail || list[0]["role"] != "owner" || list[1]["id"] != id || list[1]["email"] != email || list[1]["role"] != "developer" {
			t.Fatalf("members = %v", list)
		}

		r := s.As(t, owner, "DELETE", "/v1/mgmt/organizations/members/"+id, nil).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, r, "success")
		// The removed member's session ends with it, and it cannot sign in.
		s.As(t, l["access_token"].(string), "GET", "/v1/mgmt/applications", nil).WantError(t, http.StatusUnauthorized, "unauthenticated")
		s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": email, "password": servertest.Password}).
			WantError(t, http.StatusUnauthorized, "invalid_credentials")
		if n := len(s.As(t, owner, "GET", "/v1/mgmt/organizations/members", nil).List(t)); n != 1 {
			t.Fatalf("%d members after removal, want 1", n)
		}
		// The address is free again.
		s.As(t, owner, "POST", "/v1/mgmt/organizations/members", map[string]any{"email": email, "password": servertest.Password, "role": "viewer"}).
			Want(t, http.StatusCreated)
	})

	t.Run("OKOwnerManagesOwners", func(t *testing.T) {
		id, _ := add(t, owner, "owner")
		s.As(t, owner, "DELETE", "/v1/mgmt/organizations/members/"+id, nil).Want(t, http.StatusOK)
		// The operator acts as an owner.
		op := s.OperatorToken()
		id2, _ := add(t, owner, "admin")
		s.As(t, op, "DELETE", "/v1/mgmt/organizations/members/"+id2, nil, "x-organization-id", org.ID).Want(t, http.StatusOK)
	})

	t.Run("ErrEmailTaken", func(t *testing.T) {
		_, email := add(t, owner, "viewer")
		for _, e := range []string{email, strings.ToUpper(email), org.OwnerEmail} {
			s.As(t, owner, "POST", "/v1/mgmt/organizations/members", map[string]any{"email": e, "password": servertest.Password, "role": "viewer"}).
				WantError(t, http.StatusConflict, "email_taken")
		}
		// Taken across organizations too: an address is one account.
		other := s.NewOrg(t)
		s.As(t, other.APIKey, "POST", "/v1/mgmt/organizations/members", map[string]any{"email": email, "password": servertest.Password, "role": "viewer"}).
			WantError(t, http.StatusConflict, "email_taken")
	})

	t.Run("ErrValidationFailed", func(t *testing.T) {
		for _, c := range []struct {
			field string
			body  map[string]any
		}{
			{"email", map[string]any{"password": servertest.Password, "role": "viewer"}},
			{"email", map[string]any{"email": "nope", "password": servertest.Password, "role": "viewer"}},
			{"password", map[string]any{"email": newAddress("weak"), "password": "password", "role": "viewer"}},
			{"password", map[string]any{"email": newAddress("weak"), "role": "viewer"}},
			{"role", map[string]any{"email": newAddress("role"), "password": servertest.Password, "role": "superuser"}},
			{"role", map[string]any{"email": newAddress("role"), "password": servertest.Password}},
			{"first_name", map[string]any{"email": newAddress("long"), "password": servertest.Password, "role": "viewer", "first_name": strings.Repeat("f", 101)}},
		} {
			wantFieldError(t, s.As(t, owner, "POST", "/v1/mgmt/organizations/members", c.body), c.field)
		}
	})

	t.Run("ErrForbidden", func(t *testing.T) {
		o := s.NewOrg(t)
		ownerTok := s.OwnerToken(t, o)
		admin := s.NewMember(t, o, "admin")
		// Only an owner adds or removes an owner; API keys act as admins.
		for _, cred := range []string{admin.Token, o.APIKey} {
			s.As(t, cred, "POST", "/v1/mgmt/organizations/members", map[string]any{"email": newAddress("o"), "password": servertest.Password, "role": "owner"}).
				WantError(t, http.StatusForbidden, "forbidden")
		}
		list := s.As(t, ownerTok, "GET", "/v1/mgmt/organizations/members", nil).List(t)
		for _, cred := range []string{admin.Token, o.APIKey} {
			s.As(t, cred, "DELETE", "/v1/mgmt/organizations/members/"+list[0]["id"].(string), nil).WantError(t, http.StatusForbidden, "forbidden")
		}
		// Admins manage the other roles.
		id, _ := add(t, admin.Token, "admin")
		s.As(t, o.APIKey, "DELETE", "/v1/mgmt/organizations/members/"+id, nil).Want(t, http.StatusOK)
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		other := s.NewOrg(t)
		theirs := s.NewMember(t, other, "viewer")
		s.As(t, org.APIKey, "DELETE", "/v1/mgmt/organizations/members/"+theirs.ID, nil).WantError(t, http.StatusNotFound, "not_found")
		s.As(t, org.APIKey, "DELETE", "/v1/mgmt/organizations/members/not-a-uuid", nil).WantError(t, http.StatusNotFound, "not_found")
		s.As(t, org.APIKey, "DELETE", "/v1/mgmt/organizations/members/0190c0de-0000-7000-8000-000000000000", nil).WantError(t, http.StatusNotFound, "not_found")
		// Theirs is untouched.
		s.As(t, theirs.Token, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK)
	})

	// Last: it removes the original owner, ending the owner token.
	t.Run("ErrLastOwner", func(t *testing.T) {
		list := s.As(t, owner, "GET", "/v1/mgmt/organizations/members", nil).List(t)
		var ownerID string
		for _, m := range list {
			if m["role"] == "owner" {
				ownerID = m["id"].(string)
			}
		}
		s.As(t, owner, "DELETE", "/v1/mgmt/organizations/members/"+ownerID, nil).WantError(t, http.StatusConflict, "last_owner")
		s.As(t, owner, "GET", "/v1/mgmt/organizations/me", nil).Want(t, http.StatusOK)
		// With a second owner, the first may go.
		second := s.NewMember(t, org, "owner")
		s.As(t, second.Token, "DELETE", "/v1/mgmt/organizations/members/"+ownerID, nil).Want(t, http.StatusOK)
		s.As(t, second.Token, "DELETE", "/v1/mgmt/organizations/members/"+second.ID, nil).WantError(t, http.StatusConflict, "last_owner")
	})
}

// TestRoleMatrix checks what each member role may do, across the endpoints
// of organizations, members, applications, secrets and API keys.
func TestRoleMatrix(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	app := newApp(t, s, org.APIKey, "Matrix App")
	envs := s.As(t, org.APIKey, "GET", "/v1/mgmt/applications/"+app+"/environments", nil).List(t)
	envID := envs[0]["id"].(string)
	var plan struct {
		PlanID string `json:"plan_id"`
	}
	s.As(t, org.APIKey, "POST", "/v1/mgmt/applications/"+app+"/plans", map[string]any{"name": "Matrix Plan"}).Want(t, http.StatusCreated).JSON(t, &plan)
	var gen struct {
		Licenses []struct {
			ID string `json:"id"`
		} `json:"licenses"`
	}
	s.As(t, org.APIKey, "POST", "/v1/mgmt/applications/"+app+"/licenses", map[string]any{"plan_id": plan.PlanID, "quantity": 1}).Want(t, http.StatusCreated).JSON(t, &gen)
	lic := gen.Licenses[0].ID

	type action struct {
		name string
		do   func(t *testing.T, tok string) *servertest.Resp
		ok   int
	}
	actions := []action{
		{"ReadApp", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "GET", "/v1/mgmt/applications/"+app, nil)
		}, http.StatusOK},
		{"ListApps", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "GET", "/v1/mgmt/applications", nil)
		}, http.StatusOK},
		{"ReadOrg", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "GET", "/v1/mgmt/organizations/me", nil)
		}, http.StatusOK},
		{"CreateApp", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "POST", "/v1/mgmt/applications", map[string]any{"name": "App " + newAddress("x")})
		}, http.StatusCreated},
		{"CreateSecret", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "POST", "/v1/mgmt/applications/"+app+"/secrets", map[string]any{"environment_id": envID})
		}, http.StatusCreated},
		{"ListAPIKeys", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "GET", "/v1/mgmt/api-keys", nil)
		}, http.StatusOK},
		{"CreateAPIKey", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "POST", "/v1/mgmt/api-keys", map[string]any{"label": "matrix"})
		}, http.StatusCreated},
		{"ListMembers", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "GET", "/v1/mgmt/organizations/members", nil)
		}, http.StatusOK},
		{"AddMember", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "POST", "/v1/mgmt/organizations/members", map[string]any{"email": newAddress("matrix"), "password": servertest.Password, "role": "viewer"})
		}, http.StatusCreated},
		{"RemoveMember", func(t *testing.T, tok string) *servertest.Resp {
			victim := s.NewMember(t, org, "viewer")
			return s.As(t, tok, "DELETE", "/v1/mgmt/organizations/members/"+victim.ID, nil)
		}, http.StatusOK},
		{"PatchOrg", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "PATCH", "/v1/mgmt/organizations/me", map[string]any{"name": "Matrix Org"})
		}, http.StatusOK},
		{"ListPlans", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "GET", "/v1/mgmt/applications/"+app+"/plans", nil)
		}, http.StatusOK},
		{"CreateEntitlement", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "POST", "/v1/mgmt/applications/"+app+"/entitlements", map[string]any{"key": "ent." + strings.Split(newAddress("e"), "@")[0], "name": "E"})
		}, http.StatusCreated},
		{"ListLicenses", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "GET", "/v1/mgmt/applications/"+app+"/licenses", nil)
		}, http.StatusOK},
		{"GenerateLicenses", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "POST", "/v1/mgmt/applications/"+app+"/licenses", map[string]any{"plan_id": plan.PlanID})
		}, http.StatusCreated},
		{"SuspendLicense", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "PATCH", "/v1/mgmt/applications/"+app+"/licenses/"+lic, map[string]any{"status": "suspended"})
		}, http.StatusOK},
		{"ListUsers", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "GET", "/v1/mgmt/applications/"+app+"/users", nil)
		}, http.StatusOK},
		{"ListAudit", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "GET", "/v1/mgmt/applications/"+app+"/audit-logs", nil)
		}, http.StatusOK},
		// A developer has "no members, API keys or billing" (docs/design.md §4).
		{"ReadBillingPlans", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "GET", "/v1/mgmt/billing/plans", nil)
		}, http.StatusOK},
		{"ReadSubscription", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "GET", "/v1/mgmt/billing/subscription", nil)
		}, http.StatusOK},
		{"ReadUsage", func(t *testing.T, tok string) *servertest.Resp {
			return s.As(t, tok, "GET", "/v1/mgmt/billing/usage", nil)
		}, http.StatusOK},
	}
	billing := []string{"ReadBillingPlans", "ReadSubscription", "ReadUsage"}
	// allowed lists the actions each role may take; the rest are 403.
	allowed := map[string][]string{
		"owner": append([]string{"ReadApp", "ListApps", "ReadOrg", "CreateApp", "CreateSecret", "ListAPIKeys", "CreateAPIKey", "ListMembers", "AddMember", "RemoveMember", "PatchOrg",
			"ListPlans", "CreateEntitlement", "ListLicenses", "GenerateLicenses", "SuspendLicense", "ListUsers", "ListAudit"}, billing...),
		"admin": append([]string{"ReadApp", "ListApps", "ReadOrg", "CreateApp", "CreateSecret", "ListAPIKeys", "CreateAPIKey", "ListMembers", "AddMember", "RemoveMember", "PatchOrg",
			"ListPlans", "CreateEntitlement", "ListLicenses", "GenerateLicenses", "SuspendLicense", "ListUsers", "ListAudit"}, billing...),
		"developer": {"ReadApp", "ListApps", "ReadOrg", "CreateApp", "CreateSecret", "ListPlans", "CreateEntitlement", "ListLicenses", "GenerateLicenses", "SuspendLicense", "ListUsers", "ListAudit"},
		"viewer":    append([]string{"ReadApp", "ListApps", "ReadOrg", "ListPlans", "ListLicenses", "ListUsers", "ListAudit"}, billing...),
	}
	for _, role := range []string{"owner", "admin", "developer", "viewer"} {
		tok := s.Member(t, org, role)
		may := map[string]bool{}
		for _, a := range allowed[role] {
			may[a] = true
		}
		for _, a := range actions {
			if may[a.name] {
				t.Run(role+"/"+a.name+"/OK", func(t *testing.T) { a.do(t, tok).Want(t, a.ok) })
			} else {
				t.Run(role+"/"+a.name+"/ErrForbidden", func(t *testing.T) { a.do(t, tok).WantError(t, http.StatusForbidden, "forbidden") })
			}
		}
	}
}
