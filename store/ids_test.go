package store

import (
	"crypto/sha256"
	"encoding/hex"
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
