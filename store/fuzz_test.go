package store

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Fuzz targets for the parsers of untrusted input in the domain. Their
// seeds run with every `go test`; scripts/test fuzzes each briefly.

// FuzzNormalizeLicenseKey: the answer is "" or a canonical key, and
// normalising it again changes nothing.
func FuzzNormalizeLicenseKey(f *testing.F) {
	for _, s := range []string{"7KQ2M-9XW4T-HB3ZP-0D6RN-C5VYE", "7kq2m 9xw4t hb3zp od6rn c5vye", "", "-----", "ÅKQ2M-9XW4T-HB3ZP-0D6RN-C5VYE", strings.Repeat("A", 25), "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := NormalizeLicenseKey(in)
		if out == "" {
			return
		}
		if len(out) != 29 || NormalizeLicenseKey(out) != out || strings.Count(out, "-") != 4 {
			t.Fatalf("NormalizeLicenseKey(%q) = %q", in, out)
		}
	})
}

// FuzzTextFields: what a field check accepts is trimmed, within bounds and
// free of control and bidirectional characters; the error names the field.
func FuzzTextFields(f *testing.F) {
	for _, s := range []string{"Photo Studio", " x ", "a\x1b[2Jb", "\u202eevil", "", strings.Repeat("ß", 101), "\xff", "tab\there", "\u3164", "\u2800\u200b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checks := map[string]func(string) (string, error){
			"name":        func(v string) (string, error) { return CheckName("name", v) },
			"fingerprint": func(v string) (string, error) { return CheckFingerprint(v) },
			"phone":       func(v string) (string, error) { return CheckPhone("phone", v) },
			"email":       func(v string) (string, error) { return NormalizeEmail("email", v) },
			"tos":         func(v string) (string, error) { return CheckTOSVersion("tos", v) },
		}
		for name, check := range checks {
			out, err := check(in)
			if err != nil {
				if ErrorCode(err) != ECodeValidation || AsError(err).Field == "" {
					t.Fatalf("%s(%q): %v", name, in, err)
				}
				continue
			}
			if _, bad := UnsafeRune(out); bad || !utf8.ValidString(out) || out != strings.TrimSpace(out) || (name == "name" && Blank(out)) {
				t.Fatalf("%s(%q) accepted %q", name, in, out)
			}
		}
		if err := CheckSlug("slug", in); err == nil && (len(in) < 3 || Printable(in) != in || strings.ToLower(in) != in) {
			t.Fatalf("CheckSlug accepted %q", in)
		}
	})
}

// FuzzValidID: only canonical lower-case UUIDs are ids.
func FuzzValidID(f *testing.F) {
	for _, s := range []string{NewID(), strings.ToUpper(NewID()), "", "0193a5c2-7d1e-7c3a-9b1f-2f6e8d9c0a1", "{" + NewID() + "}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ValidID(s) && (len(s) != 36 || strings.Count(s, "-") != 4) {
			t.Fatalf("ValidID(%q)", s)
		}
	})
}
