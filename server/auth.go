package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"licensectl/store"
)

// principal is who a management request acts as.
type principal struct {
	Kind     string // store.ActorMember, ActorAPIKey, ActorAppSecret, ActorOperator
	ID       string
	OrgID    string
	Role     string // member role; api keys act as admin, the operator as owner
	Verified bool   // members only: e-mail verified
	// App secrets are bound to one application environment.
	AppID string
	Env   string
	// SessionID is the dashboard session of a member's token.
	SessionID string
}

type principalKey struct{}

func principalFrom(ctx context.Context) *principal {
	p, _ := ctx.Value(principalKey{}).(*principal)
	return p
}

// credential extracts the presented credential: a Bearer value, or x-api-key.
func credential(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		if v, ok := strings.CutPrefix(h, "Bearer "); ok {
			return strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(h, "bearer "); ok {
			return strings.TrimSpace(v)
		}
		return ""
	}
	return strings.TrimSpace(r.Header.Get("x-api-key"))
}

// authenticate resolves the management credential of r. Unknown or revoked
// credentials are unauthenticated.
func (s *Server) authenticate(r *http.Request) (*principal, error) {
	tok := credential(r)
	ctx := r.Context()
	switch {
	case tok == "":
		return nil, store.Errorf(store.ECodeUnauthenticated, "authentication required")
	case strings.HasPrefix(tok, store.PrefixAPIKey):
		k, err := s.db.AuthenticateAPIKey(ctx, tok)
		if err != nil {
			return nil, err
		}
		return &principal{Kind: store.ActorAPIKey, ID: k.ID, OrgID: k.OrgID, Role: store.RoleAdmin, Verified: true}, nil
	case strings.HasPrefix(tok, store.PrefixSecretLive), strings.HasPrefix(tok, store.PrefixSecretTest):
		sec, err := s.db.AuthenticateAppSecret(ctx, tok)
		if err != nil {
			return nil, err
		}
		return &principal{Kind: store.ActorAppSecret, ID: sec.ID, OrgID: sec.OrgID, Role: store.RoleDeveloper, Verified: true, AppID: sec.AppID, Env: sec.Env}, nil
	}
	op, err := s.isOperator(ctx, tok)
	if err != nil {
		return nil, err
	}
	if !op {
		return s.authenticateDashboard(ctx, tok)
	}
	p := &principal{Kind: store.ActorOperator, ID: "operator", Role: store.RoleOwner, Verified: true}
	if ref := r.Header.Get("x-organization-id"); ref != "" {
		o, err := s.organizationRef(ctx, "x-organization-id", ref)
		if err != nil {
			return nil, err
		}
		p.OrgID = o.ID
	}
	return p, nil
}

// organizationRef resolves an organization named by its id or its slug, as
// the CLI's --org names it, so that a request may carry either. A UUID that
// is no organization's id is tried as a slug too (a slug may look like
// one). Unknown → not_found naming what was tried and where (field).
func (s *Server) organizationRef(ctx context.Context, field, ref string) (*store.Organization, error) {
	if store.ValidID(ref) {
		o, err := s.db.FindOrganization(ctx, ref)
		if store.ErrorCode(err) != store.ECodeNotFound {
			return o, err
		}
	}
	o, err := s.db.FindOrganizationBySlug(ctx, ref)
	if store.ErrorCode(err) == store.ECodeNotFound {
		return nil, store.Errorf(store.ECodeNotFound, "organization %q not found: %s takes an organization's id or slug (licensectl org list)", ref, field)
	}
	return o, err
}

// perm is what a management route requires of its caller.
type perm int

const (
	// permRead: any authenticated caller of the organization.
	permRead perm = iota
	// permWrite: changes to applications and what is under them (owner,
	// admin, developer, API keys, the application's own secrets).
	permWrite
	// permAdmin: organization-wide administration, reads included: members
	// changes, API keys, the organization itself (owner, admin, API keys).
	permAdmin
	// permOrgRead: organization-wide reads that application secrets may not make.
	permOrgRead
	// permBillingRead: the organization's billing (subscription, usage):
	// neither an application secret nor a developer, who has "no members,
	// API keys or billing" (docs/design.md §4).
	permBillingRead
	// permAppWrite: changes to an application itself (its name, status,
	// deletion), which span both its environments: permWrite, but not an
	// application secret, which acts in its own environment only.
	permAppWrite
	// permMember: calls only a signed-in dashboard member may make.
	permMember
	// permAccount: a signed-in member with or without an organization (partner
	// sign-in before its profile is complete).
	permAccount
	// permUserRoles: permWrite on an organization-level route that an
	// application secret may also call for its own end-users (the handler
	// checks the user's application and environment).
	permUserRoles
	// permRegistry: permRead on a route that reads nothing of an
	// organization (the webhook event names), which the operator may also
	// call without naming one.
	permRegistry
)

// authorize checks the principal against a route's requirement.
func (s *Server) authorize(p *principal, need perm, r *http.Request) error {
	forbidden := store.Errorf(store.ECodeForbidden, "this credential may not perform this action")
	if need == permAccount {
		if p.Kind != store.ActorMember {
			return forbidden
		}
		return nil
	}
	if p.OrgID == "" {
		if p.Kind == store.ActorOperator {
			if need == permRegistry {
				return nil
			}
			return store.Invalid("x-organization-id", "operator requests to /v1/mgmt must name an organization in x-organization-id")
		}
		if p.Kind == store.ActorMember {
			// An account made by partner sign-in, before complete-profile.
			return store.Errorf(store.ECodeProfileIncomplete, "complete your profile first: POST /v1/mgmt/auth/partner/complete-profile")
		}
		return forbidden
	}
	if p.Kind == store.ActorAppSecret && need != permUserRoles {
		// An application secret reaches only its own application's routes:
		// a sibling application is forbidden, another organization's (or
		// none) not found, never telling them apart across tenants.
		id, ok := mux.Vars(r)["id"]
		if !ok || !strings.HasPrefix(r.URL.Path, "/v1/mgmt/applications/") || need == permAdmin || need == permOrgRead || need == permBillingRead || need == permAppWrite || need == permMember {
			return forbidden
		}
		if id != p.AppID {
			if _, err := s.db.FindApplication(r.Context(), store.AppRef{OrgID: p.OrgID, AppID: id}); err == nil {
				return forbidden
			}
			return store.NotFound("application")
		}
	}
	if need == permMember && p.Kind != store.ActorMember {
		return forbidden
	}
	write := r.Method != http.MethodGet && r.Method != http.MethodHead
	if write && !p.Verified && need != permMember {
		return store.Errorf(store.ECodeEmailUnverified, "verify your e-mail address before making changes")
	}
	switch need {
	case permWrite, permUserRoles, permAppWrite:
		if p.Role == store.RoleViewer {
			return forbidden
		}
	case permBillingRead:
		if !readsBilling(p) {
			return forbidden
		}
	case permAdmin:
		if p.Role != store.RoleOwner && p.Role != store.RoleAdmin {
			return forbidden
		}
	}
	return nil
}

// readsBilling reports whether p may read billing: every credential of an
// organization but an application secret and a developer.
func readsBilling(p *principal) bool {
	return p.Kind != store.ActorAppSecret && p.Role != store.RoleDeveloper
}

// mgmt wraps a management handler with authentication and authorization, and
// puts the principal and the audit actor into the request context.
func (s *Server) mgmt(need perm, fn handlerFunc) http.Handler {
	return s.wrap(func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.authenticate(r)
		if err != nil {
			return err
		}
		if err := s.authorize(p, need, r); err != nil {
			return err
		}
		if err := s.limitMgmt(w, p); err != nil {
			return err
		}
		ctx := context.WithValue(r.Context(), principalKey{}, p)
		ctx = store.WithActor(ctx, store.Actor{Type: p.Kind, ID: p.ID, IP: clientIP(r), UserAgent: r.UserAgent()})
		return fn(w, r.WithContext(ctx))
	})
}

// appRef is the application named by the route, in the caller's organization.
func appRef(r *http.Request) store.AppRef {
	return store.AppRef{OrgID: principalFrom(r.Context()).OrgID, AppID: mux.Vars(r)["id"]}
}

// scope is the application environment a management request acts in: an
// application secret's own, else x-environment (default production).
func scope(r *http.Request) (store.Scope, error) {
	p := principalFrom(r.Context())
	env, err := envOf(r)
	return store.Scope{OrgID: p.OrgID, AppID: mux.Vars(r)["id"], Env: env}, err
}

// envOf names the environment a management request acts in: an application
// secret's own, else x-environment (default production).
func envOf(r *http.Request) (string, error) {
	if p := principalFrom(r.Context()); p.Kind == store.ActorAppSecret {
		return p.Env, nil
	}
	env := r.Header.Get("x-environment")
	if env == "" {
		return store.EnvProduction, nil
	}
	if !store.ValidEnv(env) {
		return "", store.Invalid("x-environment", "x-environment must be production or development")
	}
	return env, nil
}
