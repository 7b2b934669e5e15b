package store

import (
	"net/mail"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text bounds of docs/design.md §8, in characters after trimming. Every backend
// applies them through the Check functions below, so a record any backend
// writes is one every other backend accepts.
const (
	MaxName        = 100  // names of people, organizations, applications, plans, entitlements; labels
	MaxDescription = 1000 // entitlement descriptions
	MaxExternalID  = 200  // a plan's external_product_id
	MaxTOSVersion  = 64   // signup's tos_accepted_version
	MaxEmail       = 254  // RFC 5321 path limit
	MaxLicenseKey  = 128  // far above any generated key; bounds what a lookup reads
)

// UnsafeRune reports the first rune of s that no stored text may hold, and
// whether there is one: invalid UTF-8 (reported as utf8.RuneError), C0 and C1
// control characters (DEL included) and the bidirectional embeddings,
// overrides and isolates (U+202A–U+202E, U+2066–U+2069), which let a string
// print as something it is not. Tabs and newlines are controls too: no
// single-line field needs them.
func UnsafeRune(s string) (rune, bool) {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return r, true
			}
		}
		if unsafeRune(r) {
			return r, true
		}
	}
	return 0, false
}

func unsafeRune(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// CheckText trims v and checks that it holds min to max characters and
// nothing UnsafeRune refuses. min 0 makes the field optional. Returns the
// trimmed value, or validation_failed naming field.
func CheckText(field, v string, min, max int) (string, error) {
	v = strings.TrimSpace(v)
	if r, bad := UnsafeRune(v); bad {
		if r == utf8.RuneError {
			return "", Invalid(field, "%s must be valid UTF-8", field)
		}
		return "", Invalid(field, "%s must not contain control characters or bidirectional overrides (found U+%04X)", field, r)
	}
	switch n := utf8.RuneCountInString(v); {
	case n == 0 && min > 0:
		return "", Invalid(field, "%s is required", field)
	case n < min:
		return "", Invalid(field, "%s must be at least %d characters", field, min)
	case n > max:
		return "", Invalid(field, "%s must be at most %d characters", field, max)
	}
	return v, nil
}

// CheckName checks a required display name: a person's first or last name,
// an organization, application, plan or entitlement name. Besides
// CheckText's rules, a name must show something (Blank refuses it).
func CheckName(field, v string) (string, error) { return checkName(field, v, 1) }

// CheckOptionalName checks a name that may be empty (a member added by an
// admin may have no first or last name) or a credential's label; one that is
// not empty must show something, as with CheckName.
func CheckOptionalName(field, v string) (string, error) { return checkName(field, v, 0) }

func checkName(field, v string, min int) (string, error) {
	v, err := CheckText(field, v, min, MaxName)
	if err != nil || v == "" {
		return v, err
	}
	if Blank(v) {
		return "", Invalid(field, "%s must show something: it holds only blank, filler or format characters", field)
	}
	return v, nil
}

// CheckFingerprint checks a device fingerprint as the runtime sends it.
func CheckFingerprint(v string) (string, error) {
	return CheckText("device_fingerprint", v, 1, MaxFingerprint)
}

// CheckSlug checks an application slug; field is the request field it came
// from ("name" when it was derived from the name).
func CheckSlug(field, v string) error {
	if !ValidSlug(v) {
		return Invalid(field, "slug must match ^[a-z][a-z0-9-]{1,61}[a-z0-9]$ without --")
	}
	return nil
}

// CheckKey checks an entitlement key or end-user role id.
func CheckKey(field, v string) error {
	if !ValidKey(v) {
		return Invalid(field, "%s must match ^[a-z0-9][a-z0-9._:-]{0,63}$", field)
	}
	return nil
}

// CheckLicenseKey checks a license key a caller presents for a lookup. Keys
// are generated, so this refuses only what no key can be: empty, overlong or
// unprintable input, which would otherwise be echoed into logs and audit.
func CheckLicenseKey(field, v string) (string, error) {
	return CheckText(field, v, 1, MaxLicenseKey)
}

// NormalizeEmail trims and lower-cases an address and checks its form.
func NormalizeEmail(field, email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	if e == "" {
		return "", Invalid(field, "%s is required", field)
	}
	if _, bad := UnsafeRune(e); bad {
		return "", Invalid(field, "%s is not a valid e-mail address", field)
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || len(e) > MaxEmail || !strings.Contains(e[strings.LastIndexByte(e, '@')+1:], ".") {
		return "", Invalid(field, "%s is not a valid e-mail address", field)
	}
	return e, nil
}

var (
	e164RE        = regexp.MustCompile(`^\+[0-9]{8,15}$`)
	phoneSepsRepl = strings.NewReplacer(" ", "", "-", "", ".", "", "(", "", ")", "")
)

// CheckPhone checks a phone number, which signup and complete-profile
// require, in E.164 form: "+" and 8 to 15 digits. Spaces, hyphens, dots and parentheses
// between the digits are accepted as people write them and dropped: the
// stored form is compact.
func CheckPhone(field, v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", Invalid(field, "%s is required", field)
	}
	p := phoneSepsRepl.Replace(v)
	if !e164RE.MatchString(p) {
		return "", Invalid(field, "%s must be in E.164 form: + and 8 to 15 digits", field)
	}
	return p, nil
}

// CheckTOSVersion checks the terms-of-service version a signup accepts:
// 1 to 64 printable characters.
func CheckTOSVersion(field, v string) (string, error) {
	v, err := CheckText(field, v, 1, MaxTOSVersion)
	if err != nil {
		return "", err
	}
	for _, r := range v {
		if !unicode.IsPrint(r) {
			return "", Invalid(field, "%s must be printable characters", field)
		}
	}
	return v, nil
}

// Check validates what signup and complete-profile both ask of a person
// (docs/design.md §8) and returns the fields trimmed, the phone compact.
// Returns validation_failed naming the field.
func (in ProfileInput) Check() (ProfileInput, error) {
	var err error
	if in.FirstName, err = CheckName("first_name", in.FirstName); err != nil {
		return in, err
	}
	if in.LastName, err = CheckName("last_name", in.LastName); err != nil {
		return in, err
	}
	if in.OrganizationName, err = CheckName("organization_name", in.OrganizationName); err != nil {
		return in, err
	}
	if in.Phone, err = CheckPhone("phone", in.Phone); err != nil {
		return in, err
	}
	if in.TOSVersion, err = CheckTOSVersion("tos_accepted_version", in.TOSVersion); err != nil {
		return in, err
	}
	return in, nil
}
