package store

import (
	"fmt"
	"strings"
	"testing"
)

// wantInvalid fails unless err is validation_failed naming field.
func wantInvalid(t *testing.T, err error, field string) {
	t.Helper()
	e := AsError(err)
	if e == nil || e.Code != ECodeValidation || e.Field != field {
		t.Fatalf("err = %v, want validation_failed on %s", err, field)
	}
	if !strings.Contains(e.Message, field) && !strings.Contains(e.Message, "slug") {
		t.Errorf("message %q does not name the field %s", e.Message, field)
	}
}

// refused are the characters docs/design.md §8 refuses in every text field: C0
// controls, DEL, C1 controls, bidirectional embeddings, overrides and isolates.
var refused = []string{"\x00", "\t", "\n", "\x1b", "\x1b]0;pwned\x07", "\x7f", "\u0085", "\u009b", "\u202a", "\u202e", "\u2066", "\u2069", "\xff"}

func TestCheckText(t *testing.T) {
	ok := []struct{ name, in, want string }{
		{"Plain", "Acme", "Acme"},
		{"Trimmed", "  Acme  ", "Acme"},
		{"Unicode", "Ünïcødé 日本 🚀", "Ünïcødé 日本 🚀"},
		{"Max", strings.Repeat("é", MaxName), strings.Repeat("é", MaxName)},
		{"ZeroWidthJoinerAllowed", "a\u200db", "a\u200db"},
		{"LeftToRightMarkAllowed", "a\u200eb", "a\u200eb"},
	}
	for _, tt := range ok {
		t.Run("OK/"+tt.name, func(t *testing.T) {
			got, err := CheckName("name", tt.in)
			if err != nil || got != tt.want {
				t.Fatalf("CheckName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
	bad := []struct{ name, in string }{
		{"Empty", ""},
		{"Spaces", "   "},
		{"TooLong", strings.Repeat("x", MaxName+1)},
	}
	for _, r := range refused {
		bad = append(bad, struct{ name, in string }{fmt.Sprintf("Refused%q", r), "a" + r + "b"})
	}
	for _, tt := range bad {
		t.Run("ErrValidation/"+tt.name, func(t *testing.T) {
			_, err := CheckName("name", tt.in)
			wantInvalid(t, err, "name")
		})
	}
	t.Run("OK/OptionalEmpty", func(t *testing.T) {
		if got, err := CheckOptionalName("label", "  "); err != nil || got != "" {
			t.Fatalf("got %q, %v", got, err)
		}
	})
	t.Run("ErrValidation/OptionalControl", func(t *testing.T) {
		_, err := CheckOptionalName("label", "ci\x1b[2J")
		wantInvalid(t, err, "label")
	})
}

func TestUnsafeRuneReportsTheRune(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want rune
		bad  bool
	}{
		{"plain", 0, false}, {"a\x1bb", 0x1b, true}, {"a\u202eb", 0x202e, true}, {"\xc3", 0xfffd, true}, {"\ufffd", 0, false},
	} {
		r, bad := UnsafeRune(tt.in)
		if r != tt.want || bad != tt.bad {
			t.Errorf("UnsafeRune(%q) = %U, %v; want %U, %v", tt.in, r, bad, tt.want, tt.bad)
		}
	}
}

func TestFieldChecks(t *testing.T) {
	type check func(string) (string, error)
	fields := []struct {
		field string
		check check
		ok    map[string]string // input → stored
		bad   []string
	}{
		{"device_fingerprint", func(v string) (string, error) { return CheckFingerprint(v) },
			map[string]string{"fp-1": "fp-1", " fp ": "fp", strings.Repeat("ß", MaxFingerprint): strings.Repeat("ß", MaxFingerprint)},
			append([]string{"", strings.Repeat("f", MaxFingerprint+1)}, refused...)},
		{"email", func(v string) (string, error) { return NormalizeEmail("email", v) },
			map[string]string{"Ann@Example.COM": "ann@example.com", " b@x.io ": "b@x.io"},
			[]string{"", "ann", "ann@localhost", "Ann <ann@example.com>", "a\x1b@example.com", "a@exa\u202emple.com", strings.Repeat("a", 250) + "@x.io"}},
		{"phone", func(v string) (string, error) { return CheckPhone("phone", v) },
			map[string]string{"+5511999998888": "+5511999998888", "+44 20 7946 0000": "+442079460000", "+1 (415) 555-0100": "+14155550100"},
			[]string{"", "  ", "5511999998888", "+1234567", "+1234567890123456", "<b>+5511999998888</b>", "+55\x0011999998888", "+55 11 9999 8888 x12", "011 5555"}},
		{"tos_accepted_version", func(v string) (string, error) { return CheckTOSVersion("tos_accepted_version", v) },
			map[string]string{"2026-01": "2026-01", " v1 ": "v1", strings.Repeat("v", MaxTOSVersion): strings.Repeat("v", MaxTOSVersion)},
			append([]string{"", strings.Repeat("v", MaxTOSVersion+1), strings.Repeat("1", 1<<20), "v\u00ad1"}, refused...)},
		{"license_key", func(v string) (string, error) { return CheckLicenseKey("license_key", v) },
			map[string]string{"ABCDE-FGHJK-MNPQR-STVWX-YZ012": "ABCDE-FGHJK-MNPQR-STVWX-YZ012"},
			append([]string{"", strings.Repeat("K", MaxLicenseKey+1)}, refused...)},
	}
	for _, f := range fields {
		for in, want := range f.ok {
			t.Run(f.field+"/OK/"+in, func(t *testing.T) {
				got, err := f.check(in)
				if err != nil || got != want {
					t.Fatalf("check(%q) = %q, %v; want %q", in, got, err, want)
				}
			})
		}
		for i, in := range f.bad {
			t.Run(fmt.Sprintf("%s/ErrValidation/%d", f.field, i), func(t *testing.T) {
				_, err := f.check(in)
				wantInvalid(t, err, f.field)
			})
		}
	}
}

func TestSlugAndKey(t *testing.T) {
	for _, tt := range []struct {
		name  string
		check func() error
		field string // "" when the value is valid
	}{
		{"OK/Slug", func() error { return CheckSlug("slug", "my-app") }, ""},
		{"ErrValidation/SlugEscape", func() error { return CheckSlug("slug", "my\x1bapp") }, "slug"},
		{"ErrValidation/SlugFromName", func() error { return CheckSlug("name", "x") }, "name"},
		{"OK/Key", func() error { return CheckKey("key", "feature.export:pdf") }, ""},
		{"ErrValidation/KeyBidi", func() error { return CheckKey("key", "pro\u202e") }, "key"},
		{"ErrValidation/RoleNewline", func() error { return CheckKey("role_id", "admin\n") }, "role_id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.check()
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantInvalid(t, err, tt.field)
		})
	}
}

func TestProfileInputCheck(t *testing.T) {
	good := ProfileInput{FirstName: " Ada ", LastName: "Lovelace", OrganizationName: "Analytical", Phone: "+44 20 7946 0000", TOSVersion: "2026-01"}
	t.Run("OK", func(t *testing.T) {
		got, err := good.Check()
		if err != nil {
			t.Fatal(err)
		}
		want := ProfileInput{FirstName: "Ada", LastName: "Lovelace", OrganizationName: "Analytical", Phone: "+442079460000", TOSVersion: "2026-01"}
		if got != want {
			t.Fatalf("got %+v, want %+v", got, want)
		}
	})
	for _, tt := range []struct {
		field string
		mut   func(*ProfileInput)
	}{
		{"first_name", func(p *ProfileInput) { p.FirstName = "" }},
		{"last_name", func(p *ProfileInput) { p.LastName = "Love\x1b[2Jlace" }},
		{"organization_name", func(p *ProfileInput) { p.OrganizationName = strings.Repeat("o", MaxName+1) }},
		{"phone", func(p *ProfileInput) { p.Phone = "\x00" }},
		{"tos_accepted_version", func(p *ProfileInput) { p.TOSVersion = strings.Repeat("1", 1<<20) }},
	} {
		t.Run("ErrValidation/"+tt.field, func(t *testing.T) {
			in := good
			tt.mut(&in)
			_, err := in.Check()
			wantInvalid(t, err, tt.field)
		})
	}
}

// Issue 19 #8, docs/design.md §8: a name must show something.
func TestNamesMustShowSomething(t *testing.T) {
	blank := map[string]string{
		"HangulFiller":      "\u3164",
		"HangulChoseong":    "\u115f\u1160",
		"HalfwidthFiller":   "\uffa0\uffa0",
		"BrailleBlank":      "\u2800\u2800\u2800",
		"ZeroWidthSpace":    "\u200b",
		"WordJoinerAndBOM":  "\u2060\ufeff",
		"SoftHyphen":        "\u00ad",
		"FillersAndSpaces":  "\u3164 \u2800\u3000\u00a0",
		"VariationSelector": "\ufe0f",
		"TagCharacters":     "\U000e0041\U000e0042",
	}
	for name, v := range blank {
		t.Run("ErrValidation/"+name, func(t *testing.T) {
			_, err := CheckName("name", v)
			wantInvalid(t, err, "name")
			_, err = CheckOptionalName("label", v)
			wantInvalid(t, err, "label")
		})
	}
	for _, v := range []string{"Ada", "\u3164A", "한글", "\u2801", "⠿", "Zoë", "👍\ufe0f", "a\u200bb"} {
		t.Run("OK/"+v, func(t *testing.T) {
			if got, err := CheckName("name", v); err != nil || got != v {
				t.Fatalf("CheckName(%q) = %q, %v", v, got, err)
			}
		})
	}
	if got, err := CheckOptionalName("label", "  "); err != nil || got != "" {
		t.Fatalf("CheckOptionalName(blank spaces) = %q, %v; want empty, accepted", got, err)
	}
}
