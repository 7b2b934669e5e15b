package httpsig

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/dunglas/httpsfv"
)

// Signer signs answers with one Ed25519 key, named by its key id. Build it
// once per key: it checks the key and serializes what every signature
// repeats, so that signing an answer costs the Ed25519 signature and little
// else.
type Signer struct {
	key   ed25519.PrivateKey
	keyID string
	// keyParams is `;keyid="<kid>";alg="ed25519"`, serialized once.
	keyParams string
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
	p := httpsfv.NewParams()
	p.Add("keyid", keyID)
	p.Add("alg", Alg)
	kp, err := httpsfv.Marshal(httpsfv.InnerList{Params: p})
	if err != nil {
		return nil, fmt.Errorf("httpsig: key id %q: %w", keyID, err)
	}
	return &Signer{key: append(ed25519.PrivateKey(nil), key...), keyID: keyID, keyParams: strings.TrimPrefix(kp, "()")}, nil
}

// KeyID is the keyid parameter of the signer's signatures.
func (s *Signer) KeyID() string { return s.keyID }

// Public is the public key that verifies the signer's signatures.
func (s *Signer) Public() ed25519.PublicKey { return s.key.Public().(ed25519.PublicKey) }

// The serialized component lists of AnswerComponents, made once.
var answerLists = map[*Component]string{}

func init() {
	for _, cs := range [][]Component{answer, answerWithDigest, noContent, noContentWithDigest} {
		l, err := SignatureParams(cs, httpsfv.NewParams())
		if err != nil {
			panic(err)
		}
		answerLists[&cs[0]] = l
	}
}

// SignAnswer signs an answer of status and body to req as accept asks: it
// sets h's Content-Digest, then Signature-Input and Signature over
// AnswerComponents, with created (Unix seconds), the signer's keyid,
// alg="ed25519", accept's nonce and tag="licensectl". h must already hold
// the answer's Content-Type, if it has one.
func (s *Signer) SignAnswer(h http.Header, status int, body []byte, req *Message, accept Accept, created int64) error {
	h["Content-Digest"] = []string{ContentDigest(body)}
	components := AnswerComponents(len(h["Content-Type"]) > 0, len(req.Header.Values("Content-Digest")) > 0)
	// The parameters in the order ParamsOf gives them, serialized by hand
	// (RFC 8941 §4.1): the component list and the key's part are fixed,
	// created is an integer and the nonce a string ParseAccept checked to
	// be printable ASCII, in which only \ and " are escaped.
	var spBuf [384]byte
	sp := append(spBuf[:0], answerLists[&components[0]]...)
	sp = append(sp, ";created="...)
	sp = strconv.AppendInt(sp, created, 10)
	sp = append(sp, s.keyParams...)
	sp = append(sp, `;nonce="`...)
	for i := 0; i < len(accept.Nonce); i++ {
		c := accept.Nonce[i]
		if c < 0x20 || c > 0x7e {
			return errors.New("httpsig: the nonce is not printable ASCII")
		}
		if c == '\\' || c == '"' {
			sp = append(sp, '\\')
		}
		sp = append(sp, c)
	}
	sp = append(sp, `";tag="`+Tag+`"`...)
	resp := Message{Status: status, Header: h}
	var stack [1024]byte
	base, err := baseWith(stack[:0], components, string(sp), &resp, req)
	if err != nil {
		return err
	}
	sig := ed25519.Sign(s.key, base)
	// The label is a structured-field key (ParseAccept read it as one), so
	// label "=" value is the dictionary's serialization.
	in := make([]byte, 0, len(accept.Label)+1+len(sp))
	in = append(append(append(in, accept.Label...), '='), sp...)
	h["Signature-Input"] = []string{string(in)}
	b := make([]byte, 0, len(accept.Label)+3+base64.StdEncoding.EncodedLen(len(sig)))
	b = append(b, accept.Label...)
	b = append(b, "=:"...)
	b = base64.StdEncoding.AppendEncode(b, sig)
	b = append(b, ':')
	h["Signature"] = []string{string(b)}
	return nil
}
