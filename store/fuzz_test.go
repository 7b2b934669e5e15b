package store

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The fuzz targets below cover the parsers of untrusted input in store.
// `go test` runs their seeds (f.Add and testdata/fuzz); scripts/fuzz runs
// them at length.

func FuzzNormalizeLicenseKey(f *testing.F) {
	for _, s := range []string{NewLicenseKey(), "abcde-fghij", " 0OIL1-xxxxx ", "", "-", "ÄÖÜ", "\x00", strings.Repeat("A", 5000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := NormalizeLicenseKey(in)
		if out == "" {
			return
		}
		// Canonical: idempotent, ASCII, upper-case Crockford with dashes.
		if again := NormalizeLicenseKey(out); again != out {
			t.Fatalf("NormalizeLicenseKey(%q) = %q, again %q", in, out, again)
		}
		for _, c := range out {
			if c != '-' && !strings.ContainsRune(crockford, c) {
				t.Fatalf("NormalizeLicenseKey(%q) = %q holds %q", in, out, c)
			}
		}
	})
}

func FuzzValidID(f *testing.F) {
	for _, s := range []string{NewID(), strings.ToUpper(NewID()), "", "..", "%2e%2e", "0190aaaa-0000-7000-8000-00000000000g"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if ValidID(in) && (len(in) != 36 || !utf8.ValidString(in) || strings.ContainsAny(in, "/.% ")) {
			t.Fatalf("ValidID(%q) = true", in)
		}
	})
}

func FuzzNormalizeEmail(f *testing.F) {
	for _, s := range []string{"a@example.com", " A@Example.COM ", "a@b", "@", "a@@b.c", "a\x1b]0;x\x07@example.com", "\u202ea@example.com"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := NormalizeEmail("email", in)
		if err != nil {
			if ErrorCode(err) != ECodeValidation {
				t.Fatalf("NormalizeEmail(%q): code %s", in, ErrorCode(err))
			}
			return
		}
		if again, err := NormalizeEmail("email", out); err != nil || again != out {
			t.Fatalf("NormalizeEmail(%q) = %q, again %q, %v", in, out, again, err)
		}
		if Printable(out) != out {
			t.Fatalf("NormalizeEmail(%q) = %q keeps unprintable characters", in, out)
		}
	})
}

func FuzzPageRequest(f *testing.F) {
	f.Add(1, 20)
	f.Add(0, 0)
	f.Add(-1, 101)
	f.Add(1<<62, 100)
	f.Fuzz(func(t *testing.T, page, perPage int) {
		p := PageRequest{Page: page, PerPage: perPage}
		if err := p.Normalize(); err != nil {
			if ErrorCode(err) != ECodeValidation {
				t.Fatalf("Normalize(%d, %d): code %s", page, perPage, ErrorCode(err))
			}
			return
		}
		if p.Page < 1 || p.PerPage < 1 || p.PerPage > 100 {
			t.Fatalf("Normalize(%d, %d) = %+v", page, perPage, p)
		}
	})
}

func FuzzCheckText(f *testing.F) {
	for _, s := range []string{"Acme", "  padded  ", "", "\x1b]0;pwned\x07", "a\u202eb", "\u0085", strings.Repeat("é", 101)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := CheckText("name", in, 1, MaxName)
		if err != nil {
			if ErrorCode(err) != ECodeValidation {
				t.Fatalf("CheckText(%q): code %s", in, ErrorCode(err))
			}
			return
		}
		if n := utf8.RuneCountInString(out); n < 1 || n > MaxName {
			t.Fatalf("CheckText(%q) = %q, %d characters", in, out, n)
		}
		for _, r := range out {
			if r < 0x20 || (r >= 0x7f && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
				t.Fatalf("CheckText(%q) = %q accepts %U", in, out, r)
			}
		}
	})
}
