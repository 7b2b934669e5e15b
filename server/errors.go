package server

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"licensectl/server/api"
	"licensectl/store"
)

// statusOf is the one map from error code to HTTP status (docs/design.md §7).
var statusOf = map[string]int{
	store.ECodeValidation:        http.StatusBadRequest,
	store.ECodeInvalidJSON:       http.StatusBadRequest,
	store.ECodeInvalidState:      http.StatusBadRequest,
	store.ECodePartnerDenied:     http.StatusBadRequest,
	store.ECodePartnerFailed:     http.StatusUnauthorized,
	store.ECodeProfileIncomplete: http.StatusForbidden,
	store.ECodeUnauthenticated:   http.StatusUnauthorized,
	store.ECodeInvalidCreds:      http.StatusUnauthorized,
	store.ECodeInvalidToken:      http.StatusUnauthorized,
	store.ECodeInvalidApp:        http.StatusUnauthorized,
	store.ECodeStaleTimestamp:    http.StatusUnauthorized,
	store.ECodeSessionInvalid:    http.StatusUnauthorized,
	store.ECodeRefreshReused:     http.StatusUnauthorized,
	store.ECodeRefreshRotated:    http.StatusConflict,
	store.ECodeForbidden:         http.StatusForbidden,
	store.ECodeEmailUnverified:   http.StatusForbidden,
	store.ECodePlanLimit:         http.StatusForbidden,
	store.ECodeDeviceLimit:       http.StatusForbidden,
	store.ECodeResetLimit:        http.StatusForbidden,
	store.ECodeTrialUsed:         http.StatusForbidden,
	store.ECodeAppDisabled:       http.StatusForbidden,
	store.ECodeDeviceBlocked:     http.StatusForbidden,
	store.ECodeLicenseOwned:      http.StatusForbidden,
	store.ECodeLicenseRevoked:    http.StatusForbidden,
	store.ECodeLicenseSuspend:    http.StatusForbidden,
	store.ECodeLicenseBanned:     http.StatusForbidden,
	store.ECodeLicenseExpired:    http.StatusForbidden,
	store.ECodeLicenseMismatch:   http.StatusForbidden,
	store.ECodeOfflineNotAllowed: http.StatusForbidden,
	store.ECodeTooManyDevices:    http.StatusConflict,
	store.ECodeChallenge:         http.StatusForbidden,
	store.ECodeNotFound:          http.StatusNotFound,
	store.ECodeLeaseNotFound:     http.StatusNotFound,
	store.ECodeMethod:            http.StatusMethodNotAllowed,
	store.ECodeConflict:          http.StatusConflict,
	store.ECodeSlugTaken:         http.StatusConflict,
	store.ECodeEmailTaken:        http.StatusConflict,
	store.ECodePlanInUse:         http.StatusConflict,
	store.ECodeLastOwner:         http.StatusConflict,
	store.ECodeNonceReused:       http.StatusConflict,
	store.ECodeSeatsExhausted:    http.StatusConflict,
	store.ECodeTransition:        http.StatusConflict,
	store.ECodeBodyTooLarge:      http.StatusRequestEntityTooLarge,
	store.ECodeRateLimited:       http.StatusTooManyRequests,
	store.ECodeMonthlyQuota:      http.StatusTooManyRequests,
	store.ECodeInternal:          http.StatusInternalServerError,
	store.ECodeUnavailable:       http.StatusServiceUnavailable,
	store.ECodeOverloaded:        http.StatusServiceUnavailable,

	store.ECodePartnerEmailUnverified: http.StatusForbidden,
	store.ECodeBackupUnsupported:      http.StatusNotImplemented,
}

// StatusOf returns the HTTP status of an error code.
func StatusOf(code string) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// errorText gives the title and suggested action shown in management error
// bodies, per code. Every code has one: docs/errors.md is generated from it
// (TestErrorCodeDocs), so a code without text fails the build's tests.
var errorText = map[string][2]string{
	store.ECodeValidation:        {"Invalid request", "Correct the named field and retry."},
	store.ECodeInvalidJSON:       {"Malformed JSON", "Send a valid JSON object body."},
	store.ECodeInvalidState:      {"Invalid sign-in state", "Start partner sign-in again from the same browser; each attempt works once and for 10 minutes."},
	store.ECodePartnerDenied:     {"Sign-in refused at the provider", "The provider refused or the user cancelled: start partner sign-in again."},
	store.ECodePartnerFailed:     {"Partner sign-in failed", "The provider's answer could not be verified: start partner sign-in again; contact the operator if it persists."},
	store.ECodeProfileIncomplete: {"Profile incomplete", "Finish the account with POST /v1/mgmt/auth/partner/complete-profile first."},
	store.ECodeUnauthenticated:   {"Authentication required", "Send a valid credential in the Authorization or x-api-key header."},
	store.ECodeInvalidCreds:      {"Invalid credentials", "Check the e-mail and password."},
	store.ECodeInvalidToken:      {"Invalid token", "Request a new token."},
	store.ECodeInvalidApp:        {"Unknown application", "Send the application's public key in x-api-key, or x-application-id and x-environment."},
	store.ECodeStaleTimestamp:    {"Stale timestamp", "Send the current UTC time; check the device clock."},
	store.ECodeSessionInvalid:    {"Session invalid", "Sign in or activate again."},
	store.ECodeRefreshReused:     {"Refresh token reused", "The session was revoked: sign in or activate again."},
	store.ECodeRefreshRotated:    {"Refresh token just rotated", "Use the token pair the other refresh returned."},
	store.ECodeForbidden:         {"Forbidden", "Use a credential with the required role."},
	store.ECodeEmailUnverified:   {"E-mail not verified", "Verify your e-mail address, or ask for a new verification mail."},
	store.ECodePlanLimit:         {"Plan limit reached", "Upgrade the billing plan or remove unused resources."},
	store.ECodeDeviceLimit:       {"Device limit reached", "Reset a device bound to the license, or use a license with more devices."},
	store.ECodeResetLimit:        {"Reset limit reached", "Ask the vendor to reset the device, or wait Retry-After seconds when the plan has a reset window."},
	store.ECodeTrialUsed:         {"Trial already used", "Buy a license: this device has used a trial of the application."},
	store.ECodeAppDisabled:       {"Application disabled", "The vendor disabled the application."},
	store.ECodeDeviceBlocked:     {"Device blocked", "The vendor blocked this device."},
	store.ECodeLicenseOwned:      {"License owned by another user", "Use a license of your own."},
	store.ECodeLicenseRevoked:    {"License revoked", "Use another license."},
	store.ECodeLicenseSuspend:    {"License suspended", "Ask the vendor to reinstate the license."},
	store.ECodeLicenseBanned:     {"License banned", "Use another license."},
	store.ECodeLicenseExpired:    {"License expired", "Renew the license: POST …/licenses/{licenseId}/renew (`licensectl license renew KEY`)."},
	store.ECodeChallenge:         {"Challenge required", "Many failed logins of this account: solve the challenge of GET /v1/mgmt/auth/challenge and send it as altcha with the login, until Retry-After passes."},
	store.ECodeNotFound:          {"Not found", "Check the identifier."},
	store.ECodeMethod:            {"Method not allowed", "Use a method this path supports."},
	store.ECodeConflict:          {"Conflict", "The resource already exists or changed; reload and retry."},
	store.ECodeSlugTaken:         {"Slug taken", "Choose another slug."},
	store.ECodeEmailTaken:        {"E-mail taken", "Use another e-mail address."},
	store.ECodePlanInUse:         {"Plan in use", "Revoke the plan's licenses or move them to another plan first: PATCH …/licenses/{licenseId} with plan_id (`licensectl license set-plan KEY PLAN`)."},
	store.ECodeLastOwner:         {"Last owner", "Make another member an owner first."},
	store.ECodeNonceReused:       {"Nonce reused", "Send a new random nonce with every request."},
	store.ECodeLicenseMismatch:   {"License mismatch", "Send the key of the license the session was activated with."},
	store.ECodeOfflineNotAllowed: {"Offline use not allowed", "The plan's max_offline_days is 0: raise it to issue machine files."},
	store.ECodeLeaseNotFound:     {"Lease not found", "The lease expired or was released: list the license's live leases."},
	store.ECodeSeatsExhausted:    {"Seats exhausted", "Every floating seat is in use: free one, or retry after retry_after_seconds."},
	store.ECodeTransition:        {"Invalid status change", "This status cannot change to the one requested."},
	store.ECodeTooManyDevices:    {"Too many devices", "More devices are bound than the new plan allows: reset devices first (POST …/licenses/{licenseId}/reset-device, `licensectl license reset-device`)."},
	store.ECodeBodyTooLarge:      {"Body too large", "Send at most 1 MiB."},
	store.ECodeRateLimited:       {"Too many requests", "Wait retry_after_seconds and retry."},
	store.ECodeMonthlyQuota:      {"Monthly quota exceeded", "Upgrade the billing plan or wait for the next period."},
	store.ECodeInternal:          {"Internal error", "Retry later; contact the operator if it persists."},
	store.ECodeUnavailable:       {"Unavailable", "Retry later."},
	store.ECodeOverloaded:        {"Overloaded", "Nothing was changed: retry after retry_after_seconds."},

	store.ECodePartnerEmailUnverified: {"E-mail not verified by the provider", "Verify the address at the provider and sign in again, or sign up with a password."},
	store.ECodeBackupUnsupported:      {"Backup not supported", "This store is not one file: back it up with its database's own tools (docs/deploy.md)."},
}

// runtimeAdvice says, for each code the runtime API answers, what a desktop
// client should do; docs/runtime.md's table is generated from it.
var runtimeAdvice = map[string]string{
	store.ECodeValidation:        "A bug in the client: the message names the field. Do not retry unchanged.",
	store.ECodeInvalidJSON:       "A bug in the client: send a JSON object.",
	store.ECodeInvalidApp:        "The public key (or application id and environment) is wrong: a build or configuration error. Do not retry.",
	store.ECodeInvalidCreds:      "Wrong e-mail or password: ask the user again.",
	store.ECodeInvalidToken:      "Logout of a token the server does not know: treat the user as signed out.",
	store.ECodeStaleTimestamp:    "The device clock is off by more than the replay window: tell the user to fix the clock, or use the server's Date header, and retry.",
	store.ECodeSessionInvalid:    "The session can no longer be used (revoked, expired, or its license, user or device changed): sign in or activate again.",
	store.ECodeRefreshReused:     "A spent refresh token came back: the whole session is revoked as a precaution. Sign in or activate again.",
	store.ECodeRefreshRotated:    "Another thread of this client refreshed the same token a moment ago: nothing was revoked; use the pair that refresh returned (share it between threads). Do not retry with this token.",
	store.ECodeAppDisabled:       "The vendor disabled the application: stop and say so.",
	store.ECodeDeviceLimit:       "Every seat of the license is taken: offer a device reset (devices/reset) on another device or the vendor's support.",
	store.ECodeResetLimit:        "No self-service resets left: send the user to the vendor's support. With a reset window (Retry-After present), one frees up after Retry-After seconds.",
	store.ECodeTrialUsed:         "This device already used a trial of the application: offer to buy.",
	store.ECodeDeviceBlocked:     "The vendor blocked this device: stop and say so.",
	store.ECodeLicenseOwned:      "The license belongs to another end-user: ask for the user's own key.",
	store.ECodeLicenseRevoked:    "The license was revoked: ask for another key.",
	store.ECodeLicenseSuspend:    "The license is suspended for now: say so; it may be reinstated.",
	store.ECodeLicenseBanned:     "The license was banned: ask for another key.",
	store.ECodeLicenseExpired:    "The license expired: offer a renewal.",
	store.ECodeChallenge:         "Many failed logins of this account from many addresses: fetch GET /v1/mgmt/auth/challenge, solve it (proof of work, no person needed, about half a second) and log in again with the solution as altcha. Needed until Retry-After passes.",
	store.ECodeNotFound:          "Unknown license key (or device not bound to it): ask the user to check the key.",
	store.ECodeMethod:            "A bug in the client: wrong HTTP method.",
	store.ECodeEmailTaken:        "The e-mail is already registered: offer to sign in instead.",
	store.ECodeNonceReused:       "The nonce was used before: generate a new random nonce for every request and retry.",
	store.ECodeLicenseMismatch:   "license_key is not the key of this session's license: send the key the app was activated with.",
	store.ECodeOfflineNotAllowed: "The license's plan allows no offline use (max_offline_days 0): stay online and validate.",
	store.ECodeLeaseNotFound:     "The lease expired (no heartbeat within lease_seconds) or was released: check out a new one with POST /v1/runtime/leases.",
	store.ECodeSeatsExhausted:    "Every floating seat of the license is in use: tell the user, and retry after Retry-After seconds, when the first lease ends.",
	store.ECodeBodyTooLarge:      "A bug in the client: bodies are at most 1 MiB.",
	store.ECodeRateLimited:       "Too many requests from this address, for this account or for this license: wait Retry-After seconds, then retry.",
	store.ECodeMonthlyQuota:      "The vendor's monthly quota is used up: keep working offline on the verified token; retry after Retry-After seconds.",
	store.ECodeInternal:          "A server fault: retry with backoff; keep working offline on the verified token meanwhile.",
	store.ECodeUnavailable:       "The server cannot serve now: retry with backoff; keep working offline on the verified token meanwhile.",
	store.ECodeOverloaded:        "The server shed the call under load and changed nothing: retry after Retry-After seconds, with jitter.",
}

// unavailableRetryAfter is the Retry-After, in seconds, of a 503 whose cause
// (an unreachable provider, a full disk, a setting not made) names none.
const unavailableRetryAfter = 10

// writeError writes err in the body shape of the API the request addressed.
// Errors that are not *store.Error are logged and reported as internal
// without their text.
func writeError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	code := store.ErrorCode(err)
	msg := store.ErrorMessage(err)
	retry := 0
	id := requestIDFrom(r.Context())
	if e := store.AsError(err); e != nil {
		retry = e.RetryAfter
		if e.Err != nil {
			logger.Error("request failed", "request_id", id, "method", r.Method, "path", r.URL.Path, "code", code, "err", e.Err)
		}
	} else {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			code, msg = store.ECodeBodyTooLarge, "request body exceeds 1 MiB"
		} else {
			logger.Error("request failed", "request_id", id, "method", r.Method, "path", r.URL.Path, "err", err)
		}
	}
	if rec, ok := w.(errorCoder); ok {
		rec.setErrorCode(code)
	}
	status := StatusOf(code)
	if retry == 0 && status == http.StatusServiceUnavailable {
		// Every 503 carries Retry-After (docs/design.md §7); a cause that
		// names no time of its own gets a short, fixed one.
		retry = unavailableRetryAfter
	}
	if retry > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retry))
	}
	var body any
	if strings.HasPrefix(r.URL.Path, "/v1/runtime") {
		body = api.RuntimeErrorBody{Error: api.RuntimeError{Code: code, Message: msg}}
	} else {
		text := errorText[code]
		if text[0] == "" {
			text = [2]string{http.StatusText(status), "See the message."}
		}
		body = api.ErrorBody{Error: api.Error{Code: code, Message: msg, Title: text[0], Reason: code, Action: text[1], RetryAfterSeconds: retry}}
	}
	writeJSON(w, status, body)
}

// Header values of every JSON answer, shared: net/http only reads them,
// so one slice each saves two allocations per response.
var (
	jsonContentType = []string{"application/json"}
	noStore         = []string{"no-store"}
)

// setJSONHeaders marks an answer as JSON that must not be cached.
func setJSONHeaders(h http.Header) {
	h["Content-Type"] = jsonContentType
	h["Cache-Control"] = noStore
}

// writeJSON writes v as a JSON response.
func writeJSON(w http.ResponseWriter, status int, v any) {
	setJSONHeaders(w.Header())
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
