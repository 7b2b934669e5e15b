package machinefile

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestVerify(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := &Payload{Meta: Meta{IssuedAt: now, ExpiresAt: now.Add(time.Hour), TTL: 3600}, Device: Device{ID: "d1", Fingerprint: "fp-1"},
		License: License{ID: "l1", Status: "active", Entitlements: []string{}}}
	pinned := map[string]ed25519.PublicKey{"k1": pub}
	for _, encrypt := range []bool{false, true} {
		cert, err := Issue(priv, "k1", p, encrypt, "abcde-fghij")
		if err != nil {
			t.Fatal(err)
		}
		// A key typed in lower case is the key as generated, upper-cased.
		got, err := Verify(cert, pinned, "ABCDE-FGHIJ", "fp-1", now)
		if err != nil || got.License.ID != "l1" || got.Device.Fingerprint != "fp-1" {
			t.Fatalf("encrypt=%v: Verify = %+v, %v", encrypt, got, err)
		}
		if _, err := Verify(cert, pinned, "ABCDE-FGHIJ", "fp-1", now.Add(time.Hour+ClockSkew)); !errors.Is(err, ErrExpired) {
			t.Fatalf("encrypt=%v: past expiry and skew: %v, want ErrExpired", encrypt, err)
		}
		if _, err := Verify(cert, pinned, "ABCDE-FGHIJ", "fp-1", now.Add(time.Hour+ClockSkew-time.Second)); err != nil {
			t.Fatalf("encrypt=%v: within the skew: %v", encrypt, err)
		}
		want := ErrOtherDevice
		if encrypt {
			want = ErrDecrypt // the fingerprint is part of the key
		}
		if _, err := Verify(cert, pinned, "ABCDE-FGHIJ", "fp-2", now); !errors.Is(err, want) {
			t.Fatalf("encrypt=%v: other device: %v, want %v", encrypt, err, want)
		}
	}
	for name, cert := range map[string]string{
		"no armour":  "hello",
		"not base64": Begin + "\n!!!\n" + End,
		"not json":   Begin + "\naGVsbG8=\n" + End,
		"bad alg":    Begin + "\neyJhbGciOiJub25lIiwia2lkIjoiazEiLCJlbmMiOiIiLCJzaWciOiIifQ==\n" + End,
	} {
		if _, err := Verify(cert, pinned, "", "fp-1", now); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
	cert, _ := Issue(priv, "k1", p, false, "")
	for _, line := range strings.Split(cert, "\n") {
		if len(line) > 76 {
			t.Fatalf("line of %d columns", len(line))
		}
	}
}
