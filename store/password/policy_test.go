package password

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"licensectl/store"
)

// multibyte returns n pseudo-random Cyrillic and Japanese characters (two and
// three bytes in UTF-8), deterministic so failures reproduce.
func multibyte(n int) string {
	alphabet := []rune("абвгдежзийклмнопрстуфхцчшщэюяあいうえおかきくけこさしすせそたちつてと")
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for range n {
		b.WriteRune(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

func TestCheckPolicy(t *testing.T) {
	const email = "alice.martin@example.com"
	long := multibyte(MaxLength)
	if got := utf8.RuneCountInString(long); got != MaxLength || len(long) <= MaxLength {
		t.Fatalf("fixture: %d runes in %d bytes, want %d runes in more bytes", got, len(long), MaxLength)
	}

	tests := []struct {
		name     string
		password string
		email    string
		wantErr  string // substring of the message; "" = accepted
	}{
		{"OK/passphrase", "zebra-violin-parsnip-47", email, ""},
		{"OK/spaces", "correct horse battery staple", email, ""},
		{"OK/exactly 10", "qz7!Rv#p2K", email, ""},
		{"OK/256 multibyte runes", long, email, ""},
		{"OK/short local part ignored", "zebra-violin-al-parsnip", "al@example.com", ""},
		{"OK/no email", "zebra-violin-parsnip-47", "", ""},
		{"ErrValidation/too short", "qz7!Rv#p2", email, "at least 10"},
		{"ErrValidation/short in runes not bytes", "ÿéÿéÿéÿéÿ", email, "at least 10"},
		{"ErrValidation/too long", long + "x", email, "at most 256"},
		{"ErrValidation/common", "1234567890", email, "most commonly used"},
		{"ErrValidation/common ignores case", "PassWord123", email, "most commonly used"},
		{"ErrValidation/common ranked 9976", "Administrator", email, "most commonly used"},
		{"ErrValidation/weak", "aaaaaaaaaaaaaaaa", email, "too easy to guess"},
		{"ErrValidation/weak keyboard walk", "qwertyuiop123456", email, "too easy to guess"},
		{"ErrValidation/weak multibyte repeat", strings.Repeat("é", 12), email, "too easy to guess"},
		{"ErrValidation/weak multibyte sequence", "абвгдежзийкл", email, "too easy to guess"},
		{"ErrValidation/contains local part", "xyz-ALICE.MARTIN-violin-99", email, "e-mail address"},
		{"ErrValidation/invalid utf8", "zebra-violin\xff-parsnip", email, "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPolicy(tt.password, tt.email)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckPolicy(%q) = %v, want nil", tt.password, err)
				}
				return
			}
			e := store.AsError(err)
			if e == nil {
				t.Fatalf("CheckPolicy(%q) = %v, want *store.Error", tt.password, err)
			}
			if e.Code != store.ECodeValidation || e.Field != "password" {
				t.Errorf("got code %q field %q, want %q %q", e.Code, e.Field, store.ECodeValidation, "password")
			}
			if !strings.Contains(e.Message, tt.wantErr) {
				t.Errorf("got message %q, want it to contain %q", e.Message, tt.wantErr)
			}
		})
	}
}

func TestCommonListEmbedded(t *testing.T) {
	if got, want := len(commonPasswords()), 10000; got != want {
		t.Fatalf("got %d common passwords, want %d", got, want)
	}
	for _, p := range []string{"123456", "password", "qwerty"} {
		if !IsCommon(p) {
			t.Errorf("IsCommon(%q) = false, want true", p)
		}
	}
	if IsCommon("zebra-violin-parsnip-47") {
		t.Error("IsCommon(strong passphrase) = true, want false")
	}
}

// TestCommonListContent pins the embedded list: its number of passwords and
// the SHA-256 of the list in its order, one password and a newline each (the
// plain file's bytes before it was gzipped).
func TestCommonListContent(t *testing.T) {
	list := commonPasswordList()
	if got, want := len(list), 10000; got != want {
		t.Errorf("got %d passwords, want %d", got, want)
	}
	h := sha256.New()
	for _, w := range list {
		io.WriteString(h, w+"\n")
	}
	const want = "6d1540c6702ca6dd31226d50591065f82fd84255a4aaa9df80042527a93f1f93"
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("got SHA-256 %s of the list, want %s", got, want)
	}
}
