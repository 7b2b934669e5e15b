package httpsig

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"net/http"
)

// Signer signs answers with one Ed25519 key, named by its key id. Build it
// once per key: it checks the key and keeps what every signature repeats.
type Signer struct {
	key   ed25519.PrivateKey
	keyID string
}

// NewSigner returns a signer of key, whose keyid parameter is keyID (the
// kid its JWKS document names).
func NewSigner(key ed25519.PrivateKey, keyID string) (*Signer, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, errors.New("httpsig: not an Ed25519 private key")
	}
	if keyID == "" {
		return nil, errors.New("httpsig: a key needs a key id")
	}
	return &Signer{key: append(ed25519.PrivateKey(nil), key...), keyID: keyID}, nil
}

// KeyID is the keyid parameter of the signer's signatures.
func (s *Signer) KeyID() string { return s.keyID }

// Public is the public key that verifies the signer's signatures.
func (s *Signer) Public() ed25519.PublicKey { return s.key.Public().(ed25519.PublicKey) }

// SignAnswer signs an answer of status and body to req as accept asks: it
// sets h's Content-Digest, then Signature-Input and Signature over
// AnswerComponents, with created (Unix seconds), the signer's keyid,
// alg="ed25519", accept's nonce and tag="licensectl". h must already hold
// the answer's Content-Type, if it has one.
func (s *Signer) SignAnswer(h http.Header, status int, body []byte, req *Message, accept Accept, created int64) error {
	h["Content-Digest"] = []string{ContentDigest(body)}
	components := AnswerComponents(len(h["Content-Type"]) > 0, len(req.Header.Values("Content-Digest")) > 0)
	params := ParamsOf(Params{Created: created, KeyID: s.keyID, Alg: Alg, Nonce: accept.Nonce, Tag: Tag})
	resp := Message{Status: status, Header: h}
	var stack [1024]byte
	base, err := Base(stack[:0], components, params, &resp, req)
	if err != nil {
		return err
	}
	sp, err := SignatureParams(components, params)
	if err != nil {
		return err
	}
	sig := ed25519.Sign(s.key, base)
	// The label is a structured-field key (ParseAccept read it as one), so
	// label "=" value is the dictionary's serialization.
	h["Signature-Input"] = []string{accept.Label + "=" + sp}
	b := make([]byte, 0, len(accept.Label)+3+base64.StdEncoding.EncodedLen(len(sig)))
	b = append(b, accept.Label...)
	b = append(b, "=:"...)
	b = base64.StdEncoding.AppendEncode(b, sig)
	b = append(b, ':')
	h["Signature"] = []string{string(b)}
	return nil
}
