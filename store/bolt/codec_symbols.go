package bolt

// symbols are strings that recur in records (statuses, event names, target
// and actor types, metadata keys), written as one byte instead of their
// text. The position of a symbol is the format: the list is only ever
// appended to, and an append is a schema version bump (an older binary
// could not read the new symbol). A string not in the list is written as
// text, so a new event name needs no change here to be stored.
var symbols = []string{
	// statuses
	"active", "inactive", "suspended", "expired", "revoked", "banned", "disabled", "blocked", "archived",
	// actor and target types
	"member", "api_key", "app_secret", "operator", "end_user", "license", "system",
	"application", "device", "entitlement", "organization", "plan", "secret", "session", "user",
	// events
	"api_key.created", "api_key.revoked", "application.created", "application.deleted", "application.updated",
	"device.blocked", "device.unblocked", "entitlement.created", "entitlement.deleted",
	"license.activated", "license.banned", "license.created", "license.device_reset", "license.expired",
	"license.reinstated", "license.revoked", "license.suspended",
	"member.added", "member.email_verified", "member.login", "member.login_failed", "member.logout",
	"member.password_reset", "member.removed", "organization.created", "organization.updated",
	"plan.created", "plan.deleted", "plan.updated", "runtime.replay_rejected", "secret.created", "secret.revoked",
	"session.refresh_reused", "user.banned", "user.disabled", "user.login", "user.login_failed",
	"user.registered", "user.reinstated", "user.role_added", "user.role_removed",
	// metadata keys
	"by", "code", "device_id", "device_resets_remaining", "email", "environment", "expires_at", "fingerprint",
	"from", "key", "label", "license_id", "name", "new_binding", "nonce", "owner_id", "permanent", "plan_id",
	"role", "role_id", "session_id", "sessions_revoked", "signup", "slug", "to", "user_id",
	// roles, environments, mail token purposes
	"owner", "admin", "developer", "viewer", "production", "development", "verify_email", "reset_password",
	// session revocation reasons
	"logout", "status_change", "device_reset", "refresh_reused",
}

// symbolIndex maps a symbol to its position.
var symbolIndex = func() map[string]uint64 {
	m := make(map[string]uint64, len(symbols))
	for i, s := range symbols {
		m[s] = uint64(i)
	}
	return m
}()

// sym writes s as 1+its position in symbols, or as 0 then its text.
func (w *wbuf) sym(s string) {
	if i, ok := symbolIndex[s]; ok {
		w.uvarint(i + 1)
		return
	}
	w.uvarint(0)
	w.str(s)
}

func (r *rbuf) sym() string {
	i := r.uvarint()
	if i == 0 {
		return r.str()
	}
	if i > uint64(len(symbols)) {
		r.fail("symbol")
		return ""
	}
	return symbols[i-1]
}
