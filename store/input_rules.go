package store

import (
	"strings"
	"time"
	"unicode/utf8"
)

// The rules of the inputs a backend takes. Each lives here, once, so every
// backend refuses the same input with the same code, field and message; a
// backend only looks things up and answers not_found or conflict of its own.

// CheckID checks a required reference by id: present and a UUID.
func CheckID(field, v string) error {
	if v == "" {
		return Invalid(field, "%s is required", field)
	}
	if !ValidID(v) {
		return Invalid(field, "%s must be a UUID", field)
	}
	return nil
}

// CheckOptionalID checks a reference by id that may be absent (a filter).
func CheckOptionalID(field, v string) error {
	if v != "" && !ValidID(v) {
		return Invalid(field, "%s must be a UUID", field)
	}
	return nil
}

// Unknown turns the not_found of resolving a reference the request body
// names into validation_failed on field: the request is wrong, not its URL.
// Any other error passes through unchanged.
func Unknown(err error, field, format string, args ...any) error {
	if ErrorCode(err) == ECodeNotFound {
		return Invalid(field, format, args...)
	}
	return err
}

// PasswordPolicy rejects weak passwords of the account with the given e-mail
// with validation_failed on field "password".
type PasswordPolicy func(password, email string) error

// CheckPassword checks the password a member chooses, sent in field: it is
// required, then policy (nil: none) judges it against the account's e-mail.
// The policy's refusals are reported on field.
func CheckPassword(field, pw, email string, policy PasswordPolicy) error {
	if pw == "" {
		return Invalid(field, "%s is required", field)
	}
	if policy == nil {
		return nil
	}
	err := policy(pw, email)
	if e := AsError(err); e != nil && e.Field == "password" && field != "password" {
		if rest, ok := strings.CutPrefix(e.Message, "password"); ok {
			return Invalid(field, "%s%s", field, rest)
		}
	}
	return err
}

// CheckRole checks a member role.
func CheckRole(field, v string) error {
	if !ValidRole(v) {
		return Invalid(field, "%s must be owner, admin, developer or viewer", field)
	}
	return nil
}

// CheckEndUserPassword applies the end-user password rules: 8 to 256
// characters of valid UTF-8, not among the most common passwords. isCommon
// is that list's test (store/password.IsCommon); it is passed in because
// store imports nothing of the project.
func CheckEndUserPassword(pw string, isCommon func(string) bool) error {
	n := utf8.RuneCountInString(pw)
	switch {
	case pw == "":
		return Invalid("password", "password is required")
	case !utf8.ValidString(pw):
		return Invalid("password", "password must be valid UTF-8")
	case n < MinEndUserPassword:
		return Invalid("password", "password must be at least %d characters", MinEndUserPassword)
	case n > MaxEndUserPassword:
		return Invalid("password", "password must be at most %d characters", MaxEndUserPassword)
	case isCommon != nil && isCommon(pw):
		return Invalid("password", "password is too common")
	}
	return nil
}

// Check validates the anti-replay fields of a runtime request before any
// transaction: a timestamp and a nonce of 16–128 printable ASCII characters.
// Whether the timestamp is inside the window and the nonce unused is the
// store's to decide with its clock and its nonces. Returns validation_failed.
func (rp Replay) Check() error {
	if rp.Timestamp.IsZero() {
		return Invalid("timestamp", "timestamp is required (RFC 3339)")
	}
	n := len(rp.Nonce)
	if n < MinNonce || n > MaxNonce {
		return Invalid("nonce", "nonce must be %d to %d printable characters", MinNonce, MaxNonce)
	}
	for i := 0; i < n; i++ {
		if c := rp.Nonce[i]; c < 0x21 || c > 0x7e {
			return Invalid("nonce", "nonce must be %d to %d printable characters", MinNonce, MaxNonce)
		}
	}
	return nil
}

// CheckWindow refuses a request whose timestamp is more than window away
// from now, either way. Returns stale_timestamp.
func (rp Replay) CheckWindow(now time.Time, window time.Duration) error {
	if d := now.Sub(rp.Timestamp); d > window || d < -window {
		return Errorf(ECodeStaleTimestamp, "timestamp is outside the accepted window of ±%s", window)
	}
	return nil
}

// UsedUntil is how long the request's nonce stays used once accepted: for as
// long as a request carrying its timestamp could still be accepted, so a
// restart or a later retry within the window is refused too.
func (rp Replay) UsedUntil(now time.Time, window time.Duration) time.Time {
	until := rp.Timestamp
	if now.After(until) {
		until = now
	}
	return until.Add(window)
}

// CheckNonceUnused refuses a nonce recorded as used until usedUntil (zero:
// never recorded) when now is before then. Returns nonce_reused.
func CheckNonceUnused(usedUntil, now time.Time) error {
	if usedUntil.After(now) {
		return Errorf(ECodeNonceReused, "this nonce was already used")
	}
	return nil
}

// Check validates a runtime login and returns it with the e-mail normalized
// and the fingerprint trimmed. Returns validation_failed.
func (in RuntimeLoginInput) Check() (RuntimeLoginInput, error) {
	var err error
	if in.Email, err = NormalizeEmail("email", in.Email); err != nil {
		return in, err
	}
	if in.Password == "" {
		return in, Invalid("password", "password is required")
	}
	if in.Fingerprint, err = CheckFingerprint(in.Fingerprint); err != nil {
		return in, err
	}
	if err := CheckDeviceComponents(in.Components); err != nil {
		return in, err
	}
	return in, in.Replay.Check()
}

// Check validates an activation and returns it with the fingerprint trimmed
// and the key normalized. Returns validation_failed.
func (in ActivateInput) Check() (ActivateInput, error) {
	if _, err := CheckLicenseKey("license_key", in.LicenseKey); err != nil {
		return in, err
	}
	var err error
	if in.Fingerprint, err = CheckFingerprint(in.Fingerprint); err != nil {
		return in, err
	}
	if err := CheckDeviceComponents(in.Components); err != nil {
		return in, err
	}
	if err := in.Replay.Check(); err != nil {
		return in, err
	}
	in.LicenseKey = NormalizeLicenseKey(in.LicenseKey)
	return in, nil
}

// Check validates a self-service device reset and returns it with the
// fingerprint trimmed and the key normalized. Exactly one of the
// fingerprint and the device id names the device. Returns validation_failed.
func (in DeviceResetInput) Check() (DeviceResetInput, error) {
	if _, err := CheckLicenseKey("license_key", in.LicenseKey); err != nil {
		return in, err
	}
	switch {
	case in.Fingerprint != "" && in.DeviceID != "":
		return in, Invalid("device_fingerprint", "send device_fingerprint or device_id, not both")
	case in.DeviceID != "":
		if err := CheckID("device_id", in.DeviceID); err != nil {
			return in, err
		}
	case in.Fingerprint == "":
		return in, Invalid("device_fingerprint", "device_fingerprint or device_id is required")
	default:
		var err error
		if in.Fingerprint, err = CheckFingerprint(in.Fingerprint); err != nil {
			return in, err
		}
	}
	in.LicenseKey = NormalizeLicenseKey(in.LicenseKey)
	return in, nil
}

// Check validates a devices list request and returns it with the
// fingerprint trimmed and the key normalized; the fingerprint may be left
// out. Returns validation_failed.
func (in LicenseDevicesInput) Check() (LicenseDevicesInput, error) {
	_, err := CheckLicenseKey("license_key", in.LicenseKey)
	if err == nil && in.Fingerprint != "" {
		in.Fingerprint, err = CheckFingerprint(in.Fingerprint)
	}
	if err == nil {
		err = in.Replay.Check()
	}
	in.LicenseKey = NormalizeLicenseKey(in.LicenseKey)
	return in, err
}

// EnvName returns the environment name the client asks for, production when
// it names none. Returns validation_failed for any other name.
func (c RuntimeClient) EnvName() (string, error) {
	if c.Env == "" {
		return EnvProduction, nil
	}
	if !ValidEnv(c.Env) {
		return "", Invalid("x-environment", "x-environment must be production or development")
	}
	return c.Env, nil
}

// Environment returns the environment of a the scope names, production when
// it names none. Returns validation_failed for any other name.
func (s Scope) Environment(a *Application) (*Environment, error) {
	name := s.Env
	if name == "" {
		name = EnvProduction
	}
	env := a.Env(name)
	if env == nil {
		return nil, Invalid("x-environment", "environment must be production or development")
	}
	return env, nil
}

// Resolve loads the scope's application with app (a storage's lookup,
// which checks the organization) and picks the environment the scope
// names. Returns what app returns, and validation_failed.
func (s Scope) Resolve(app func(AppRef) (*Application, error)) (*Application, *Environment, error) {
	a, err := app(s.App())
	if err != nil {
		return nil, nil, err
	}
	env, err := s.Environment(a)
	if err != nil {
		return nil, nil, err
	}
	return a, env, nil
}

// Check validates a new application secret's label and environment id and
// returns it with the label trimmed. Returns validation_failed.
func (in CreateSecretInput) Check() (CreateSecretInput, error) {
	var err error
	if in.Label, err = CheckOptionalName("label", in.Label); err != nil {
		return in, err
	}
	return in, CheckID("environment_id", in.EnvironmentID)
}

// Environment returns the environment of a the secret is for. Returns
// validation_failed when it is not one of a's.
func (in CreateSecretInput) Environment(a *Application) (*Environment, error) {
	env := a.EnvByID(in.EnvironmentID)
	if env == nil {
		return nil, Invalid("environment_id", "environment_id is not an environment of this application")
	}
	return env, nil
}

// CheckQuantity checks how many licenses one generation asks for: 1 to
// MaxGenerate.
func CheckQuantity(n int) error {
	if n < 1 || n > MaxGenerate {
		return Invalid("quantity", "quantity must be between 1 and %d", MaxGenerate)
	}
	return nil
}

// Check validates a generation before any transaction; Quantity 0 means 1.
// Returns validation_failed.
func (in GenerateLicensesInput) Check() (GenerateLicensesInput, error) {
	if in.Quantity == 0 {
		in.Quantity = 1
	}
	if err := CheckQuantity(in.Quantity); err != nil {
		return in, err
	}
	return in, CheckID("plan_id", in.PlanID)
}

// Expiry returns the expiry the generated licenses get, in UTC, or nil for
// none. Returns validation_failed unless it is after now.
func (in GenerateLicensesInput) Expiry(now time.Time) (*time.Time, error) {
	if in.ExpiresAt == nil {
		return nil, nil
	}
	e := in.ExpiresAt.UTC()
	if !e.After(now) {
		return nil, Invalid("expires_at", "expires_at must be in the future")
	}
	return &e, nil
}

// CheckEntitlementIDs checks the entitlement ids a plan or license names and
// returns them without duplicates, in the order given. find resolves an id
// within the application (not_found when it names none there); each id is
// checked in turn, so the first bad one is the one reported.
func CheckEntitlementIDs(in []string, find func(id string) error) ([]string, error) {
	if len(in) > MaxPlanEntitlementIDs {
		return nil, Invalid("entitlement_ids", "at most %d entitlement_ids", MaxPlanEntitlementIDs)
	}
	out := make([]string, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, id := range in {
		if !ValidID(id) {
			return nil, Invalid("entitlement_ids", "entitlement id %q is not a UUID", id)
		}
		if seen[id] {
			continue
		}
		if err := find(id); err != nil {
			return nil, Unknown(err, "entitlement_ids", "unknown entitlement id %s", id)
		}
		seen[id] = true
		out = append(out, id)
	}
	return out, nil
}

// Check validates a license list's filter and fills in the page defaults:
// values that could never be stored are refused rather than looked up.
// Returns validation_failed.
func (f *LicenseFilter) Check() error {
	if err := CheckStorableFields(f); err != nil {
		return err
	}
	if err := f.Normalize(); err != nil {
		return err
	}
	if err := LicenseStatus.CheckFilter(f.Status); err != nil {
		return err
	}
	if err := CheckOptionalID("plan_id", f.PlanID); err != nil {
		return err
	}
	if err := CheckOptionalID("user_id", f.UserID); err != nil {
		return err
	}
	if len(f.Key) > 200 {
		return Invalid("key", "key must be at most 200 characters")
	}
	if len(f.UserEmail) > MaxEmail {
		return Invalid("user_email", "user_email must be at most %d characters", MaxEmail)
	}
	return nil
}

// CheckDevices validates a filter of the device list: a status of a device,
// a fingerprint of at most MaxFingerprint bytes, no e-mail. Returns
// validation_failed.
func (f StatusFilter) CheckDevices() error {
	if err := CheckStorableFields(f); err != nil {
		return err
	}
	if err := DeviceStatus.CheckFilter(f.Status); err != nil {
		return err
	}
	if f.Email != "" {
		return Invalid("email", "email filters users, not devices")
	}
	if f.LicenseID != "" {
		if !ValidID(f.LicenseID) {
			return Invalid("license_id", "license_id must be a UUID")
		}
		if f.Status != "" || f.Fingerprint != "" {
			return Invalid("license_id", "license_id cannot be combined with status or fingerprint")
		}
	}
	if len(f.Fingerprint) > MaxFingerprint {
		return Invalid("fingerprint", "fingerprint must be at most %d bytes", MaxFingerprint)
	}
	return nil
}

// CheckEndUsers validates a filter of the end-user list: a status of a user,
// an e-mail of at most MaxEmail bytes, no fingerprint. Returns
// validation_failed.
func (f StatusFilter) CheckEndUsers() error {
	if err := CheckStorableFields(f); err != nil {
		return err
	}
	if err := UserStatus.CheckFilter(f.Status); err != nil {
		return err
	}
	if f.Fingerprint != "" {
		return Invalid("fingerprint", "fingerprint filters devices, not users")
	}
	if f.LicenseID != "" {
		return Invalid("license_id", "license_id filters devices, not users")
	}
	if len(f.Email) > MaxEmail {
		return Invalid("email", "email must be at most %d characters", MaxEmail)
	}
	return nil
}

// LoginEmail returns the address a sign-in names, trimmed and lower-cased as
// accounts keep it. Its form is not judged: a malformed address is answered
// like a wrong password, so that signing in tells nothing of which addresses
// exist. Text no account could hold is refused (CheckStorable). Returns
// validation_failed naming field.
func LoginEmail(field, email string) (string, error) {
	if err := CheckStorable(field, email); err != nil {
		return "", err
	}
	return strings.ToLower(strings.TrimSpace(email)), nil
}

// Check refuses a runtime client whose identification holds text no backend
// could have stored (CheckStorable), named by the header that carries it.
// Returns validation_failed.
func (c RuntimeClient) Check() error {
	if err := CheckStorable("x-api-key", c.PublicKey); err != nil {
		return err
	}
	if err := CheckStorable("x-application-id", c.AppID); err != nil {
		return err
	}
	return CheckStorable("x-environment", c.Env)
}

// Check normalizes the name and the support address and derives the slug
// from the name when none is given.
func (in CreateApplicationInput) Check() (CreateApplicationInput, error) {
	var err error
	if in.Name, err = CheckName("name", in.Name); err != nil {
		return in, err
	}
	if in.SupportEmail, err = CheckSupportEmail(in.SupportEmail); err != nil {
		return in, err
	}
	if in.Slug == "" {
		in.Slug, err = ApplicationSlug(in.Name)
		return in, err
	}
	return in, CheckSlug("slug", in.Slug)
}

// Check normalizes the fields present.
func (u ApplicationUpdate) Check() (ApplicationUpdate, error) {
	if u.Name != nil {
		n, err := CheckName("name", *u.Name)
		if err != nil {
			return u, err
		}
		u.Name = &n
	}
	if u.Status != nil {
		if err := AppStatus.Check(*u.Status); err != nil {
			return u, err
		}
	}
	if u.SupportEmail != nil {
		e, err := CheckSupportEmail(*u.SupportEmail)
		if err != nil {
			return u, err
		}
		u.SupportEmail = &e
	}
	return u, nil
}
