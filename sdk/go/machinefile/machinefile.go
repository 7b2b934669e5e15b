// Package machinefile issues and verifies machine files (docs/design.md §13): a
// license's standing on one device, signed with the environment's Ed25519
// key (the one its JWKS publishes) so that a desktop application can trust
// it offline, and optionally encrypted for that device and license key.
//
// The certificate is text: "-----BEGIN MACHINE FILE-----", the base64 of a
// JSON envelope {alg, kid, enc, sig} wrapped at 76 columns, then
// "-----END MACHINE FILE-----". sig is the Ed25519 signature over the ASCII
// bytes "machine/" + enc. With AlgPlain enc is the base64 of the payload;
// with AlgEncrypted it is the base64 of nonce (12 bytes) ‖ ciphertext ‖ tag
// (16 bytes) under AES-256-GCM, no additional data, with the key
// SHA-256(canonical license key ‖ device fingerprint).
package machinefile

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Algorithms of the envelope.
const (
	AlgEncrypted = "aes-256-gcm+ed25519"
	AlgPlain     = "base64+ed25519"
)

// Armour lines of the certificate.
const (
	Begin = "-----BEGIN MACHINE FILE-----"
	End   = "-----END MACHINE FILE-----"
)

// ClockSkew is how far past its expiry a file is still accepted, for
// clocks a little behind.
const ClockSkew = 5 * time.Minute

// Payload is what a machine file says.
type Payload struct {
	Meta        Meta        `json:"meta"`
	License     License     `json:"license"`
	Device      Device      `json:"device"`
	User        *User       `json:"user"`
	Application Application `json:"application"`
}

// Meta dates the file.
type Meta struct {
	IssuedAt  time.Time `json:"issued_at"`
	ExpiresAt time.Time `json:"expires_at"`
	TTL       int       `json:"ttl"` // seconds
}

// License is the license's standing when the file was issued.
type License struct {
	ID           string     `json:"id"`
	Status       string     `json:"status"`
	ExpiresAt    *time.Time `json:"expires_at"`
	Entitlements []string   `json:"entitlements"`
	Plan         Plan       `json:"plan"`
}

// Plan is the license's plan.
type Plan struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	MaxDevices    int    `json:"max_devices"`
	MaxConcurrent int    `json:"max_concurrent"`
	IsTrial       bool   `json:"is_trial"`
}

// Device is the device the file was issued for.
type Device struct {
	ID          string `json:"id"`
	Fingerprint string `json:"fingerprint"`
}

// User is the license's end-user.
type User struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

// Application names the application and its environment.
type Application struct {
	ID          string `json:"id"`
	Environment string `json:"environment"`
}

// Envelope is the signed container inside the armour.
type Envelope struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	Enc string `json:"enc"`
	Sig string `json:"sig"`
}

// Key is the AES-256 key of an encrypted file: SHA-256 of the license key in
// its canonical form (upper case, groups joined by dashes) followed by the
// device fingerprint. The key is read as the server reads a typed key
// (NormalizeLicenseKey), so one typed in lower case, without dashes or with
// O for 0 opens the same file.
func Key(licenseKey, fingerprint string) [32]byte {
	k := NormalizeLicenseKey(licenseKey)
	if k == "" {
		// Not a key at all: it opens nothing, but still derives a key, so
		// that the refusal is the decryption's.
		k = strings.ToUpper(strings.TrimSpace(licenseKey))
	}
	return sha256.Sum256([]byte(k + fingerprint))
}

// crockford is the alphabet of license keys (Crockford's base 32).
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// NormalizeLicenseKey turns a typed license key into the canonical form, the
// way the server reads it: trimmed, upper-cased, dashes and spaces ignored, O
// read as 0 and I/L as 1, five groups of five joined by dashes. It returns ""
// when the input cannot be a license key.
func NormalizeLicenseKey(in string) string {
	var raw []byte
	for _, r := range strings.ToUpper(strings.TrimSpace(in)) {
		switch {
		case r == '-' || r == ' ':
			continue
		case r == 'O':
			r = '0'
		case r == 'I' || r == 'L':
			r = '1'
		}
		if r > 127 || strings.IndexByte(crockford, byte(r)) < 0 {
			return ""
		}
		raw = append(raw, byte(r))
	}
	if len(raw) != 25 {
		return ""
	}
	out := make([]byte, 0, 29)
	for i, c := range raw {
		if i > 0 && i%5 == 0 {
			out = append(out, '-')
		}
		out = append(out, c)
	}
	return string(out)
}

// Issue signs p with the environment's key kid/priv and returns the
// certificate; encrypt seals the payload with Key(licenseKey, fingerprint
// of p's device).
func Issue(priv ed25519.PrivateKey, kid string, p *Payload, encrypt bool, licenseKey string) (string, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	env := Envelope{Alg: AlgPlain, Kid: kid}
	if encrypt {
		k := Key(licenseKey, p.Device.Fingerprint)
		gcm, err := newGCM(k[:])
		if err != nil {
			return "", err
		}
		nonce := make([]byte, gcm.NonceSize())
		if _, err := rand.Read(nonce); err != nil {
			return "", err
		}
		env.Alg, raw = AlgEncrypted, gcm.Seal(nonce, nonce, raw, nil)
	}
	env.Enc = base64.StdEncoding.EncodeToString(raw)
	env.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(priv, []byte("machine/"+env.Enc)))
	return armour(env)
}

// armour is the one text of an envelope: its compact JSON (the field order
// of Envelope), in base64 wrapped at 76 columns, between the armour lines,
// each line ending in a newline.
func armour(env Envelope) (string, error) {
	body, err := json.Marshal(env)
	if err != nil {
		return "", err
	}
	b64 := base64.StdEncoding.EncodeToString(body)
	var out strings.Builder
	out.WriteString(Begin + "\n")
	for len(b64) > 76 {
		out.WriteString(b64[:76] + "\n")
		b64 = b64[76:]
	}
	out.WriteString(b64 + "\n" + End + "\n")
	return out.String(), nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Errors of Verify.
var (
	ErrMalformed   = errors.New("machinefile: not a machine file")
	ErrUnknownKey  = errors.New("machinefile: signed by a key that is not pinned")
	ErrSignature   = errors.New("machinefile: bad signature")
	ErrDecrypt     = errors.New("machinefile: cannot decrypt (wrong license key or device)")
	ErrExpired     = errors.New("machinefile: expired")
	ErrFuture      = errors.New("machinefile: issued after the verifier's clock (a clock set back?)")
	ErrOtherDevice = errors.New("machinefile: issued for another device")
)

// Verify checks a certificate offline: the armour, the algorithm, that kid
// is one of the pinned keys, the signature, then (for an encrypted file,
// with the license key) decrypts, and checks the file names this device's
// fingerprint, has not expired and was not issued after now (ClockSkew
// allowed both ways: a clock set back past the issue refuses the file).
//
// The certificate must be exactly the text Issue writes: canonical base64,
// the envelope's four keys once each in their order, no other whitespace.
// Anything else is ErrMalformed, so that one payload has exactly one file.
func Verify(cert string, pinned map[string]ed25519.PublicKey, licenseKey, fingerprint string, now time.Time) (*Payload, error) {
	env, err := parseArmour(cert)
	if err != nil {
		return nil, err
	}
	if env.Alg != AlgEncrypted && env.Alg != AlgPlain {
		return nil, fmt.Errorf("%w: algorithm %q", ErrMalformed, env.Alg)
	}
	pub, ok := pinned[env.Kid]
	if !ok {
		return nil, ErrUnknownKey
	}
	sig, err := strictBase64(env.Sig)
	if err != nil {
		return nil, ErrMalformed
	}
	if !ed25519.Verify(pub, []byte("machine/"+env.Enc), sig) {
		return nil, ErrSignature
	}
	data, err := strictBase64(env.Enc)
	if err != nil {
		return nil, ErrMalformed
	}
	if env.Alg == AlgEncrypted {
		k := Key(licenseKey, fingerprint)
		gcm, err := newGCM(k[:])
		if err != nil || len(data) < gcm.NonceSize()+gcm.Overhead() {
			return nil, ErrDecrypt
		}
		if data, err = gcm.Open(nil, data[:gcm.NonceSize()], data[gcm.NonceSize():], nil); err != nil {
			return nil, ErrDecrypt
		}
	}
	var p Payload
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&p); err != nil {
		return nil, ErrMalformed
	}
	if p.Device.Fingerprint != fingerprint {
		return nil, ErrOtherDevice
	}
	if !p.Meta.ExpiresAt.After(now.Add(-ClockSkew)) {
		return nil, ErrExpired
	}
	if p.Meta.IssuedAt.After(now.Add(ClockSkew)) {
		return nil, ErrFuture
	}
	return &p, nil
}

// parseArmour reads the envelope of a certificate and refuses any text
// but the one armour would write for it.
func parseArmour(cert string) (Envelope, error) {
	body, ok := strings.CutPrefix(cert, Begin+"\n")
	if !ok {
		return Envelope{}, ErrMalformed
	}
	if body, ok = strings.CutSuffix(body, "\n"+End+"\n"); !ok {
		return Envelope{}, ErrMalformed
	}
	raw, err := strictBase64(strings.ReplaceAll(body, "\n", ""))
	if err != nil {
		return Envelope{}, ErrMalformed
	}
	var env Envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return Envelope{}, ErrMalformed
	}
	// Re-encoding what was read must give the very same text: that refuses
	// duplicate or differently cased keys, extra keys, whitespace, escapes
	// and a different wrapping in one comparison.
	if again, err := armour(env); err != nil || again != cert {
		return Envelope{}, ErrMalformed
	}
	return env, nil
}

// strictBase64 decodes standard padded base64 and refuses any other
// spelling of the same bytes (stray padding bits, newlines).
func strictBase64(s string) ([]byte, error) {
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, err
	}
	if base64.StdEncoding.EncodeToString(b) != s {
		return nil, ErrMalformed
	}
	return b, nil
}
