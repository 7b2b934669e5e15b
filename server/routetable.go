package server

import (
	"net/http"

	"licensectl/server/antibot"
	"licensectl/server/api"
	"licensectl/server/rttoken"
	"licensectl/store"
)

// route is one operation of the HTTP API. The router registers every route
// of routeTable (routes.go) and the OpenAPI document is generated from the
// same table (openapi_gen_test.go), so the two cannot drift: a route is
// served exactly as the document describes it, credential included.
type route struct {
	method, path string // path as routed, e.g. /v1/mgmt/applications/{id}
	summary      string
	access       access
	perm         perm // access managed: what the credential needs

	// The handler: fn for the JSON API, rt for the runtime, page for the
	// account pages, raw for what serves itself (static files, metrics).
	fn        func(*Server) handlerFunc
	rt        func(*Server) runtimeFunc
	endpoint  string // runtime: the endpoint's name in limits and metrics
	authLimit bool   // runtime: the stricter limit of authentication calls applies
	// reads: a runtime POST that changes nothing (init, validate), so it
	// does not pass the write admission (docs/design.md §14).
	reads bool
	// optionalUser: runtime, an end-user's access token may come as a bearer
	// too (an activation with one assigns the license to that user).
	optionalUser bool
	page         func(*Server) func(*http.Request) (int, string, page)
	portal       func(*Server) portalFunc // a portal page (access pageCall)
	raw          func(*Server) http.Handler

	partner bool               // served only with partner sign-in configured (else 404)
	when    func(*Server) bool // registered only when it holds; always documented
	prefix  bool               // path ends in {file}: every path under it
	// alias: the operation of the route before it at another path the
	// router also serves (/account/ beside /account), documented once:
	// OpenAPI paths carry no trailing slash.
	alias bool

	body         any      // the JSON request body, a value of its type; nil: none
	form         []string // a page's form fields (urlencoded), all required
	required     []string // the body's fields the server requires
	bodyOptional bool     // the body may be left out

	query   []param // query parameters
	headers []param // request headers besides the credential

	status      int    // the success status
	resp        any    // the success body, a value of its type (oneOf for one of several)
	contentType string // the success body's type when not JSON
	errors      []int  // error statuses besides those access, body and parameters imply
}

// access is how a route takes its caller: it picks the wrapper the router
// puts around the handler and the security the document declares.
type access int

const (
	// public: no credential (s.wrap).
	public access = iota
	// accountCall: no credential, the per-address limit of account calls (s.accountCall).
	accountCall
	// managed: a management credential that has perm (s.mgmt).
	managed
	// tierReader: a management credential that may read billing, the
	// operator without an organization (s.tierReader).
	tierReader
	// operator: the operator token (s.admin).
	operator
	// runtimeApp: the application's public key in x-api-key, or
	// x-application-id and x-environment (s.runtime).
	runtimeApp
	// runtimeUser: runtimeApp plus the end-user's access token as a bearer.
	runtimeUser
	// runtimeOpen: the runtime's wrapper, the credential optional (JWKS).
	runtimeOpen
	// pageCall: an HTML page for people, with the account calls' limit (s.pageCall).
	pageCall
	// served: a handler that serves itself (static files, metrics).
	served
)

// param is a query or header parameter.
type param struct {
	name, typ, desc string // typ: string (default), integer, boolean
	required        bool
}

// oneOf is a success body of one of several types.
type oneOf []any

// handlerOf wraps rt's handler as its access says.
func (s *Server) handlerOf(rt route) http.Handler {
	var h http.Handler
	switch rt.access {
	case public:
		h = s.wrap(rt.fn(s))
	case accountCall:
		h = s.accountCall(rt.fn(s))
	case managed:
		h = s.mgmt(rt.perm, rt.fn(s))
	case tierReader:
		h = s.wrap(s.tierReader(rt.fn(s)))
	case operator:
		h = s.admin(rt.fn(s))
	case runtimeApp, runtimeUser, runtimeOpen:
		h = s.runtime(rt.endpoint, rt.authLimit, rt.method != http.MethodGet && !rt.reads, rt.rt(s))
	case pageCall:
		if rt.portal != nil {
			h = s.portalCall(rt.portal(s))
			break
		}
		h = s.pageCall(rt.page(s))
	case served:
		h = rt.raw(s)
	}
	if rt.partner {
		h = s.partnerConfigured(h)
	}
	return h
}

// The table's helpers: each sets the access and the handler together, so
// the document's security is the one the router applies.

func call(f func(*Server, http.ResponseWriter, *http.Request) error) func(*Server) handlerFunc {
	return func(s *Server) handlerFunc {
		return func(w http.ResponseWriter, r *http.Request) error { return f(s, w, r) }
	}
}

func op(a access, method, path, summary string, fn func(*Server, http.ResponseWriter, *http.Request) error) route {
	return route{method: method, path: path, summary: summary, access: a, fn: call(fn)}
}

func mgmtOp(p perm, method, path, summary string, fn func(*Server, http.ResponseWriter, *http.Request) error) route {
	return route{method: method, path: path, summary: summary, access: managed, perm: p, fn: call(fn)}
}

func rtOp(a access, method, path, endpoint, summary string, fn func(*Server, http.ResponseWriter, *http.Request, store.RuntimeClient) error) route {
	return route{method: method, path: path, summary: summary, access: a, endpoint: endpoint,
		rt: func(s *Server) runtimeFunc {
			return func(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error { return fn(s, w, r, c) }
		}}
}

// readOnly marks a runtime POST that changes nothing.
func (rt route) readOnly() route { rt.reads = true; return rt }

// formOf names a page form's fields, which it requires.
func (rt route) formOf(fields ...string) route { rt.form = fields; return rt }

// aliased marks rt as the operation before it at another path.
func (rt route) aliased() route { rt.alias = true; return rt }

func pageOp(method, path, summary string, fn func(*Server, *http.Request) (int, string, page)) route {
	return route{method: method, path: path, summary: summary, access: pageCall, contentType: "text/html", status: http.StatusOK,
		page: func(s *Server) func(*http.Request) (int, string, page) {
			return func(r *http.Request) (int, string, page) { return fn(s, r) }
		}}
}

func portalOp(method, path, summary string, fn func(*Server, http.ResponseWriter, *http.Request, *portal) (int, string, portalPage)) route {
	return route{method: method, path: path, summary: summary, access: pageCall, contentType: "text/html", status: http.StatusOK,
		portal: func(s *Server) portalFunc {
			return func(w http.ResponseWriter, r *http.Request, p *portal) (int, string, portalPage) {
				return fn(s, w, r, p)
			}
		}}
}

// in sets the request body and the fields the server requires of it.
func (rt route) in(body any, required ...string) route {
	rt.body, rt.required = body, required
	return rt
}

// out sets the success answer.
func (rt route) out(status int, resp any) route {
	rt.status, rt.resp = status, resp
	return rt
}

// q adds query parameters.
func (rt route) q(ps ...param) route {
	rt.query = append(append([]param{}, rt.query...), ps...)
	return rt
}

// h adds header parameters.
func (rt route) h(ps ...param) route {
	rt.headers = append(append([]param{}, rt.headers...), ps...)
	return rt
}

// authCall applies the runtime's stricter limit of authentication calls.
// withOptionalUser says the call also takes an end-user's access token.
func (rt route) withOptionalUser() route {
	rt.optionalUser = true
	return rt
}

func (rt route) authCall() route {
	rt.authLimit = true
	return rt
}

// optional lets the request body be left out.
func (rt route) optional() route {
	rt.bodyOptional = true
	return rt
}

// as sets the success body's media type when it is not JSON.
func (rt route) as(contentType string) route {
	rt.contentType = contentType
	return rt
}

// viaPartner marks a route of partner sign-in: 404 unless it is configured.
func (rt route) viaPartner() route {
	rt.partner = true
	return rt
}

// err adds error statuses the route answers besides the implied ones.
func (rt route) err(statuses ...int) route {
	rt.errors = append(append([]int{}, rt.errors...), statuses...)
	return rt
}

// Parameters many routes share.
var (
	pageParams = []param{
		{name: "page", typ: "integer", desc: "the page, from 1 (default 1)"},
		{name: "per_page", typ: "integer", desc: "items per page, 1 to 100 (default 20)"},
		{name: "cursor", desc: "the next_cursor of the page before, instead of page: a deep page costs what the first does"},
	}
	envHeader   = param{name: "x-environment", desc: "production (default) or development: the environment a dashboard token or API key acts in; an application secret acts in its own"}
	statusQuery = param{name: "status", desc: "only records with this status"}
	auditParams = []param{
		{name: "event", desc: "only this event, e.g. license.created"},
		{name: "target_id", desc: "only events about this record"},
		{name: "from", desc: "only events at or after this RFC 3339 time"},
		{name: "to", desc: "only events before this RFC 3339 time"},
	}
)

// routeTable is every operation the server serves, in the router's order:
// the runtime's hot endpoints first, so that they do not pay for matching
// the management patterns (the prefixes do not overlap).
func routeTable() []route {
	done := api.Success{}
	changed := api.StatusChanged{}
	const (
		get, post, patch, del = http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete
		app                   = "/v1/mgmt/applications/{id}"
		portal                = "/portal/{app_id}/{environment}"

		ok200, created              = http.StatusOK, http.StatusCreated
		unauth, forbidden, notFound = http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound
		conflict, unavailable       = http.StatusConflict, http.StatusServiceUnavailable
		notImplemented              = http.StatusNotImplemented
	)
	return []route{
		// The runtime API (docs/runtime.md).
		rtOp(runtimeApp, post, "/v1/runtime/applications/init", "init", "Identify the application and environment", (*Server).rtInit).readOnly().
			out(ok200, api.RuntimeApplication{}),
		rtOp(runtimeApp, post, "/v1/runtime/auth/register", "register", "Register an end-user", (*Server).rtRegister).authCall().
			in(api.RuntimeRegisterRequest{}, "email", "password").out(created, api.Registered{}).err(conflict),
		rtOp(runtimeApp, post, "/v1/runtime/auth/login", "login", "Log an end-user in on a device (timestamp and nonce)", (*Server).rtLogin).authCall().
			in(api.RuntimeLoginRequest{}, "email", "password", "device_fingerprint", "timestamp", "nonce").out(ok200, api.RuntimeSession{}).err(conflict),
		rtOp(runtimeApp, post, "/v1/runtime/auth/logout", "logout", "End the session of an access token", (*Server).rtLogout).
			in(api.AccessToken{}, "access_token").out(ok200, done),
		rtOp(runtimeApp, post, "/v1/runtime/licenses/activate", "activate", "Activate a license key on a device (timestamp and nonce)", (*Server).rtActivate).authCall().withOptionalUser().
			in(api.ActivateRequest{}, "license_key", "device_fingerprint", "timestamp", "nonce").out(ok200, api.Activated{}).err(notFound, conflict),
		rtOp(runtimeApp, post, "/v1/runtime/sessions/validate", "validate", "Check an access token: valid with its entitlements, or why not", (*Server).rtValidate).readOnly().
			in(api.AccessToken{}, "access_token").out(ok200, oneOf{api.Valid{}, api.Invalid{}}),
		rtOp(runtimeApp, post, "/v1/runtime/sessions/refresh", "refresh", "Rotate the token pair", (*Server).rtRefresh).
			in(api.RefreshRequest{}, "refresh_token").out(ok200, api.RuntimeSession{}).err(conflict),
		rtOp(runtimeApp, post, "/v1/runtime/devices/reset", "reset",
			"Unbind a device from a license, named by device_fingerprint or device_id (exactly one; user's reset quota)", (*Server).rtReset).
			in(api.RuntimeDeviceResetRequest{}, "license_key").out(ok200, api.DeviceReset{}).err(notFound),
		rtOp(runtimeApp, post, "/v1/runtime/licenses/devices", "license_devices",
			"List the devices bound to a license, without fingerprints; device_fingerprint marks the caller's current (timestamp and nonce; limited per license)", (*Server).rtLicenseDevices).
			in(api.LicenseDevicesRequest{}, "license_key", "timestamp", "nonce").out(ok200, api.LicenseDevices{}).err(notFound, conflict),
		rtOp(runtimeUser, post, "/v1/runtime/licenses/checkout", "checkout",
			"Check out a machine file for offline use (activation session bearer; timestamp and nonce)", (*Server).rtCheckoutMachineFile).
			in(api.MachineFileRequest{}, "timestamp", "nonce").out(ok200, api.MachineFileIssued{}).err(conflict),
		rtOp(runtimeUser, post, "/v1/runtime/leases", "lease",
			"Check out a floating seat, or extend this device's (activation session bearer; timestamp and nonce)", (*Server).rtCheckoutLease).
			in(api.LeaseRequest{}, "timestamp", "nonce").out(created, api.LeaseGranted{}).err(conflict),
		rtOp(runtimeUser, post, "/v1/runtime/leases/{leaseId}/heartbeat", "lease_heartbeat", "Extend a seat lease by the plan's lease_seconds", (*Server).rtHeartbeatLease).
			out(ok200, api.LeaseExtended{}).err(notFound),
		rtOp(runtimeUser, del, "/v1/runtime/leases/{leaseId}", "lease_release", "Release a seat lease", (*Server).rtReleaseLease).
			out(http.StatusNoContent, nil).err(notFound),
		rtOp(runtimeUser, get, "/v1/runtime/entitlements/check", "check", "Whether the session's license grants an entitlement", (*Server).rtCheck).
			q(param{name: "key", desc: "the entitlement's key", required: true}).out(ok200, oneOf{api.Granted{}, api.Invalid{}}),
		rtOp(runtimeOpen, get, "/v1/runtime/applications/{id}/jwks.json", "jwks",
			"The public key of one environment (JWKS): the one ?environment= names, else the runtime credential's, else production", (*Server).rtJWKS).
			q(param{name: "environment", desc: "production or development"}).
			h(param{name: "x-environment", desc: "production or development, when neither ?environment= nor x-api-key names it"}).
			out(ok200, rttoken.JWKS{}).as("application/jwk-set+json").err(notFound),

		// Operations.
		op(public, get, "/healthz", "The process is up", func(_ *Server, w http.ResponseWriter, _ *http.Request) error {
			writeJSON(w, http.StatusOK, api.Health{Status: "ok"})
			return nil
		}).out(ok200, api.Health{}),
		op(public, get, "/readyz", "The store can serve", (*Server).ready).out(ok200, api.Health{}),
		op(public, get, "/v1/openapi.json", "This document", (*Server).serveOpenAPI).out(ok200, api.OpenAPIDocument{}),
		{method: get, path: "/metrics", summary: "Prometheus metrics (when metrics.enabled and no metrics.listen)", access: served,
			raw:    func(s *Server) http.Handler { return s.metrics.handler() },
			when:   func(s *Server) bool { return s.cfg.Metrics.Enabled && s.cfg.Metrics.Listen == "" },
			status: ok200, contentType: "text/plain"},

		// Accounts (dashboard members).
		op(public, get, "/v1/mgmt/auth/challenge", "A proof-of-work challenge (ALTCHA) for signup and throttled logins", (*Server).challenge).
			out(ok200, antibot.Challenge{}),
		op(accountCall, post, "/v1/mgmt/auth/signup", "Sign up: an organization and its owner, with a verification mail", (*Server).signup).
			in(api.SignupRequest{}, "email", "password", "organization_name", "first_name", "last_name", "phone", "tos_accepted_version").
			out(ok200, api.AccountMessage{}).err(forbidden),
		op(accountCall, post, "/v1/mgmt/auth/verify-email", "Verify an e-mail address with the mailed token", (*Server).verifyEmail).
			in(api.TokenRequest{}, "token").out(ok200, api.EmailVerified{}).err(unauth),
		op(accountCall, post, "/v1/mgmt/auth/resend-verification", "Mail a new verification link", (*Server).resendVerification).
			in(api.EmailRequest{}, "email").out(ok200, api.AccountMessage{}),
		op(accountCall, post, "/v1/mgmt/auth/forgot-password", "Mail a password-reset link", (*Server).forgotPassword).
			in(api.EmailRequest{}, "email").out(ok200, api.AccountMessage{}),
		op(accountCall, post, "/v1/mgmt/auth/reset-password", "Set a new password with the mailed token", (*Server).resetPassword).
			in(api.ResetPasswordRequest{}, "token", "new_password").out(ok200, api.AccountMessage{}).err(unauth),
		op(accountCall, post, "/v1/mgmt/auth/login", "Sign in with e-mail and password", (*Server).login).
			in(api.LoginRequest{}, "email", "password").out(ok200, api.LoggedIn{}).err(unauth, forbidden),
		mgmtOp(permAccount, post, "/v1/mgmt/auth/logout", "End the dashboard session", (*Server).logout).out(ok200, done),
		op(accountCall, get, "/v1/mgmt/auth/partner", "Start partner sign-in: a redirect to the provider", (*Server).partnerStart).
			viaPartner().out(http.StatusFound, api.PartnerStarted{}).err(notFound, unavailable),
		op(accountCall, get, "/v1/mgmt/auth/partner/callback", "Finish partner sign-in (the provider sends the browser here)", (*Server).partnerCallback).
			viaPartner().q(param{name: "state", desc: "the attempt, as the provider returns it", required: true},
			param{name: "code", desc: "the authorization code"},
			param{name: "error", desc: "the provider's refusal"}).
			out(ok200, api.PartnerSignedIn{}).err(notFound, unauth, forbidden, conflict, unavailable),
		mgmtOp(permAccount, post, "/v1/mgmt/auth/partner/complete-profile", "Create the organization of an account made by partner sign-in", (*Server).completeProfile).
			viaPartner().in(api.CompleteProfileRequest{}, "organization_name", "first_name", "last_name", "phone", "tos_accepted_version").
			out(ok200, done).err(conflict),

		// The organization.
		mgmtOp(permOrgRead, get, "/v1/mgmt/organizations/me", "Read the organization", (*Server).getOrganization).out(ok200, api.OrganizationDetail{}),
		mgmtOp(permAdmin, patch, "/v1/mgmt/organizations/me", "Update the organization", (*Server).updateOrganization).
			in(api.UpdateOrganizationRequest{}).out(ok200, api.OrganizationUpdated{}),
		mgmtOp(permAdmin, get, "/v1/mgmt/organizations/members", "List members", (*Server).listMembers).out(ok200, []api.MemberItem{}),
		mgmtOp(permAdmin, post, "/v1/mgmt/organizations/members", "Add a member", (*Server).addMember).
			in(api.AddMemberRequest{}, "email", "password", "role").out(created, api.MemberAdded{}).err(conflict),
		mgmtOp(permAdmin, del, "/v1/mgmt/organizations/members/{memberId}", "Remove a member", (*Server).removeMember).
			out(ok200, done).err(conflict),
		mgmtOp(permMember, get, "/v1/mgmt/onboarding/progress", "The signed-in member's onboarding progress", (*Server).getOnboarding).
			out(ok200, api.OnboardingProgress{}),
		mgmtOp(permMember, patch, "/v1/mgmt/onboarding/progress", "Record onboarding progress", (*Server).updateOnboarding).
			in(api.OnboardingUpdate{}).out(ok200, api.OnboardingProgress{}),

		// Applications.
		mgmtOp(permOrgRead, get, "/v1/mgmt/applications", "List applications", (*Server).listApplications).out(ok200, []api.ApplicationItem{}),
		mgmtOp(permWrite, post, "/v1/mgmt/applications", "Create an application", (*Server).createApplication).
			in(api.CreateApplicationRequest{}, "name").out(created, api.ApplicationCreated{}).err(conflict),
		mgmtOp(permRead, get, app, "Read an application with its environments", (*Server).getApplication).out(ok200, api.ApplicationDetail{}),
		mgmtOp(permAppWrite, patch, app, "Update an application", (*Server).updateApplication).
			in(api.UpdateApplicationRequest{}).out(ok200, api.ApplicationUpdated{}).err(conflict),
		mgmtOp(permAppWrite, del, app, "Archive (or with permanent=true delete) an application", (*Server).deleteApplication).
			q(param{name: "permanent", typ: "boolean", desc: "true: delete the application and everything under it, not archive it"},
				param{name: "not", desc: "accepted and ignored (docs/design.md §6)"}).out(ok200, done),
		mgmtOp(permRead, get, app+"/environments", "List environments", (*Server).listEnvironments).out(ok200, []api.Environment{}),

		// Credentials.
		mgmtOp(permRead, get, app+"/secrets", "List application secrets", (*Server).listSecrets).out(ok200, []api.SecretItem{}),
		mgmtOp(permWrite, post, app+"/secrets", "Create an application secret (shown once)", (*Server).createSecret).
			in(api.CreateSecretRequest{}, "environment_id").out(created, api.SecretCreated{}),
		mgmtOp(permWrite, del, app+"/secrets/{secretId}", "Revoke an application secret", (*Server).revokeSecret).out(ok200, done),
		mgmtOp(permAdmin, get, "/v1/mgmt/api-keys", "List developer API keys", (*Server).listAPIKeys).out(ok200, []api.APIKeyItem{}),
		mgmtOp(permAdmin, post, "/v1/mgmt/api-keys", "Create a developer API key (shown once; the body may be left out)", (*Server).createAPIKey).
			in(api.LabelRequest{}).optional().out(created, api.APIKeyCreated{}),
		mgmtOp(permAdmin, del, "/v1/mgmt/api-keys/{keyId}", "Revoke a developer API key", (*Server).revokeAPIKey).out(ok200, done),

		// The catalog.
		mgmtOp(permRead, get, app+"/entitlements", "List entitlements", (*Server).listEntitlements).out(ok200, []api.EntitlementItem{}),
		mgmtOp(permWrite, post, app+"/entitlements", "Create an entitlement", (*Server).createEntitlement).
			in(api.CreateEntitlementRequest{}, "key", "name").out(created, api.EntitlementCreated{}).err(conflict),
		mgmtOp(permWrite, del, app+"/entitlements/{entId}", "Delete an entitlement", (*Server).deleteEntitlement).out(ok200, done).err(conflict),
		mgmtOp(permRead, get, app+"/plans", "List plans", (*Server).listPlans).out(ok200, []api.PlanItem{}),
		mgmtOp(permWrite, post, app+"/plans", "Create a plan", (*Server).createPlan).
			in(api.PlanRequest{}, "name").out(created, api.PlanID{}).err(conflict),
		mgmtOp(permRead, get, app+"/plans/{planId}", "Read a plan", (*Server).getPlan).out(ok200, api.PlanItem{}),
		mgmtOp(permWrite, patch, app+"/plans/{planId}", "Update a plan (the fields present)", (*Server).updatePlan).
			in(api.PlanRequest{}).out(ok200, api.PlanID{}).err(conflict),
		mgmtOp(permWrite, del, app+"/plans/{planId}", "Delete a plan", (*Server).deletePlan).out(ok200, done).err(conflict),

		// Licenses, end-users, devices and their sessions.
		mgmtOp(permRead, get, app+"/licenses", "List licenses", (*Server).listLicenses).
			q(statusQuery, param{name: "plan_id", desc: "only licenses of this plan"}, param{name: "key", desc: "only the license with this key"},
				param{name: "user_id", desc: "only licenses of this end-user"}, param{name: "user_email", desc: "only licenses of the end-user with this e-mail"}).
			q(pageParams...).h(envHeader).out(ok200, api.Page[api.LicenseItem]{}),
		mgmtOp(permWrite, post, app+"/licenses", "Generate licenses", (*Server).generateLicenses).
			in(api.GenerateLicensesRequest{}, "plan_id").h(envHeader).out(created, api.LicensesGenerated{}),
		mgmtOp(permRead, get, app+"/licenses/{licenseId}", "Read a license: devices_count, the first page of its devices (the rest: devices?license_id=), entitlements", (*Server).getLicense).
			h(envHeader).out(ok200, api.LicenseDetail{}),
		mgmtOp(permWrite, post, app+"/licenses/renew", "Renew licenses in bulk by days, all or none", (*Server).renewLicenses).
			in(api.RenewLicensesRequest{}, "license_ids", "days").h(envHeader).out(ok200, api.LicensesRenewed{}).err(conflict),
		mgmtOp(permWrite, patch, app+"/licenses/{licenseId}", "Change a license's status, expiry, maintenance, plan or end-user, together", (*Server).updateLicense).
			in(api.LicenseUpdateRequest{}).h(envHeader).out(ok200, changed).err(conflict),
		mgmtOp(permWrite, post, app+"/licenses/{licenseId}/renew", "Renew a license: expiry (and maintenance) from the later of now and its current date", (*Server).renewLicense).
			in(api.RenewLicenseRequest{}).optional().h(envHeader).out(ok200, api.LicenseDetail{}).err(conflict),
		mgmtOp(permRead, get, app+"/licenses/{licenseId}/leases", "List the license's live seat leases", (*Server).listLeases).
			h(envHeader).out(ok200, []api.LeaseItem{}),
		mgmtOp(permWrite, del, app+"/licenses/{licenseId}/leases/{leaseId}", "Free a seat (end a lease)", (*Server).releaseLease).
			h(envHeader).out(ok200, done),
		mgmtOp(permWrite, post, app+"/licenses/{licenseId}/machine-files", "Issue a machine file for an air-gapped device (binds it as an activation would)", (*Server).issueLicenseMachineFile).
			in(api.LicenseMachineFileRequest{}, "fingerprint").h(envHeader).out(ok200, api.LicenseMachineFileIssued{}),
		mgmtOp(permWrite, post, app+"/licenses/{licenseId}/reset-device", "Unbind a device from a license", (*Server).resetLicenseDevice).
			in(api.ResetDeviceRequest{}, "device_id").h(envHeader).out(ok200, done),
		route{method: get, path: app + "/licenses/{licenseId}/sessions", summary: "Count the license's live sessions", access: managed, perm: permRead,
			fn: func(s *Server) handlerFunc { return countSessions("licenseId", s.db.CountLicenseSessions) }}.
			h(envHeader).out(ok200, api.ActiveSessions{}),
		route{method: get, path: app + "/users", summary: "List end-users", access: managed, perm: permRead,
			fn: func(s *Server) handlerFunc { return listByStatus(s.db.ListEndUsers, api.EndUserItemOf) }}.
			q(statusQuery, param{name: "email", desc: "only the end-user with this e-mail"}).q(pageParams...).h(envHeader).
			out(ok200, api.Page[api.EndUserItem]{}),
		route{method: patch, path: app + "/users/{userId}", summary: "Set an end-user's status", access: managed, perm: permWrite,
			fn: func(s *Server) handlerFunc { return setStatus("userId", s.setEndUserStatus) }}.
			in(api.StatusRequest{}, "status").h(envHeader).out(ok200, changed).err(conflict),
		route{method: get, path: app + "/devices", summary: "List devices (or, with license_id alone, the devices bound to that license)", access: managed, perm: permRead,
			fn: func(s *Server) handlerFunc { return listByStatus(s.db.ListDevices, api.DeviceItemOf) }}.
			q(statusQuery, param{name: "fingerprint", desc: "only the device with this fingerprint"},
				param{name: "license_id", desc: "only the devices bound to this license; not combined with status or fingerprint"}).q(pageParams...).h(envHeader).
			out(ok200, api.Page[api.DeviceItem]{}).err(notFound),
		route{method: patch, path: app + "/devices/{deviceId}", summary: "Set a device's status", access: managed, perm: permWrite,
			fn: func(s *Server) handlerFunc { return setStatus("deviceId", s.setDeviceStatus) }}.
			in(api.StatusRequest{}, "status").h(envHeader).out(ok200, changed).err(conflict),
		route{method: get, path: app + "/devices/{deviceId}/sessions", summary: "Count the device's live sessions", access: managed, perm: permRead,
			fn: func(s *Server) handlerFunc { return countSessions("deviceId", s.db.CountDeviceSessions) }}.
			h(envHeader).out(ok200, api.ActiveSessions{}),
		mgmtOp(permUserRoles, post, "/v1/mgmt/auth/users/{user_id}/roles", "Attach a role to an end-user", (*Server).addEndUserRole).
			in(api.RoleRequest{}, "role_id").h(envHeader).out(ok200, api.EndUserRoles{}),
		mgmtOp(permUserRoles, del, "/v1/mgmt/auth/users/{user_id}/roles/{role_id}", "Detach a role from an end-user", (*Server).removeEndUserRole).
			h(envHeader).out(ok200, api.EndUserRoles{}),

		// Audit logs.
		mgmtOp(permRead, get, app+"/audit-logs", "The application's audit log", (*Server).listAudit).
			q(auditParams...).q(pageParams...).h(envHeader).out(ok200, api.Page[api.AuditEntry]{}),
		mgmtOp(permRead, get, "/v1/mgmt/audit-logs", "The organization's audit log (members, API keys, the organization)", (*Server).listOrgAudit).
			q(auditParams...).q(pageParams...).out(ok200, api.Page[api.AuditEntry]{}),

		// Webhooks.
		mgmtOp(permRegistry, get, "/v1/mgmt/webhooks/events", "The event names a webhook may subscribe to", (*Server).listWebhookEvents).out(ok200, []string{}),
		mgmtOp(permRead, get, app+"/webhooks", "List webhooks", (*Server).listWebhooks).out(ok200, []api.Webhook{}),
		mgmtOp(permWrite, post, app+"/webhooks", "Register a webhook (its signing secret shown once)", (*Server).createWebhook).
			in(api.CreateWebhookRequest{}, "url", "events").out(created, api.WebhookCreated{}).err(conflict),
		mgmtOp(permWrite, patch, app+"/webhooks/{webhookId}", "Update a webhook", (*Server).updateWebhook).
			in(api.UpdateWebhookRequest{}).out(ok200, api.Webhook{}),
		mgmtOp(permWrite, del, app+"/webhooks/{webhookId}", "Delete a webhook", (*Server).deleteWebhook).out(ok200, done),
		mgmtOp(permWrite, post, app+"/webhooks/{webhookId}/test", "Send a test event now and report the answer", (*Server).testWebhook).
			out(ok200, api.WebhookTestResult{}).err(conflict),
		mgmtOp(permRead, get, app+"/webhooks/{webhookId}/deliveries", "List a webhook's deliveries", (*Server).listDeliveries).
			q(statusQuery).q(pageParams...).out(ok200, api.Page[api.Delivery]{}),
		mgmtOp(permWrite, post, app+"/webhooks/{webhookId}/deliveries/{deliveryId}/retry", "Deliver a failed delivery again", (*Server).retryDelivery).
			out(ok200, done).err(conflict),

		// Billing.
		op(tierReader, get, "/v1/mgmt/billing/plans", "Billing plans (tiers)", (*Server).billingPlans).out(ok200, api.BillingPlans{}),
		mgmtOp(permBillingRead, get, "/v1/mgmt/billing/subscription", "The organization's subscription", (*Server).billingSubscription).
			out(ok200, api.SubscriptionBody{}),
		mgmtOp(permBillingRead, get, "/v1/mgmt/billing/usage", "Usage against the tier's limits", (*Server).billingUsage).out(ok200, api.Usage{}),
		mgmtOp(permAdmin, post, "/v1/mgmt/billing/checkout", "Start a Pix checkout", (*Server).billingCheckout).
			in(api.CheckoutRequest{}, "billing_plan_key", "customer_phone", "customer_document").out(created, api.Checkout{}).err(unavailable),
		op(public, post, "/v1/billing/pix/callback", "The payment provider's notice that a transaction was paid (signed)", (*Server).pixCallback).
			h(param{name: "x-signature", desc: "sha256= and the hex HMAC-SHA256 of the body with billing.pix.callback_secret", required: true}).
			in(api.PixCallback{}, "transaction_id", "status").out(ok200, api.SubscriptionBody{}).err(unauth, notFound, conflict, unavailable),

		// The operator.
		op(operator, get, "/v1/admin/backup", "A consistent copy of the database", (*Server).backup).out(ok200, nil).as("application/octet-stream").
			err(notImplemented),
		op(operator, get, "/v1/admin/organizations", "List organizations", (*Server).adminListOrganizations).out(ok200, api.Page[api.AdminOrganization]{}),
		op(operator, post, "/v1/admin/organizations", "Create an organization and its owner", (*Server).adminCreateOrganization).
			in(api.CreateOrganizationRequest{}, "name", "owner_email", "owner_password").out(created, api.AdminOrganization{}).err(conflict),
		op(operator, get, "/v1/admin/organizations/{orgId}", "Read an organization", (*Server).adminGetOrganization).out(ok200, api.AdminOrganization{}),
		op(operator, post, "/v1/admin/billing/transactions/{id}/confirm", "Confirm a payment by hand", (*Server).billingConfirm).
			out(ok200, api.SubscriptionBody{}).err(conflict),

		// The account pages: HTML for people following a mailed link.
		{method: get, path: "/account/static/{file}", summary: "The pages' style sheets and scripts", access: served, prefix: true,
			raw: func(*Server) http.Handler { return staticFiles() }, status: ok200, contentType: "*/*"},
		// The index, where a person who opens /account/ learns what they
		// can do here; without the slash too, since the API never redirects.
		pageOp(get, "/account", "The account pages' index: what a person can do here", (*Server).accountIndexPage),
		pageOp(get, "/account/", "The account pages' index (with the slash)", (*Server).accountIndexPage).aliased(),
		pageOp(get, "/account/verify-email", "The page that verifies an e-mail address", (*Server).verifyEmailPage).
			q(param{name: "token", desc: "the mailed verification token", required: true}),
		pageOp(post, "/account/verify-email", "Verify an e-mail address (the page's form)", (*Server).verifyEmailPage).formOf("token"),
		pageOp(get, "/account/reset-password", "The page that sets a new password", (*Server).resetPasswordPage).
			q(param{name: "token", desc: "the mailed reset token", required: true}),
		pageOp(post, "/account/reset-password", "Set a new password (the page's form)", (*Server).resetPasswordPage).formOf("token", "new_password", "confirm_password"),
		pageOp(get, "/account/forgot-password", "The page that asks for a password-reset link", (*Server).forgotPasswordPage),
		pageOp(post, "/account/forgot-password", "Mail a password-reset link (the page's form)", (*Server).forgotPasswordPage).formOf("email"),
		pageOp(get, "/account/resend-verification", "The page that asks for a new verification link", (*Server).resendVerificationPage),
		pageOp(post, "/account/resend-verification", "Mail a new verification link (the page's form)", (*Server).resendVerificationPage).formOf("email"),
		// The self-service portal: HTML for a vendor's customers
		// (docs/design.md §17), an application's production environment at
		// /portal/{app_id}, either at /portal/{app_id}/{environment}.
		portalOp(get, "/portal/{app_id}", "The customer portal of an application's production environment: sign-in, or the customer's licences", (*Server).portalHome),
		portalOp(get, "/portal/{app_id}/", "The customer portal of an application's production environment (with the slash)", (*Server).portalHome).aliased(),
		portalOp(get, portal, "The customer portal of one environment: sign-in, or the customer's licences and their devices", (*Server).portalHome),
		portalOp(get, portal+"/", "The customer portal of one environment (with the slash)", (*Server).portalHome).aliased(),
		portalOp(post, portal+"/sign-in", "Sign in with the end-user's e-mail and password (the page's form; the runtime login's throttle)", (*Server).portalSignIn).
			formOf("csrf", "email", "password").out(http.StatusSeeOther, nil).err(unauth, forbidden),
		portalOp(post, portal+"/sign-in-link", "Mail a one-time sign-in link (the same answer for any address)", (*Server).portalSendLink).
			formOf("csrf", "email").err(forbidden),
		portalOp(get, portal+"/link", "The page a mailed sign-in link opens (spends nothing)", (*Server).portalLinkPage).
			q(param{name: "token", desc: "the mailed sign-in token", required: true}),
		portalOp(post, portal+"/link", "Sign in with a mailed link (the page's form)", (*Server).portalUseLink).
			formOf("csrf", "token").out(http.StatusSeeOther, nil).err(forbidden),
		portalOp(get, portal+"/licenses/{license_id}/devices/{device_id}/deactivate", "The page that asks before a device is deactivated", (*Server).portalConfirm).
			err(unauth),
		portalOp(post, portal+"/licenses/{license_id}/devices/{device_id}/deactivate", "Deactivate a device: spends a device reset as the runtime reset does", (*Server).portalDeactivate).
			formOf("csrf").err(unauth, forbidden),
		portalOp(post, portal+"/sign-out", "Sign out of the portal", (*Server).portalSignOut).formOf("csrf").err(forbidden),
		pageOp(get, "/account/partner/callback", "Partner sign-in's landing page in the browser", (*Server).partnerPage).
			q(param{name: "state", desc: "the attempt, as the provider returns it (the page hands it to the API)"},
				param{name: "code", desc: "the authorization code"},
				param{name: "error", desc: "the provider's refusal"}),
	}
}
