package store

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Printable returns s with everything a terminal would act on instead of
// print written as a Go-style escape: controls (ESC as \x1b), bidirectional
// embeddings, overrides and isolates (\u202e), other unprintable runes, and
// invalid UTF-8 bytes. Records written before the input rules existed may
// hold such text, so every output for people (tables, plain text, CSV, the
// terminal UI) passes stored text through Printable; JSON output goes
// through PrintableJSON, which escapes the same runes the JSON way.
// A backslash is left alone: the escapes are for reading, not for parsing.
func Printable(s string) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || !printableRune(r) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case printableRune(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	return b.String()
}

// PrintableJSON returns the JSON text b with every rune a terminal would act
// on written as a JSON escape (\u202e, a surrogate pair above U+FFFF), so
// that JSON printed to a terminal is escaped like every other output while
// it still decodes to exactly the same values. encoding/json escapes the C0
// controls itself; what is left can only stand inside strings (JSON's own
// syntax is printable ASCII and white space), where an escape means the
// same rune.
func PrintableJSON(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if (r >= 0x20 && r < 0x7f) || r == '\n' || r == '\t' || r == '\r' || printableRune(r) {
			if out != nil {
				out = append(out, b[i:i+size]...)
			}
			i += size
			continue
		}
		if out == nil {
			out = append(make([]byte, 0, len(b)+16), b[:i]...)
		}
		if r == utf8.RuneError && size <= 1 {
			r = utf8.RuneError // encoding/json never writes one; keep the text valid
		}
		if r > 0xffff {
			hi, lo := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
		} else {
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += size
	}
	if out == nil {
		return b
	}
	return out
}

// printableRune reports whether r may reach a terminal as itself.
func printableRune(r rune) bool {
	return !unsafeRune(r) && (r == ' ' || unicode.IsPrint(r))
}

// Blank reports whether s would print as nothing at all: it holds only
// spaces, fillers, format characters and other default-ignorable code
// points (docs/design.md §8). Such a name ("\u3164", "\u2800\u200b") passes every
// rule on characters yet leaves a list row, an audit line or a member
// picker looking empty, which lets one entry pass for another.
func Blank(s string) bool {
	for _, r := range s {
		if !blankRune(r) {
			return false
		}
	}
	return true
}

func blankRune(r rune) bool {
	switch r {
	case 0x115f, 0x1160, 0x3164, 0xffa0, // Hangul fillers
		0x2800: // Braille pattern blank: a symbol, yet it shows no dot
		return true
	}
	return unicode.IsSpace(r) || unicode.In(r, unicode.Zs, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}
