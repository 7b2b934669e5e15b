package httpsig

import (
	"crypto/ed25519"
	"errors"
	"fmt"

	"github.com/dunglas/httpsfv"
)

// ErrNotGenuine is the error of every answer Verify refuses: unsigned,
// signed over the wrong components, with another nonce, tag or key, or a
// signature or digest that does not match.
var ErrNotGenuine = errors.New("httpsig: the answer is not genuine")

// Keys finds the public key a keyid names; false when it names none.
type Keys func(keyID string) (ed25519.PublicKey, bool)

// KeyMap is Keys over a map from keyid to public key.
func KeyMap(m map[string]ed25519.PublicKey) Keys {
	return func(id string) (ed25519.PublicKey, bool) {
		k, ok := m[id]
		return k, ok
	}
}

// VerifyAnswer checks an answer the way a licensectl client must: resp
// (status and header) and body answer req, whose Accept-Signature asked for
// the signature. The label and nonce are the request's, the components
// exactly AnswerComponents, alg "ed25519", tag "licensectl", the key one of
// keys, the signature good over the rebuilt base and the body's sha-256
// equal to Content-Digest. It returns the signature's parameters (created
// is the server's clock). Every refusal wraps ErrNotGenuine.
func VerifyAnswer(keys Keys, resp *Message, body []byte, req *Message) (Params, error) {
	accept, err := ParseAccept(req.Header.Values("Accept-Signature"))
	if err != nil {
		return Params{}, fmt.Errorf("%w: the request asked for no signature: %v", ErrNotGenuine, err)
	}
	if !bodyDigestMatches(resp.Header, body) {
		return Params{}, fmt.Errorf("%w: Content-Digest is missing or does not match the body", ErrNotGenuine)
	}
	inputs, err := httpsfv.UnmarshalDictionary(resp.Header.Values("Signature-Input"))
	if err != nil {
		return Params{}, fmt.Errorf("%w: Signature-Input is missing or malformed", ErrNotGenuine)
	}
	m, ok := inputs.Get(accept.Label)
	il, isList := m.(httpsfv.InnerList)
	if !ok || !isList {
		return Params{}, fmt.Errorf("%w: no signature labelled %q", ErrNotGenuine, accept.Label)
	}
	components, err := componentsOf(il)
	if err != nil {
		return Params{}, err
	}
	want := AnswerComponents(len(resp.Header.Values("Content-Type")) > 0, len(req.Header.Values("Content-Digest")) > 0)
	if !sameComponents(components, want) {
		return Params{}, fmt.Errorf("%w: the signature covers other components than licensectl's", ErrNotGenuine)
	}
	p, err := paramsOf(il.Params)
	if err != nil {
		return Params{}, err
	}
	switch {
	case p.Alg != Alg:
		return Params{}, fmt.Errorf("%w: alg %q", ErrNotGenuine, p.Alg)
	case p.Tag != Tag:
		return Params{}, fmt.Errorf("%w: tag %q", ErrNotGenuine, p.Tag)
	case p.Nonce != accept.Nonce:
		return Params{}, fmt.Errorf("%w: the signature carries another nonce than the request's", ErrNotGenuine)
	}
	key, ok := keys(p.KeyID)
	if !ok || len(key) != ed25519.PublicKeySize {
		return Params{}, fmt.Errorf("%w: unknown keyid %q", ErrNotGenuine, p.KeyID)
	}
	sigs, err := httpsfv.UnmarshalDictionary(resp.Header.Values("Signature"))
	if err != nil {
		return Params{}, fmt.Errorf("%w: Signature is missing or malformed", ErrNotGenuine)
	}
	sm, _ := sigs.Get(accept.Label)
	it, isItem := sm.(httpsfv.Item)
	sig, isBytes := it.Value.([]byte)
	if !isItem || !isBytes || len(sig) != ed25519.SignatureSize {
		return Params{}, fmt.Errorf("%w: no Ed25519 signature labelled %q", ErrNotGenuine, accept.Label)
	}
	base, err := Base(nil, components, il.Params, resp, req)
	if err != nil {
		return Params{}, fmt.Errorf("%w: %v", ErrNotGenuine, err)
	}
	if !ed25519.Verify(key, base, sig) {
		return Params{}, fmt.Errorf("%w: the signature does not match", ErrNotGenuine)
	}
	return p, nil
}

// componentsOf reads the covered components of a Signature-Input member:
// strings, each with no parameter but req.
func componentsOf(il httpsfv.InnerList) ([]Component, error) {
	out := make([]Component, 0, len(il.Items))
	for _, it := range il.Items {
		name, ok := it.Value.(string)
		if !ok {
			return nil, fmt.Errorf("%w: a covered component is not a string", ErrNotGenuine)
		}
		c := Component{Name: name}
		for _, k := range it.Params.Names() {
			v, _ := it.Params.Get(k)
			if b, isBool := v.(bool); k != "req" || !isBool || !b {
				return nil, fmt.Errorf("%w: component parameter %q", ErrNotGenuine, k)
			}
			c.Req = true
		}
		out = append(out, c)
	}
	return out, nil
}

// paramsOf reads licensectl's five signature parameters, refusing others.
func paramsOf(ps *httpsfv.Params) (Params, error) {
	var p Params
	seen := 0
	for _, k := range ps.Names() {
		v, _ := ps.Get(k)
		var ok bool
		switch k {
		case "created":
			p.Created, ok = v.(int64)
		case "keyid":
			p.KeyID, ok = v.(string)
		case "alg":
			p.Alg, ok = v.(string)
		case "nonce":
			p.Nonce, ok = v.(string)
		case "tag":
			p.Tag, ok = v.(string)
		}
		if !ok {
			return Params{}, fmt.Errorf("%w: signature parameter %q", ErrNotGenuine, k)
		}
		seen++
	}
	if seen != 5 {
		return Params{}, fmt.Errorf("%w: the signature lacks created, keyid, alg, nonce or tag", ErrNotGenuine)
	}
	return p, nil
}
