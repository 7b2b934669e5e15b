package store

import (
	"slices"
	"strings"
)

// Event names of docs/design.md §9, and the few more the audit log records. Every
// audit entry and every webhook delivery names one of these; nothing else
// spells an event as a string literal.
const (
	EventLicenseCreated     = "license.created"
	EventLicenseActivated   = "license.activated"
	EventLicenseSuspended   = "license.suspended"
	EventLicenseReinstated  = "license.reinstated"
	EventLicenseRevoked     = "license.revoked"
	EventLicenseBanned      = "license.banned"
	EventLicenseExpired     = "license.expired"
	EventLicenseDeviceReset = "license.device_reset"
	EventLeaseStarted       = "license.lease_started"
	EventLeaseReleased      = "license.lease_released"
	EventLeaseExpired       = "license.lease_expired"
	EventLicenseCheckedOut  = "license.checked_out"
	EventLicenseRenewed     = "license.renewed"
	EventLicenseUpdated     = "license.updated"
	EventLicensePlanChanged = "license.plan_changed"
	EventLicenseTransferred = "license.transferred"

	EventUserRegistered  = "user.registered"
	EventUserLogin       = "user.login"
	EventUserLoginFailed = "user.login_failed"
	EventUserBanned      = "user.banned"
	EventUserDisabled    = "user.disabled"
	EventUserReinstated  = "user.reinstated"
	EventUserRoleAdded   = "user.role_added"
	EventUserRoleRemoved = "user.role_removed"

	EventDeviceBlocked   = "device.blocked"
	EventDeviceUnblocked = "device.unblocked"
	// EventDeviceRebound: a bound device was recognised by its components
	// under a new fingerprint and took it (docs/design.md §17).
	EventDeviceRebound = "device.rebound"

	EventSessionRefreshReused  = "session.refresh_reused"
	EventRuntimeReplayRejected = "runtime.replay_rejected"

	EventApplicationCreated  = "application.created"
	EventApplicationUpdated  = "application.updated"
	EventApplicationEnabled  = "application.enabled"
	EventApplicationDisabled = "application.disabled"
	EventApplicationDeleted  = "application.deleted"

	EventPlanCreated = "plan.created"
	EventPlanUpdated = "plan.updated"
	EventPlanDeleted = "plan.deleted"

	EventEntitlementCreated = "entitlement.created"
	EventEntitlementDeleted = "entitlement.deleted"

	EventSecretCreated = "secret.created"
	EventSecretRevoked = "secret.revoked"

	EventAPIKeyCreated = "api_key.created"
	EventAPIKeyRevoked = "api_key.revoked"

	EventMemberAdded         = "member.added"
	EventMemberRemoved       = "member.removed"
	EventMemberLogin         = "member.login"
	EventMemberLoginFailed   = "member.login_failed"
	EventMemberLogout        = "member.logout"
	EventMemberEmailVerified = "member.email_verified"
	EventMemberPasswordReset = "member.password_reset"
	EventMemberPartnerLinked = "member.partner_linked"

	EventOrganizationCreated = "organization.created"
	EventOrganizationUpdated = "organization.updated"

	EventBillingCheckoutCreated = "billing.checkout_created"
	EventBillingPaid            = "billing.paid"

	EventWebhookCreated  = "webhook.created"
	EventWebhookUpdated  = "webhook.updated"
	EventWebhookDeleted  = "webhook.deleted"
	EventWebhookDisabled = "webhook.disabled"
	EventWebhookTest     = "webhook.test"
)

// EventAll is the subscription that matches every event.
const EventAll = "*"

// events is every concrete event name, sorted.
var events = func() []string {
	out := []string{
		EventLicenseCreated, EventLicenseActivated, EventLicenseSuspended, EventLicenseReinstated,
		EventLicenseRevoked, EventLicenseBanned, EventLicenseExpired, EventLicenseDeviceReset,
		EventLeaseStarted, EventLeaseReleased, EventLeaseExpired, EventLicenseCheckedOut,
		EventLicenseRenewed, EventLicenseUpdated, EventLicensePlanChanged, EventLicenseTransferred,
		EventUserRegistered, EventUserLogin, EventUserLoginFailed, EventUserBanned, EventUserDisabled,
		EventUserReinstated, EventUserRoleAdded, EventUserRoleRemoved,
		EventDeviceBlocked, EventDeviceUnblocked, EventDeviceRebound,
		EventSessionRefreshReused, EventRuntimeReplayRejected,
		EventApplicationCreated, EventApplicationUpdated, EventApplicationEnabled, EventApplicationDisabled, EventApplicationDeleted,
		EventPlanCreated, EventPlanUpdated, EventPlanDeleted,
		EventEntitlementCreated, EventEntitlementDeleted,
		EventSecretCreated, EventSecretRevoked,
		EventAPIKeyCreated, EventAPIKeyRevoked,
		EventMemberAdded, EventMemberRemoved, EventMemberLogin, EventMemberLoginFailed, EventMemberLogout,
		EventMemberEmailVerified, EventMemberPasswordReset, EventMemberPartnerLinked,
		EventOrganizationCreated, EventOrganizationUpdated,
		EventBillingCheckoutCreated, EventBillingPaid,
		EventWebhookCreated, EventWebhookUpdated, EventWebhookDeleted, EventWebhookDisabled, EventWebhookTest,
	}
	slices.Sort(out)
	return out
}()

// Events returns every concrete event name, sorted: what
// GET /v1/mgmt/webhooks/events answers.
func Events() []string { return slices.Clone(events) }

// IsEvent reports whether name is a concrete event name.
func IsEvent(name string) bool {
	_, ok := slices.BinarySearch(events, name)
	return ok
}

// MatchEvent reports whether the subscription pattern (an exact name, a
// family "license.*", or "*") matches the event name.
func MatchEvent(pattern, name string) bool {
	if pattern == EventAll || pattern == name {
		return true
	}
	family, ok := strings.CutSuffix(pattern, ".*")
	return ok && strings.HasPrefix(name, family+".")
}

// MatchAny reports whether any of the patterns matches name.
func MatchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if MatchEvent(p, name) {
			return true
		}
	}
	return false
}

// CheckEventPatterns validates a webhook subscription: a non-empty list of
// known names or families of known names. The error names the field events.
func CheckEventPatterns(patterns []string) error {
	if len(patterns) == 0 {
		return Invalid("events", "events must list at least one event name")
	}
	if len(patterns) > MaxEventPatterns {
		return Invalid("events", "events lists %d patterns; an endpoint takes at most %d", len(patterns), MaxEventPatterns)
	}
	for _, p := range patterns {
		if p == EventAll || IsEvent(p) {
			continue
		}
		family, ok := strings.CutSuffix(p, ".*")
		if ok && family != "" && slices.ContainsFunc(events, func(e string) bool { return strings.HasPrefix(e, family+".") }) {
			continue
		}
		return Invalid("events", "events names an unknown event %q: `licensectl webhook events` or GET /v1/mgmt/webhooks/events lists them", p)
	}
	return nil
}
