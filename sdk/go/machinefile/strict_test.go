package machinefile

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"testing"
	"time"
)

// fixture is a valid file and what verifies it.
type fixture struct {
	cert    string
	pinned  map[string]ed25519.PublicKey
	key, fp string
	now     time.Time
	env     Envelope
}

func newFixture(t *testing.T, encrypt bool) fixture {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := &Payload{Meta: Meta{IssuedAt: now, ExpiresAt: now.Add(time.Hour), TTL: 3600}, Device: Device{ID: "d1", Fingerprint: "fp-1"},
		License: License{ID: "l1", Status: "active", Entitlements: []string{"export.pdf"}}}
	key := "7KQ2M-9XW4T-HB3ZP-0D6RN-C5VYE"
	cert, err := Issue(priv, "k1", p, encrypt, key)
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{cert: cert, pinned: map[string]ed25519.PublicKey{"k1": pub}, key: key, fp: "fp-1", now: now}
	if f.env, err = parseArmour(cert); err != nil {
		t.Fatal(err)
	}
	return f
}

// wrap armours a raw envelope body the way Issue does.
func wrap(body []byte) string {
	b64 := base64.StdEncoding.EncodeToString(body)
	var out strings.Builder
	out.WriteString(Begin + "\n")
	for len(b64) > 76 {
		out.WriteString(b64[:76] + "\n")
		b64 = b64[76:]
	}
	out.WriteString(b64 + "\n" + End + "\n")
	return out.String()
}

// loosen gives another spelling of the same base64 bytes: the last
// character's unused bits set, when it has any.
func loosen(s string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	trimmed := strings.TrimRight(s, "=")
	pad := len(s) - len(trimmed)
	if pad == 0 {
		return s + "\n"
	}
	last := strings.IndexByte(alphabet, trimmed[len(trimmed)-1])
	return trimmed[:len(trimmed)-1] + string(alphabet[last|1]) + s[len(trimmed):]
}

// mutations are other texts carrying the fixture's payload, or near it.
func (f fixture) mutations(t *testing.T) []string {
	t.Helper()
	e := f.env
	var out []string
	raw := func(format string, args ...any) { out = append(out, wrap(fmt.Appendf(nil, format, args...))) }
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	// The envelope's JSON spelled otherwise.
	raw(`{"alg":%s,"kid":%s,"enc":%s,"sig":%s,"alg":%s}`, q(e.Alg), q(e.Kid), q(e.Enc), q(e.Sig), q(e.Alg))
	raw(`{"ALG":%s,"alg":%s,"kid":%s,"enc":%s,"sig":%s}`, q(e.Alg), q(e.Alg), q(e.Kid), q(e.Enc), q(e.Sig))
	raw(`{"Alg":%s,"kid":%s,"enc":%s,"sig":%s}`, q(e.Alg), q(e.Kid), q(e.Enc), q(e.Sig))
	raw(`{"alg":%s,"KID":%s,"enc":%s,"sig":%s}`, q(e.Alg), q(e.Kid), q(e.Enc), q(e.Sig))
	raw(`{"kid":%s,"alg":%s,"enc":%s,"sig":%s}`, q(e.Kid), q(e.Alg), q(e.Enc), q(e.Sig))
	raw(`{"alg":%s,"kid":%s,"enc":%s,"sig":%s,"x":1}`, q(e.Alg), q(e.Kid), q(e.Enc), q(e.Sig))
	raw(`{"alg":%s,"kid":%s,"enc":%s,"sig":%s} `, q(e.Alg), q(e.Kid), q(e.Enc), q(e.Sig))
	raw(`{ "alg":%s,"kid":%s,"enc":%s,"sig":%s}`, q(e.Alg), q(e.Kid), q(e.Enc), q(e.Sig))
	raw(`{"alg": %s,"kid":%s,"enc":%s,"sig":%s}`, q(e.Alg), q(e.Kid), q(e.Enc), q(e.Sig))
	raw(`{"\u0061lg":%s,"kid":%s,"enc":%s,"sig":%s}`, q(e.Alg), q(e.Kid), q(e.Enc), q(e.Sig))
	raw(`{"alg":"\u0062ase64+ed25519","kid":%s,"enc":%s,"sig":%s}`, q(e.Kid), q(e.Enc), q(e.Sig))
	raw(`{"alg":%s,"kid":%s,"enc":%s,"sig":%s}`, q(e.Alg), q(e.Kid), q(loosen(e.Enc)), q(e.Sig))
	raw(`{"alg":%s,"kid":%s,"enc":%s,"sig":%s}`, q(e.Alg), q(e.Kid), q(e.Enc), q(loosen(e.Sig)))
	raw(`{"alg":%s,"kid":%s,"enc":%s,"sig":%s}`, q(e.Alg), q(e.Kid), q(e.Enc), q(strings.TrimRight(e.Sig, "=")))
	// The armour spelled otherwise.
	body, _ := json.Marshal(e)
	b64 := base64.StdEncoding.EncodeToString(body)
	out = append(out,
		Begin+"\n"+b64+"\n"+End+"\n",
		strings.ReplaceAll(f.cert, "\n", "\r\n"),
		strings.TrimSuffix(f.cert, "\n"),
		f.cert+"\n",
		" "+f.cert,
		strings.Replace(f.cert, "\n", "\n ", 2),
		Begin+"\n"+loosen(b64)+"\n"+End+"\n",
	)
	// Every single-character change, insertion and deletion, and random
	// runs of them.
	chars := []byte("A/+=\n \t\r-az9{}\"")
	for i := 0; i < len(f.cert); i++ {
		out = append(out, f.cert[:i]+f.cert[i+1:])
		c := chars[i%len(chars)]
		out = append(out, f.cert[:i]+string(c)+f.cert[i:])
		if f.cert[i] != c {
			out = append(out, f.cert[:i]+string(c)+f.cert[i+1:])
		}
	}
	rng := mrand.New(mrand.NewPCG(1, 2))
	for range 3000 {
		b := []byte(f.cert)
		for range 1 + rng.IntN(4) {
			b[rng.IntN(len(b))] = chars[rng.IntN(len(chars))]
		}
		out = append(out, string(b))
	}
	return out
}

// TestVerifyOneFilePerPayload mutates a valid file thousands of ways (the
// envelope's JSON and base64 respelled, the armour rewrapped, characters
// changed, inserted and deleted) and shows that no text but the one Issue
// wrote verifies.
func TestVerifyOneFilePerPayload(t *testing.T) {
	for _, encrypt := range []bool{false, true} {
		t.Run(fmt.Sprintf("encrypt=%v", encrypt), func(t *testing.T) {
			f := newFixture(t, encrypt)
			if _, err := Verify(f.cert, f.pinned, f.key, f.fp, f.now); err != nil {
				t.Fatalf("the file itself: %v", err)
			}
			tried := 0
			for _, m := range f.mutations(t) {
				if m == f.cert {
					continue
				}
				tried++
				if p, err := Verify(m, f.pinned, f.key, f.fp, f.now); err == nil {
					t.Errorf("mutation verifies (payload %+v):\n%q", p.License, m)
				}
			}
			if tried < 2000 {
				t.Fatalf("only %d mutations tried", tried)
			}
			t.Logf("%d mutations, none verifies", tried)
		})
	}
}

// TestVerifyFromTheFuture refuses a file issued more than ClockSkew after
// the verifier's clock: a clock set back before the file's issue.
func TestVerifyFromTheFuture(t *testing.T) {
	f := newFixture(t, true)
	for _, c := range []struct {
		name string
		now  time.Time
		want error
	}{
		{"at issue", f.now, nil},
		{"clock a little behind", f.now.Add(-ClockSkew + time.Second), nil},
		{"clock set back past the skew", f.now.Add(-ClockSkew - time.Second), ErrFuture},
		{"clock set back a year", f.now.AddDate(-1, 0, 0), ErrFuture},
	} {
		if _, err := Verify(f.cert, f.pinned, f.key, f.fp, c.now); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// TestKeyAsTyped opens an encrypted file with the license key as a user
// types it: lower case, without dashes, with O for 0 and L for 1, the way
// the server reads it.
func TestKeyAsTyped(t *testing.T) {
	f := newFixture(t, true)
	for _, typed := range []string{
		f.key,
		strings.ToLower(f.key),
		strings.ReplaceAll(strings.ToLower(f.key), "-", ""),
		" 7kq2m 9xw4t hb3zp 0d6rn c5vye ",
		"7KQ2M-9XW4T-HB3ZP-OD6RN-C5VYE", // O for 0
	} {
		if _, err := Verify(f.cert, f.pinned, typed, f.fp, f.now); err != nil {
			t.Errorf("%q: %v", typed, err)
		}
	}
	for _, wrong := range []string{"", "7KQ2M-9XW4T-HB3ZP-0D6RN-C5VYF", "7KQ2M-9XW4T-HB3ZP-0D6RN"} {
		if _, err := Verify(f.cert, f.pinned, wrong, f.fp, f.now); !errors.Is(err, ErrDecrypt) {
			t.Errorf("%q: %v, want ErrDecrypt", wrong, err)
		}
	}
}
