package server

import (
	"net/http"

	"licensectl/server/api"
)

// apiOps is the detailed part of the OpenAPI document: routes whose answer
// the table names exactly (the schema comes from the wire type itself).
// Routes not listed here get a generic operation (see genericOp).
func apiOps() []apiOp {
	const app = "/v1/mgmt/applications/{id}"
	mg := func(method, path, summary string, status int, resp any) apiOp {
		return apiOp{method: method, path: path, tag: "management", summary: summary, auth: authMgmt, status: status, resp: resp}
	}
	rt := func(method, path, summary string, status int, resp any) apiOp {
		return apiOp{method: method, path: path, tag: "runtime", summary: summary, auth: authRuntime, status: status, resp: resp}
	}
	ok := api.Success{}
	return []apiOp{
		{method: http.MethodGet, path: "/healthz", tag: "operations", summary: "The process is up", status: 200, resp: map[string]string{}},
		{method: http.MethodGet, path: "/readyz", tag: "operations", summary: "The store can serve", status: 200, resp: map[string]string{}},
		{method: http.MethodGet, path: "/metrics", tag: "operations", summary: "Prometheus metrics", status: 200, contentType: "text/plain"},
		{method: http.MethodGet, path: "/v1/openapi.json", tag: "operations", summary: "This document", status: 200, resp: map[string]any{}},

		rt(http.MethodPost, "/v1/runtime/applications/init", "Identify the application and environment", 200, api.RuntimeApplication{}),
		rt(http.MethodPost, "/v1/runtime/auth/register", "Register an end-user", 201, api.Registered{}),
		rt(http.MethodPost, "/v1/runtime/auth/login", "Log an end-user in on a device (timestamp and nonce)", 200, api.RuntimeSession{}),
		rt(http.MethodPost, "/v1/runtime/auth/logout", "End the session of an access token", 200, ok),
		rt(http.MethodPost, "/v1/runtime/licenses/activate", "Activate a license key on a device (timestamp and nonce)", 200, api.Activated{}),
		rt(http.MethodPost, "/v1/runtime/sessions/refresh", "Rotate the token pair", 200, api.RuntimeSession{}),
		rt(http.MethodPost, "/v1/runtime/devices/reset", "Unbind this device from a license (user's reset quota)", 200, api.DeviceReset{}),
		rt(http.MethodPost, "/v1/runtime/licenses/checkout", "Check out a machine file for offline use (activation session bearer; timestamp and nonce)", 200, api.MachineFileIssued{}),
		rt(http.MethodPost, "/v1/runtime/leases", "Check out a floating seat, or extend this device's (activation session bearer; timestamp and nonce)", 201, api.LeaseGranted{}),
		rt(http.MethodPost, "/v1/runtime/leases/{leaseId}/heartbeat", "Extend a seat lease by the plan's lease_seconds", 200, api.LeaseExtended{}),
		rt(http.MethodDelete, "/v1/runtime/leases/{leaseId}", "Release a seat lease", 204, nil),
		{method: http.MethodGet, path: "/v1/runtime/applications/{id}/jwks.json", tag: "runtime", status: 200, contentType: "application/jwk-set+json",
			summary: "The public key of one environment (JWKS): the one ?environment= names, else the runtime credential's, else production",
			query:   []apiParam{{name: "environment", desc: "production or development"}},
			headers: []apiParam{{name: "x-environment", desc: "production or development, when neither ?environment= nor x-api-key names it"}}},

		mg(http.MethodGet, "/v1/mgmt/applications", "List applications", 200, []api.ApplicationItem{}),
		mg(http.MethodPost, "/v1/mgmt/applications", "Create an application", 201, map[string]string{}),
		mg(http.MethodGet, app, "Read an application with its environments", 200, api.ApplicationDetail{}),
		mg(http.MethodPatch, app, "Update an application", 200, api.ApplicationUpdated{}),
		mg(http.MethodDelete, app, "Archive (or with permanent=true delete) an application", 200, ok),
		mg(http.MethodGet, app+"/environments", "List environments", 200, []api.Environment{}),
		mg(http.MethodGet, app+"/entitlements", "List entitlements", 200, []api.EntitlementItem{}),
		mg(http.MethodPost, app+"/entitlements", "Create an entitlement", 201, api.EntitlementCreated{}),
		mg(http.MethodDelete, app+"/entitlements/{entId}", "Delete an entitlement", 200, ok),
		mg(http.MethodGet, app+"/plans", "List plans", 200, []api.PlanItem{}),
		mg(http.MethodPost, app+"/plans", "Create a plan", 201, api.PlanID{}),
		mg(http.MethodGet, app+"/plans/{planId}", "Read a plan", 200, api.PlanItem{}),
		mg(http.MethodPatch, app+"/plans/{planId}", "Update a plan", 200, api.PlanID{}),
		mg(http.MethodDelete, app+"/plans/{planId}", "Delete a plan", 200, ok),
		mg(http.MethodGet, app+"/licenses", "List licenses (filters: status, plan_id, key, user_id, user_email)", 200, api.Page[api.LicenseItem]{}),
		mg(http.MethodPost, app+"/licenses", "Generate licenses", 201, api.LicensesGenerated{}),
		mg(http.MethodGet, app+"/licenses/{licenseId}", "Read a license with devices and entitlements", 200, api.LicenseDetail{}),
		mg(http.MethodPatch, app+"/licenses/{licenseId}", "Set a license's status", 200, api.StatusChanged{}),
		mg(http.MethodPost, app+"/licenses/{licenseId}/reset-device", "Unbind a device from a license", 200, ok),
		mg(http.MethodGet, app+"/licenses/{licenseId}/leases", "List the license's live seat leases", 200, []api.LeaseItem{}),
		mg(http.MethodDelete, app+"/licenses/{licenseId}/leases/{leaseId}", "Free a seat (end a lease)", 200, ok),
		mg(http.MethodGet, app+"/licenses/{licenseId}/sessions", "Count the license's live sessions", 200, api.ActiveSessions{}),
		mg(http.MethodGet, app+"/users", "List end-users (filters: status, email)", 200, api.Page[api.EndUserItem]{}),
		mg(http.MethodPatch, app+"/users/{userId}", "Set an end-user's status", 200, api.StatusChanged{}),
		mg(http.MethodGet, app+"/devices", "List devices (filters: status, fingerprint)", 200, api.Page[api.DeviceItem]{}),
		mg(http.MethodPatch, app+"/devices/{deviceId}", "Set a device's status", 200, api.StatusChanged{}),
		mg(http.MethodGet, app+"/devices/{deviceId}/sessions", "Count the device's live sessions", 200, api.ActiveSessions{}),
		mg(http.MethodGet, app+"/audit-logs", "The application's audit log (filters: event, target_id, from, to)", 200, api.Page[api.AuditEntry]{}),
		mg(http.MethodGet, "/v1/mgmt/audit-logs", "The organization's audit log (filters: event, target_id, from, to)", 200, api.Page[api.AuditEntry]{}),
		mg(http.MethodGet, app+"/secrets", "List application secrets", 200, []api.SecretItem{}),
		mg(http.MethodPost, app+"/secrets", "Create an application secret (shown once)", 201, api.SecretCreated{}),
		mg(http.MethodDelete, app+"/secrets/{secretId}", "Revoke an application secret", 200, ok),
		mg(http.MethodGet, "/v1/mgmt/api-keys", "List developer API keys", 200, []api.APIKeyItem{}),
		mg(http.MethodPost, "/v1/mgmt/api-keys", "Create a developer API key (shown once)", 201, api.APIKeyCreated{}),
		mg(http.MethodDelete, "/v1/mgmt/api-keys/{keyId}", "Revoke a developer API key", 200, ok),
		mg(http.MethodPost, "/v1/mgmt/auth/users/{user_id}/roles", "Attach a role to an end-user", 200, api.EndUserRoles{}),
		mg(http.MethodDelete, "/v1/mgmt/auth/users/{user_id}/roles/{role_id}", "Detach a role from an end-user", 200, api.EndUserRoles{}),
		mg(http.MethodGet, "/v1/mgmt/organizations/me", "Read the organization", 200, api.OrganizationDetail{}),
		mg(http.MethodPatch, "/v1/mgmt/organizations/me", "Update the organization", 200, api.OrganizationUpdated{}),
		mg(http.MethodGet, "/v1/mgmt/organizations/members", "List members", 200, []api.MemberItem{}),
		mg(http.MethodPost, "/v1/mgmt/organizations/members", "Add a member", 201, api.MemberAdded{}),
		mg(http.MethodDelete, "/v1/mgmt/organizations/members/{memberId}", "Remove a member", 200, ok),
		mg(http.MethodGet, "/v1/mgmt/billing/plans", "Billing plans (tiers)", 200, api.BillingPlans{}),
		mg(http.MethodGet, "/v1/mgmt/billing/subscription", "The organization's subscription", 200, api.SubscriptionBody{}),
		mg(http.MethodGet, "/v1/mgmt/billing/usage", "Usage against the tier's limits", 200, api.Usage{}),
		mg(http.MethodPost, "/v1/mgmt/billing/checkout", "Start a Pix checkout", 201, api.Checkout{}),
	}
}
