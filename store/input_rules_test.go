package store

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// ruleCase is one input rule applied to one value: the field and message
// it must refuse with, or "" for a value it accepts. Messages are pinned:
// they reach clients byte for byte through every backend.
type ruleCase struct {
	name  string
	check func() error
	field string
	msg   string
}

func runRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.check()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			e := AsError(err)
			if e == nil || e.Code != ECodeValidation || e.Field != tt.field || e.Message != tt.msg {
				t.Fatalf("got %v (field %q), want validation_failed on %s: %q", err, fieldOf(e), tt.field, tt.msg)
			}
		})
	}
}

func fieldOf(e *Error) string {
	if e == nil {
		return ""
	}
	return e.Field
}

const goodNonce = "0123456789abcdef"

func TestReplayCheck(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	nonceMsg := "nonce must be 16 to 128 printable characters"
	runRuleCases(t, []ruleCase{
		{"OK", Replay{Timestamp: now, Nonce: goodNonce}.Check, "", ""},
		{"OK/Max", Replay{Timestamp: now, Nonce: strings.Repeat("~", MaxNonce)}.Check, "", ""},
		{"ErrValidation/NoTimestamp", Replay{Nonce: goodNonce}.Check, "timestamp", "timestamp is required (RFC 3339)"},
		{"ErrValidation/ShortNonce", Replay{Timestamp: now, Nonce: goodNonce[1:]}.Check, "nonce", nonceMsg},
		{"ErrValidation/LongNonce", Replay{Timestamp: now, Nonce: strings.Repeat("n", MaxNonce+1)}.Check, "nonce", nonceMsg},
		{"ErrValidation/SpaceInNonce", Replay{Timestamp: now, Nonce: "0123456789 abcdef"}.Check, "nonce", nonceMsg},
		{"ErrValidation/DELInNonce", Replay{Timestamp: now, Nonce: goodNonce + "\x7f"}.Check, "nonce", nonceMsg},
		{"ErrValidation/NonASCIINonce", Replay{Timestamp: now, Nonce: goodNonce + "é"}.Check, "nonce", nonceMsg},
	})
}

func TestCheckEndUserPassword(t *testing.T) {
	common := func(pw string) bool { return strings.EqualFold(pw, "password123") }
	check := func(pw string) func() error { return func() error { return CheckEndUserPassword(pw, common) } }
	runRuleCases(t, []ruleCase{
		{"OK", check("correct horse"), "", ""},
		{"OK/MinRunes", check("éééééééé"), "", ""},
		{"OK/MaxRunes", check(strings.Repeat("日", MaxEndUserPassword)), "", ""},
		{"ErrValidation/Empty", check(""), "password", "password is required"},
		{"ErrValidation/BadUTF8", check("abcdefgh\xff"), "password", "password must be valid UTF-8"},
		{"ErrValidation/Short", check("1234567"), "password", "password must be at least 8 characters"},
		{"ErrValidation/Long", check(strings.Repeat("x", MaxEndUserPassword+1)), "password", "password must be at most 256 characters"},
		{"ErrValidation/Common", check("PASSWORD123"), "password", "password is too common"},
	})
}

func TestCheckPassword(t *testing.T) {
	policy := func(pw, email string) error {
		if strings.Contains(pw, strings.Split(email, "@")[0]) {
			return Invalid("password", "password must not contain your e-mail address")
		}
		return nil
	}
	down := errors.New("policy down")
	runRuleCases(t, []ruleCase{
		{"OK", func() error { return CheckPassword("password", "unrelated words", "ann@x.io", policy) }, "", ""},
		{"OK/NoPolicy", func() error { return CheckPassword("password", "ann", "ann@x.io", nil) }, "", ""},
		{"ErrValidation/Required", func() error { return CheckPassword("password", "", "ann@x.io", policy) }, "password", "password is required"},
		{"ErrValidation/NewRequired", func() error { return CheckPassword("new_password", "", "ann@x.io", policy) }, "new_password", "new_password is required"},
		{"ErrValidation/Policy", func() error { return CheckPassword("password", "ann-secret", "ann@x.io", policy) }, "password", "password must not contain your e-mail address"},
		{"ErrValidation/PolicyRenamed", func() error { return CheckPassword("new_password", "ann-secret", "ann@x.io", policy) }, "new_password", "new_password must not contain your e-mail address"},
	})
	t.Run("ErrInternal/PolicyFailsPassesThrough", func(t *testing.T) {
		if err := CheckPassword("new_password", "x", "", func(string, string) error { return down }); !errors.Is(err, down) {
			t.Fatalf("got %v, want %v", err, down)
		}
	})
}

func TestCheckRoleAndIDs(t *testing.T) {
	id := NewID()
	runRuleCases(t, []ruleCase{
		{"OK/Role", func() error { return CheckRole("role", RoleViewer) }, "", ""},
		{"ErrValidation/Role", func() error { return CheckRole("role", "root") }, "role", "role must be owner, admin, developer or viewer"},
		{"OK/ID", func() error { return CheckID("device_id", id) }, "", ""},
		{"ErrValidation/IDRequired", func() error { return CheckID("device_id", "") }, "device_id", "device_id is required"},
		{"ErrValidation/IDNotUUID", func() error { return CheckID("device_id", "dev-1") }, "device_id", "device_id must be a UUID"},
		{"OK/OptionalIDEmpty", func() error { return CheckOptionalID("plan_id", "") }, "", ""},
		{"ErrValidation/OptionalIDNotUUID", func() error { return CheckOptionalID("plan_id", "x") }, "plan_id", "plan_id must be a UUID"},
		{"ErrValidation/UnknownTurnsNotFound", func() error { return Unknown(NotFound("plan"), "plan_id", "unknown plan %s", id) }, "plan_id", "unknown plan " + id},
	})
	t.Run("ErrConflict/UnknownPassesOthers", func(t *testing.T) {
		in := Errorf(ECodeConflict, "busy")
		if err := Unknown(in, "plan_id", "unknown"); err != in {
			t.Fatalf("got %v, want %v", err, in)
		}
	})
}

func TestRuntimeInputChecks(t *testing.T) {
	now := time.Now()
	login := RuntimeLoginInput{Email: " Ann@Example.COM ", Password: "pw", Fingerprint: " fp ", Replay: Replay{Timestamp: now, Nonce: goodNonce}}
	t.Run("OK/Login", func(t *testing.T) {
		got, err := login.Check()
		if err != nil || got.Email != "ann@example.com" || got.Fingerprint != "fp" || got.Password != "pw" {
			t.Fatalf("got %+v, %v", got, err)
		}
	})
	act := ActivateInput{LicenseKey: "abcde-fghjk", Fingerprint: " fp ", Replay: Replay{Timestamp: now, Nonce: goodNonce}}
	t.Run("OK/Activate", func(t *testing.T) {
		got, err := act.Check()
		if err != nil || got.LicenseKey != NormalizeLicenseKey("abcde-fghjk") || got.Fingerprint != "fp" {
			t.Fatalf("got %+v, %v", got, err)
		}
	})
	t.Run("OK/DeviceReset", func(t *testing.T) {
		got, err := DeviceResetInput{LicenseKey: "abcde-fghjk", Fingerprint: " fp "}.Check()
		if err != nil || got.LicenseKey != NormalizeLicenseKey("abcde-fghjk") || got.Fingerprint != "fp" {
			t.Fatalf("got %+v, %v", got, err)
		}
	})
	withLogin := func(mut func(*RuntimeLoginInput)) func() error {
		return func() error { in := login; mut(&in); _, err := in.Check(); return err }
	}
	withAct := func(mut func(*ActivateInput)) func() error {
		return func() error { in := act; mut(&in); _, err := in.Check(); return err }
	}
	runRuleCases(t, []ruleCase{
		{"ErrValidation/LoginEmail", withLogin(func(in *RuntimeLoginInput) { in.Email = "ann" }), "email", "email is not a valid e-mail address"},
		{"ErrValidation/LoginPassword", withLogin(func(in *RuntimeLoginInput) { in.Password = "" }), "password", "password is required"},
		{"ErrValidation/LoginFingerprint", withLogin(func(in *RuntimeLoginInput) { in.Fingerprint = " " }), "device_fingerprint", "device_fingerprint is required"},
		{"ErrValidation/LoginReplay", withLogin(func(in *RuntimeLoginInput) { in.Nonce = "short" }), "nonce", "nonce must be 16 to 128 printable characters"},
		{"ErrValidation/ActivateKey", withAct(func(in *ActivateInput) { in.LicenseKey = "" }), "license_key", "license_key is required"},
		{"ErrValidation/ActivateFingerprint", withAct(func(in *ActivateInput) { in.Fingerprint = "a\x1bb" }), "device_fingerprint", "device_fingerprint must not contain control characters or bidirectional overrides (found U+001B)"},
		{"ErrValidation/ActivateReplay", withAct(func(in *ActivateInput) { in.Timestamp = time.Time{} }), "timestamp", "timestamp is required (RFC 3339)"},
		{"ErrValidation/ResetKey", func() error { _, err := DeviceResetInput{LicenseKey: "k\x00", Fingerprint: "fp"}.Check(); return err },
			"license_key", "license_key must not contain control characters or bidirectional overrides (found U+0000)"},
		{"ErrValidation/ResetFingerprint", func() error { _, err := DeviceResetInput{LicenseKey: "k"}.Check(); return err }, "device_fingerprint", "device_fingerprint or device_id is required"},
		{"ErrValidation/ResetBoth", func() error {
			_, err := DeviceResetInput{LicenseKey: "k", Fingerprint: "fp", DeviceID: "00000000-0000-4000-8000-000000000000"}.Check()
			return err
		}, "device_fingerprint", "send device_fingerprint or device_id, not both"},
		{"ErrValidation/ResetDeviceID", func() error { _, err := DeviceResetInput{LicenseKey: "k", DeviceID: "pc"}.Check(); return err }, "device_id", "device_id must be a UUID"},
		{"OK/ResetDeviceID", func() error {
			_, err := DeviceResetInput{LicenseKey: "k", DeviceID: "00000000-0000-4000-8000-000000000000"}.Check()
			return err
		}, "", ""},
		{"OK/EnvDefault", func() error { n, err := RuntimeClient{}.EnvName(); return errIf(n != EnvProduction, err) }, "", ""},
		{"OK/EnvDevelopment", func() error {
			n, err := RuntimeClient{Env: EnvDevelopment}.EnvName()
			return errIf(n != EnvDevelopment, err)
		}, "", ""},
		{"ErrValidation/EnvName", func() error { _, err := RuntimeClient{Env: "staging"}.EnvName(); return err }, "x-environment", "x-environment must be production or development"},
	})
}

// errIf is err, or a plain error when bad: a wrong value from a check that
// did not fail.
func errIf(bad bool, err error) error {
	if err == nil && bad {
		return errors.New("wrong value")
	}
	return err
}

func TestScopeAndSecretEnvironment(t *testing.T) {
	a := &Application{Environments: []Environment{{ID: NewID(), Name: EnvDevelopment}, {ID: NewID(), Name: EnvProduction}}}
	scopeEnv := func(name, want string) func() error {
		return func() error {
			env, err := Scope{Env: name}.Environment(a)
			return errIf(err == nil && env.Name != want, err)
		}
	}
	secret := func(in CreateSecretInput) func() error {
		return func() error { _, err := in.Check(); return err }
	}
	runRuleCases(t, []ruleCase{
		{"OK/ScopeDefault", scopeEnv("", EnvProduction), "", ""},
		{"OK/ScopeDevelopment", scopeEnv(EnvDevelopment, EnvDevelopment), "", ""},
		{"ErrValidation/ScopeName", scopeEnv("staging", ""), "x-environment", "environment must be production or development"},
		{"OK/Secret", secret(CreateSecretInput{EnvironmentID: a.Environments[0].ID, Label: " ci "}), "", ""},
		{"ErrValidation/SecretLabel", secret(CreateSecretInput{EnvironmentID: a.Environments[0].ID, Label: "c\x00i"}), "label", "label must not contain control characters or bidirectional overrides (found U+0000)"},
		{"ErrValidation/SecretEnvRequired", secret(CreateSecretInput{}), "environment_id", "environment_id is required"},
		{"ErrValidation/SecretEnvNotUUID", secret(CreateSecretInput{EnvironmentID: "production"}), "environment_id", "environment_id must be a UUID"},
		{"OK/SecretEnvOfApp", func() error {
			env, err := CreateSecretInput{EnvironmentID: a.Environments[1].ID}.Environment(a)
			return errIf(err == nil && env.Name != EnvProduction, err)
		}, "", ""},
		{"ErrValidation/SecretEnvOfOtherApp", func() error { _, err := CreateSecretInput{EnvironmentID: NewID()}.Environment(a); return err },
			"environment_id", "environment_id is not an environment of this application"},
	})
	t.Run("OK/SecretLabelTrimmed", func(t *testing.T) {
		if got, _ := (CreateSecretInput{EnvironmentID: a.Environments[0].ID, Label: " ci "}).Check(); got.Label != "ci" {
			t.Fatalf("label %q, want %q", got.Label, "ci")
		}
	})
}

func TestGenerateLicensesInputCheck(t *testing.T) {
	plan := NewID()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	gen := func(in GenerateLicensesInput) func() error {
		return func() error { _, err := in.Check(); return err }
	}
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	quantityMsg := "quantity must be between 1 and 1000"
	runRuleCases(t, []ruleCase{
		{"OK/ZeroMeansOne", func() error {
			in, err := GenerateLicensesInput{PlanID: plan}.Check()
			return errIf(in.Quantity != 1, err)
		}, "", ""},
		{"OK/Max", gen(GenerateLicensesInput{PlanID: plan, Quantity: MaxGenerate}), "", ""},
		{"ErrValidation/Negative", gen(GenerateLicensesInput{PlanID: plan, Quantity: -1}), "quantity", quantityMsg},
		{"ErrValidation/TooMany", gen(GenerateLicensesInput{PlanID: plan, Quantity: MaxGenerate + 1}), "quantity", quantityMsg},
		{"ErrValidation/CheckQuantityZero", func() error { return CheckQuantity(0) }, "quantity", quantityMsg},
		{"ErrValidation/PlanRequired", gen(GenerateLicensesInput{Quantity: 1}), "plan_id", "plan_id is required"},
		{"ErrValidation/PlanNotUUID", gen(GenerateLicensesInput{PlanID: "pro", Quantity: 1}), "plan_id", "plan_id must be a UUID"},
		{"OK/NoExpiry", func() error { e, err := GenerateLicensesInput{}.Expiry(now); return errIf(e != nil, err) }, "", ""},
		{"OK/FutureExpiry", func() error {
			e, err := GenerateLicensesInput{ExpiresAt: &future}.Expiry(now)
			return errIf(err == nil && (!e.Equal(future) || e.Location() != time.UTC), err)
		}, "", ""},
		{"ErrValidation/PastExpiry", func() error { _, err := GenerateLicensesInput{ExpiresAt: &past}.Expiry(now); return err }, "expires_at", "expires_at must be in the future"},
		{"ErrValidation/NowExpiry", func() error { _, err := GenerateLicensesInput{ExpiresAt: &now}.Expiry(now); return err }, "expires_at", "expires_at must be in the future"},
	})
}

func TestCheckEntitlementIDs(t *testing.T) {
	known, other := NewID(), NewID()
	find := func(id string) error {
		if id == known {
			return nil
		}
		return NotFound("entitlement")
	}
	t.Run("OK/Deduplicated", func(t *testing.T) {
		got, err := CheckEntitlementIDs([]string{known, known}, find)
		if err != nil || len(got) != 1 || got[0] != known {
			t.Fatalf("got %v, %v", got, err)
		}
	})
	check := func(ids ...string) func() error {
		return func() error { _, err := CheckEntitlementIDs(ids, find); return err }
	}
	tooMany := make([]string, MaxPlanEntitlementIDs+1)
	for i := range tooMany {
		tooMany[i] = known
	}
	runRuleCases(t, []ruleCase{
		{"OK/None", check(), "", ""},
		{"ErrValidation/TooMany", check(tooMany...), "entitlement_ids", "at most 1000 entitlement_ids"},
		{"ErrValidation/NotUUID", check(known, "export"), "entitlement_ids", `entitlement id "export" is not a UUID`},
		{"ErrValidation/Unknown", check(known, other), "entitlement_ids", "unknown entitlement id " + other},
		// Ids are taken in turn: an unknown id before a malformed one is the one reported.
		{"ErrValidation/FirstBadWins", check(other, "export"), "entitlement_ids", "unknown entitlement id " + other},
	})
	t.Run("ErrInternal/LookupFailsPassesThrough", func(t *testing.T) {
		down := errors.New("disk")
		if _, err := CheckEntitlementIDs([]string{known}, func(string) error { return down }); !errors.Is(err, down) {
			t.Fatalf("got %v, want %v", err, down)
		}
	})
}

func TestListFilterChecks(t *testing.T) {
	lic := func(f LicenseFilter) func() error { return func() error { return f.Check() } }
	runRuleCases(t, []ruleCase{
		{"OK/License", lic(LicenseFilter{Status: LicenseActive, PlanID: NewID(), UserID: NewID(), Key: "K", UserEmail: "a@x.io"}), "", ""},
		{"ErrValidation/LicensePage", lic(LicenseFilter{PageRequest: PageRequest{Page: -1}}), "page", "page must be at least 1"},
		{"ErrValidation/LicenseStatus", lic(LicenseFilter{Status: "gone"}), "status", AsError(LicenseStatus.CheckFilter("gone")).Message},
		{"ErrValidation/LicensePlan", lic(LicenseFilter{PlanID: "pro"}), "plan_id", "plan_id must be a UUID"},
		{"ErrValidation/LicenseUser", lic(LicenseFilter{UserID: "ann"}), "user_id", "user_id must be a UUID"},
		{"ErrValidation/LicenseKey", lic(LicenseFilter{Key: strings.Repeat("k", 201)}), "key", "key must be at most 200 characters"},
		{"ErrValidation/LicenseUserEmail", lic(LicenseFilter{UserEmail: strings.Repeat("e", 255)}), "user_email", "user_email must be at most 254 characters"},
		{"OK/Devices", StatusFilter{Status: DeviceBlocked, Fingerprint: strings.Repeat("f", MaxFingerprint)}.CheckDevices, "", ""},
		{"ErrValidation/DevicesStatus", StatusFilter{Status: "gone"}.CheckDevices, "status", AsError(DeviceStatus.CheckFilter("gone")).Message},
		{"ErrValidation/DevicesEmail", StatusFilter{Email: "a@x.io"}.CheckDevices, "email", "email filters users, not devices"},
		{"ErrValidation/DevicesFingerprint", StatusFilter{Fingerprint: strings.Repeat("f", MaxFingerprint+1)}.CheckDevices, "fingerprint", "fingerprint must be at most 256 bytes"},
		{"OK/EndUsers", StatusFilter{Status: UserActive, Email: strings.Repeat("e", MaxEmail)}.CheckEndUsers, "", ""},
		{"ErrValidation/EndUsersStatus", StatusFilter{Status: "gone"}.CheckEndUsers, "status", AsError(UserStatus.CheckFilter("gone")).Message},
		{"ErrValidation/EndUsersFingerprint", StatusFilter{Fingerprint: "fp"}.CheckEndUsers, "fingerprint", "fingerprint filters devices, not users"},
		{"ErrValidation/EndUsersEmail", StatusFilter{Email: strings.Repeat("e", MaxEmail+1)}.CheckEndUsers, "email", "email must be at most 254 characters"},
	})
	t.Run("OK/LicensePageDefaults", func(t *testing.T) {
		f := LicenseFilter{}
		if err := f.Check(); err != nil || f.Page != 1 || f.PerPage != DefaultPerPage {
			t.Fatalf("got %+v, %v", f.PageRequest, err)
		}
	})
}

// payments is a PaymentProvider that accepts one payer and records what it
// was asked.
type payments struct{ phone, doc string }

func (p *payments) CheckPayer(phone, document string) (Payer, error) {
	p.phone, p.doc = phone, document
	if phone != "+5581987654321" {
		return Payer{}, Invalid("customer_phone", "customer_phone must be an E.164 number such as +5511987654321")
	}
	return Payer{Phone: phone, Document: document, DocumentKind: "cpf"}, nil
}

func (p *payments) Request(string, int64) (string, string, error) { return "code", "qr", nil }

func TestCheckCheckout(t *testing.T) {
	pay := &payments{}
	p := &BillingPolicy{Payments: pay, Tiers: []Tier{{Key: "free"}, {Key: "pro", PriceCents: 4900}, {Key: "team", PriceCents: 9900}}}
	in := CheckoutInput{PlanKey: " pro ", CustomerPhone: "+5581987654321", CustomerDocument: "11144477735"}
	t.Run("OK", func(t *testing.T) {
		tier, payer, err := p.CheckCheckout(in)
		if err != nil || tier.Key != "pro" || payer.DocumentKind != "cpf" || pay.doc != in.CustomerDocument {
			t.Fatalf("got %+v, %+v, %v", tier, payer, err)
		}
	})
	with := func(mut func(*CheckoutInput)) func() error {
		return func() error { c := in; mut(&c); _, _, err := p.CheckCheckout(c); return err }
	}
	paidMsg := "billing_plan_key must be a paid plan: pro, team"
	runRuleCases(t, []ruleCase{
		{"ErrValidation/PlanRequired", with(func(c *CheckoutInput) { c.PlanKey = "  " }), "billing_plan_key", "billing_plan_key is required"},
		{"ErrValidation/PlanUnknown", with(func(c *CheckoutInput) { c.PlanKey = "gold" }), "billing_plan_key", paidMsg},
		{"ErrValidation/PlanFree", with(func(c *CheckoutInput) { c.PlanKey = "free" }), "billing_plan_key", paidMsg},
		{"ErrValidation/PayerFromProvider", with(func(c *CheckoutInput) { c.CustomerPhone = "081" }), "customer_phone", "customer_phone must be an E.164 number such as +5511987654321"},
	})
	t.Run("ErrUnavailable", func(t *testing.T) {
		// The setting is checked first: an operator's fix, whatever the fields.
		_, _, err := (&BillingPolicy{Tiers: p.Tiers}).CheckCheckout(CheckoutInput{})
		if e := AsError(err); e == nil || e.Code != ECodeUnavailable || e.Message != "Pix checkout is not configured: the operator must set billing.pix.key" {
			t.Fatalf("got %v", err)
		}
	})
}

func TestReplayWindowAndNonce(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	window := 5 * time.Minute
	stale := "timestamp is outside the accepted window of ±5m0s"
	for _, tt := range []struct {
		name string
		ts   time.Time
		code string
	}{
		{"OK/Now", now, ""},
		{"OK/EdgePast", now.Add(-window), ""},
		{"OK/EdgeFuture", now.Add(window), ""},
		{"ErrStaleTimestamp/Past", now.Add(-window - time.Nanosecond), ECodeStaleTimestamp},
		{"ErrStaleTimestamp/Future", now.Add(window + time.Nanosecond), ECodeStaleTimestamp},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := Replay{Timestamp: tt.ts}.CheckWindow(now, window)
			if ErrorCode(err) != tt.code || (err != nil && ErrorMessage(err) != stale) {
				t.Fatalf("got %v, want %q", err, tt.code)
			}
		})
	}
	t.Run("OK/UsedUntilFromTheLaterOfTimestampAndNow", func(t *testing.T) {
		if got := (Replay{Timestamp: now.Add(time.Minute)}).UsedUntil(now, window); !got.Equal(now.Add(time.Minute + window)) {
			t.Fatalf("future timestamp: used until %v", got)
		}
		if got := (Replay{Timestamp: now.Add(-time.Minute)}).UsedUntil(now, window); !got.Equal(now.Add(window)) {
			t.Fatalf("past timestamp: used until %v", got)
		}
	})
	for _, tt := range []struct {
		name  string
		until time.Time
		code  string
	}{
		{"OK/NeverUsed", time.Time{}, ""},
		{"OK/UseExpired", now, ""},
		{"ErrNonceReused/StillUsed", now.Add(time.Nanosecond), ECodeNonceReused},
	} {
		t.Run("Nonce/"+tt.name, func(t *testing.T) {
			if err := CheckNonceUnused(tt.until, now); ErrorCode(err) != tt.code {
				t.Fatalf("got %v, want %q", err, tt.code)
			}
		})
	}
}

func TestMachineFileInputCheck(t *testing.T) {
	rp := Replay{Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Nonce: goodNonce}
	runRuleCases(t, []ruleCase{
		{"OK/Plain", MachineFileInput{Replay: rp}.Check, "", ""},
		{"ErrValidation/Replay", MachineFileInput{Replay: Replay{Nonce: goodNonce}}.Check, "timestamp", "timestamp is required (RFC 3339)"},
		{"ErrValidation/EncryptWithoutKey", MachineFileInput{Encrypt: true, Replay: rp}.Check, "license_key", "license_key is required to encrypt the file"},
		{"ErrValidation/ControlInKey", MachineFileInput{Encrypt: true, LicenseKey: "ABCD-\x07", Replay: rp}.Check, "license_key", AsError(func() error { _, err := CheckLicenseKey("license_key", "ABCD-\x07"); return err }()).Message},
	})
}

// TestScopeResolve: the application comes from the lookup asked for the
// scope's organization and application; its environment by name,
// production by default.
func TestScopeResolve(t *testing.T) {
	app := &Application{ID: "a1", OrgID: "o1", Environments: []Environment{{ID: "e1", Name: EnvDevelopment}, {ID: "e2", Name: EnvProduction}}}
	dev, prod := &app.Environments[0], &app.Environments[1]
	lookup := func(ref AppRef) (*Application, error) {
		if ref != (AppRef{OrgID: "o1", AppID: "a1"}) {
			return nil, NotFound("application")
		}
		return app, nil
	}
	for _, tt := range []struct {
		name    string
		s       Scope
		wantEnv *Environment
		code    string
	}{
		{"OKDefaultProduction", Scope{OrgID: "o1", AppID: "a1"}, prod, ""},
		{"OKDevelopment", Scope{OrgID: "o1", AppID: "a1", Env: EnvDevelopment}, dev, ""},
		{"ErrNotFoundOtherOrg", Scope{OrgID: "o2", AppID: "a1"}, nil, ECodeNotFound},
		{"ErrValidationFailedEnv", Scope{OrgID: "o1", AppID: "a1", Env: "staging"}, nil, ECodeValidation},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, env, err := tt.s.Resolve(lookup)
			if tt.code != "" {
				if ErrorCode(err) != tt.code || a != nil || env != nil {
					t.Fatalf("got %v, %v, %v; want %s", a, env, err, tt.code)
				}
				return
			}
			if err != nil || a != app || env != tt.wantEnv {
				t.Fatalf("got %v, %v, %v; want %v, %v", a, env, err, app, tt.wantEnv)
			}
		})
	}
}
