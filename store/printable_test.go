package store

import (
	"encoding/json"
	"testing"
)

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

func TestPrintableJSON(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"OK/Plain", "Acme Pro", `{"s":"Acme Pro"}`},
		{"OK/Unicode", "Ünïcødé 日本 🚀", `{"s":"Ünïcødé 日本 🚀"}`},
		{"Escaped/C0ByEncodingJSON", "a\x1b[2J\n", `{"s":"a\u001b[2J\n"}`},
		{"Escaped/DEL", "a\x7f", `{"s":"a\u007f"}`},
		{"Escaped/C1", "evil\u202eUA\u009b31m", `{"s":"evil\u202eUA\u009b31m"}`},
		{"Escaped/Isolate", "x\u2066y", `{"s":"x\u2066y"}`},
		{"Escaped/PrivateAstral", "a\U000f0000", `{"s":"a\udb80\udc00"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := json.Marshal(map[string]string{"s": tt.in})
			if err != nil {
				t.Fatal(err)
			}
			got := PrintableJSON(raw)
			if string(got) != tt.want {
				t.Fatalf("PrintableJSON(%s) = %s, want %s", raw, got, tt.want)
			}
			if _, bad := UnsafeRune(string(got)); bad {
				t.Fatalf("PrintableJSON(%s) = %q still holds an unsafe rune", raw, got)
			}
			var back map[string]string
			if err := json.Unmarshal(got, &back); err != nil || back["s"] != tt.in {
				t.Fatalf("PrintableJSON(%s) decodes to %q, %v; want the same value %q", raw, back["s"], err, tt.in)
			}
		})
	}
}
