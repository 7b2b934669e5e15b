package store

import "testing"

func TestPrintable(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"OK/Plain", "Acme Pro", "Acme Pro"},
		{"OK/Unicode", "Ünïcødé 日本 🚀 \ufffd", "Ünïcødé 日本 🚀 \ufffd"},
		{"OK/Backslash", `C:\x1b`, `C:\x1b`},
		{"Escaped/OSC", "fp\x1b]0;owned\x07\x1b[2J", `fp\x1b]0;owned\x07\x1b[2J`},
		{"Escaped/TabNewline", "a\tb\nc", `a\x09b\x0ac`},
		{"Escaped/DEL", "a\x7f", `a\x7f`},
		{"Escaped/C1", "a\u009bb", `a\u009bb`},
		{"Escaped/Bidi", "txt.\u202eexe\u2066", `txt.\u202eexe\u2066`},
		{"Escaped/InvalidUTF8", "a\xffb\xc3", `a\xffb\xc3`},
		{"Escaped/Format", "a\u00adb", `a\u00adb`},
		{"Escaped/Private", "a\U000f0000", `a\U000f0000`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Printable(tt.in)
			if got != tt.want {
				t.Fatalf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if _, bad := UnsafeRune(got); bad {
				t.Fatalf("Printable(%q) = %q still holds an unsafe rune", tt.in, got)
			}
		})
	}
}
