package store_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	"licensectl/store"
)

func TestRefreshTokenIssued(t *testing.T) {
	env := func(id string) *store.Environment {
		_, key, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return &store.Environment{ID: id, SigningKey: key}
	}
	prod, dev := env(store.NewID()), env(store.NewID())
	sid, other := store.NewID(), store.NewID()
	tok := store.RefreshToken(prod, sid, store.NewRefreshRandom())
	_, secret, _ := strings.Cut(tok, ".")
	flip := func(s string, i int) string {
		c := byte('A')
		if s[i] == 'A' {
			c = 'B'
		}
		return s[:i] + string(c) + s[i+1:]
	}
	cases := []struct {
		name  string
		env   *store.Environment
		token string
		want  bool
	}{
		{"OKIssued", prod, tok, true},
		{"ErrOtherEnvironment", dev, tok, false},
		{"ErrOtherSession", prod, other + "." + secret, false},
		{"ErrTagChanged", prod, sid + "." + flip(secret, len(secret)-3), false},
		{"ErrRandomChanged", prod, sid + "." + flip(secret, 0), false},
		{"ErrLastCharPaddingBits", prod, sid + "." + flip(secret, len(secret)-1), false},
		{"ErrLegacySecret", prod, sid + "." + strings.Repeat("a", 43), false},
		{"ErrNoSession", prod, "." + secret, false},
		{"ErrNoDot", prod, sid + secret, false},
		{"ErrEmpty", prod, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := store.RefreshTokenIssued(c.env, c.token); got != c.want {
				t.Fatalf("RefreshTokenIssued(%q) = %v, want %v", c.token, got, c.want)
			}
		})
	}
}
