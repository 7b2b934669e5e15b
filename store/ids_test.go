package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func TestSumSecretMatchesSHA256(t *testing.T) {
	for _, s := range []string{"", "a", "app_sec_live_0123456789", string(make([]byte, 1000))} {
		want := sha256.Sum256([]byte(s))
		if got := SumSecret(s); got != want {
			t.Errorf("SumSecret(%q) = %x, want %x", s, got, want)
		}
		if got := HashSecret(s); got != hex.EncodeToString(want[:]) {
			t.Errorf("HashSecret(%q) = %s", s, got)
		}
	}
}

func TestApplicationSlug(t *testing.T) {
	tests := []struct {
		name, want string
		err        bool
	}{
		{name: "Éditeur Photo", want: "editeur-photo"},
		{name: "Go", want: "app-go"},
		{name: "X2", want: "app-x2"},
		{name: "日本語アプリ", err: true},
		{name: "Straße Ærø Łódź", want: "strasse-aero-lodz"},
		{name: "Photo Studio", want: "photo-studio"},
		{name: "2048 Game", want: "game"},
		{name: "9", want: "app-9"},
		{name: "Mañana Café 日本", want: "manana-cafe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplicationSlug(tt.name)
			if tt.err {
				if ErrorCode(err) != ECodeValidation || !strings.Contains(err.Error(), "pass slug") {
					t.Fatalf("ApplicationSlug(%q) = %q, %v; want validation_failed telling to pass slug", tt.name, got, err)
				}
				var e *Error
				if errors.As(err, &e) && e.Field != "slug" {
					t.Fatalf("error field = %q, want slug", e.Field)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ApplicationSlug(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
			}
			if !ValidSlug(got) {
				t.Fatalf("%q is not a valid slug", got)
			}
		})
	}
}
