package store

import "time"

// The refusals a store answers after looking records up: every store
// returns these, so clients see the same codes and words from any of them.
// What a store finds missing of its own (not_found) or already taken
// (conflict) it still says itself.

// ErrMailLinkInvalid: a mailed token that is unknown, spent or expired.
func ErrMailLinkInvalid() *Error {
	return Errorf(ECodeInvalidToken, "the link is invalid, expired or already used; request a new one")
}

// ErrWrongPassword: a dashboard login whose account or password is wrong
// (one answer for both, so it names no account).
func ErrWrongPassword() *Error { return Errorf(ECodeInvalidCreds, "wrong e-mail or password") }

// ErrEndUserCredentials: a runtime login whose end-user or password is wrong.
func ErrEndUserCredentials() *Error { return Errorf(ECodeInvalidCreds, "invalid e-mail or password") }

// ErrAccountRefused: a runtime login of a banned or disabled end-user.
func ErrAccountRefused(status string) *Error {
	return Errorf(ECodeForbidden, "this account is %s", status)
}

// ErrDashboardToken: a dashboard token that is unknown or expired.
func ErrDashboardToken() *Error { return Errorf(ECodeUnauthenticated, "invalid or expired token") }

// ErrCredential: an API key or application secret that is unknown or revoked.
func ErrCredential() *Error { return Errorf(ECodeUnauthenticated, "invalid or revoked credential") }

// ErrUnknownAppKey: a public key that names no application environment.
func ErrUnknownAppKey() *Error { return Errorf(ECodeInvalidApp, "unknown application key") }

// ErrUnknownApp: runtime headers that name no application.
func ErrUnknownApp() *Error { return Errorf(ECodeInvalidApp, "unknown application") }

// ErrUnknownAccessToken: an access token no session has.
func ErrUnknownAccessToken() *Error { return Errorf(ECodeInvalidToken, "unknown access token") }

// ErrEndUserToken: an end-user access token, sent with an activation, that
// is not valid.
func ErrEndUserToken() *Error {
	return Errorf(ECodeInvalidToken, "the end-user access token is not valid")
}

// ErrUnknownRefreshToken: a refresh token no session has.
func ErrUnknownRefreshToken() *Error { return Errorf(ECodeInvalidToken, "unknown refresh token") }

// ErrRefreshRotated: the token the session's last rotation retired, within
// the grace (docs/design.md §5): nothing is revoked.
func ErrRefreshRotated() *Error {
	return Errorf(ECodeRefreshRotated, "this refresh token was rotated a moment ago by another refresh of this session; use the pair it returned")
}

// ErrRefreshReused: a retired refresh token: the session is revoked.
func ErrRefreshReused() *Error {
	return Errorf(ECodeRefreshReused, "this refresh token was already used; the session is revoked")
}

// ErrSessionInvalid: a session whose validation cascade fails for reason.
func ErrSessionInvalid(reason string) *Error {
	return Errorf(ECodeSessionInvalid, "the session is no longer valid: %s", reason)
}

// ErrRefreshExpired: a refresh past the session's idle or absolute lifetime.
func ErrRefreshExpired() *Error { return Errorf(ECodeSessionInvalid, "the refresh token has expired") }

// ErrNotActivationSession: a lease asked for with a session that is not a
// license activation's.
func ErrNotActivationSession() *Error {
	return Errorf(ECodeSessionInvalid, "leases need the session of a license activation")
}

// ErrLeaseNotFound: a lease that expired, was released or never was.
func ErrLeaseNotFound() *Error {
	return Errorf(ECodeLeaseNotFound, "the lease expired, was released or does not exist")
}

// ErrSeatsExhausted: every one of the seats is leased; retry says when the
// first lease ends.
func ErrSeatsExhausted(seats int, retry time.Duration) *Error {
	e := Errorf(ECodeSeatsExhausted, "all %d seats of the license are in use", seats)
	e.RetryAfter = retryAfter(retry)
	return e
}

// ErrLicenseMismatch: a license key that is not the session's license.
func ErrLicenseMismatch() *Error {
	return Errorf(ECodeLicenseMismatch, "license_key is not the license of this session")
}

// ErrPartnerAttempt: a partner sign-in state that is unknown, spent or expired.
func ErrPartnerAttempt() *Error {
	return Errorf(ECodeInvalidState, "the sign-in attempt is unknown, expired or already used; start partner sign-in again")
}

// Check refuses an identity a provider returned without what sign-in
// needs: an issuer and subject, and a usable e-mail address, which it
// returns normalized. Returns partner_failed.
func (id PartnerIdentity) Check() (string, error) {
	if id.Issuer == "" || id.Subject == "" {
		return "", Errorf(ECodePartnerFailed, "the provider did not identify the user")
	}
	email, err := NormalizeEmail("email", id.Email)
	if err != nil {
		return "", Errorf(ECodePartnerFailed, "the provider did not share a usable e-mail address; allow the e-mail scope")
	}
	return email, nil
}

// CheckLinkable refuses to create or link an account from an address the
// provider has not verified (docs/design.md §8: it could belong to anyone).
// Returns partner_email_unverified.
func (id PartnerIdentity) CheckLinkable() error {
	if !id.EmailVerified {
		return Errorf(ECodePartnerEmailUnverified, "the provider has not verified this e-mail address; verify it there and sign in again, or sign up with a password")
	}
	return nil
}

// retryAfter is d in whole seconds, rounded up, at least 1.
func retryAfter(d time.Duration) int { return max(1, int((d+time.Second-1)/time.Second)) }
