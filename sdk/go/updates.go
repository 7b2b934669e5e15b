package licensing

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"licensectl.dev/sdk/go/machinefile"
)

// UpdatesAllowed reports whether a build of buildDate may run under the
// license's maintenance ("perpetual with a year of updates"): true when
// maintenance is unlimited or had not ended at buildDate. It reads no
// network: the signed machine file's license when one is checked out (so it
// answers offline), else the verified access token's mnt claim. A license
// whose maintenance ended still validates; only its newer builds do not.
func (c *Client) UpdatesAllowed(buildDate time.Time) (bool, error) {
	now, err := c.checkClock()
	if err != nil {
		return false, err
	}
	sess, err := c.st.session()
	if err != nil {
		return false, err
	}
	if sess == nil {
		return false, errNoSession
	}
	end, err := c.maintenanceEnd(sess, now)
	if err != nil {
		return false, err
	}
	return end == nil || buildDate.Before(*end), nil
}

// maintenanceEnd is the license's maintenance end (nil: unlimited), from
// the machine file when it verifies, else from the access token.
func (c *Client) maintenanceEnd(sess *session, now time.Time) (*time.Time, error) {
	if cert, err := c.st.read(machineFile); err != nil {
		return nil, err
	} else if cert != nil {
		if p, err := machinefile.Verify(string(cert), c.keys, sess.LicenseKey, sess.Fingerprint, now); err == nil {
			return p.License.MaintenanceExpiresAt, nil
		}
	}
	return tokenMaintenance(sess.AccessToken, c.keys)
}

// tokenMaintenance verifies an access token and returns its mnt claim. Its
// expiry does not matter: the claim is the license's as the server signed it.
func tokenMaintenance(tok string, keys map[string]ed25519.PublicKey) (*time.Time, error) {
	claims, err := verifiedClaims(tok, keys)
	if err != nil || claims.Mnt == nil {
		return nil, err
	}
	end := time.Unix(*claims.Mnt, 0).UTC()
	return &end, nil
}

// tokenClaims are the claims of an access token the library reads: the
// license's maintenance end and the session's device.
type tokenClaims struct {
	Mnt *int64 `json:"mnt"`
	Dev string `json:"dev"`
}

// verifiedClaims verifies an access token's EdDSA signature with keys (by
// kid), whatever its expiry, and returns its claims; anything else is
// ErrNotGenuine.
func verifiedClaims(tok string, keys map[string]ed25519.PublicKey) (*tokenClaims, error) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return nil, ErrNotGenuine
	}
	rawHdr, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	rawPayload, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, ErrNotGenuine
	}
	var hdr struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	if json.Unmarshal(rawHdr, &hdr) != nil || hdr.Alg != "EdDSA" {
		return nil, ErrNotGenuine
	}
	pub, ok := keys[hdr.Kid]
	if !ok || !ed25519.Verify(pub, []byte(parts[0]+"."+parts[1]), sig) {
		return nil, ErrNotGenuine
	}
	claims := new(tokenClaims)
	if err := json.Unmarshal(rawPayload, claims); err != nil {
		return nil, ErrNotGenuine
	}
	return claims, nil
}
