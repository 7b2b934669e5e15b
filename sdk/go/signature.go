package licensing

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The signed answers of docs/design.md §15: RFC 9421 HTTP Message
// Signatures with Ed25519 over a fixed component set, the request's nonce and
// tag="licensectl", the body bound by an RFC 9530 Content-Digest.

const (
	sigLabel = "lc"
	sigTag   = "licensectl"
	sigAlg   = "ed25519"
)

// signedComponents is the component set every answer covers, in order;
// "content-digest";req follows when the request sent one.
var signedComponents = []sfComponent{
	{"@status", false}, {"content-type", false}, {"content-digest", false},
	{"@method", true}, {"@authority", true}, {"@path", true}, {"@query", true},
	{"accept-signature", true},
}

// answerComponents is the set an answer covers: without "content-type"
// when it has none (a 204), with "content-digest";req when the request sent
// one.
func answerComponents(hasContentType, reqDigest bool) []sfComponent {
	out := make([]sfComponent, 0, len(signedComponents)+1)
	for _, c := range signedComponents {
		if c.name == "content-type" && !hasContentType {
			continue
		}
		out = append(out, c)
	}
	if reqDigest {
		out = append(out, sfComponent{"content-digest", true})
	}
	return out
}

type sfComponent struct {
	name string
	req  bool
}

// signedRequest is what the library asked, kept to check the answer.
type signedRequest struct {
	req             *http.Request
	nonce           string
	acceptSignature string
	contentDigest   string // "" when the request had no body
}

// prepare asks the server to sign its answer over nonce and binds the body.
func prepare(req *http.Request, body []byte, nonce string) *signedRequest {
	sr := &signedRequest{req: req, nonce: nonce, acceptSignature: sigLabel + `=();nonce=` + sfString(nonce)}
	req.Header.Set("Accept-Signature", sr.acceptSignature)
	if body != nil {
		sum := sha256.Sum256(body)
		sr.contentDigest = "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
		req.Header.Set("Content-Digest", sr.contentDigest)
	}
	return sr
}

// verified is what a genuine answer tells beyond its body.
type verified struct {
	created time.Time
}

// verify checks that resp, with body, is the server's answer to sr: the
// digest of the body, the covered components, the parameters (our nonce,
// the tag, alg, a pinned keyid, created) and the Ed25519 signature.
func verify(sr *signedRequest, resp *http.Response, body []byte, keys map[string]ed25519.PublicKey) (verified, error) {
	fail := func(format string, args ...any) (verified, error) {
		return verified{}, fmt.Errorf("%w: %s", ErrNotGenuine, fmt.Sprintf(format, args...))
	}
	digest, err := onlyHeader(resp.Header, "Content-Digest")
	if err != nil {
		return fail("content-digest: %v", err)
	}
	dm, err := parseDictionary(digest)
	if err != nil {
		return fail("content-digest: %v", err)
	}
	sum := sha256.Sum256(body)
	found := false
	for _, m := range dm {
		if m.key == "sha-256" {
			raw, ok := m.item.value.([]byte)
			if m.inner || !ok || subtle.ConstantTimeCompare(raw, sum[:]) != 1 {
				return fail("the body does not match its content-digest")
			}
			found = true
		}
	}
	if !found {
		return fail("no sha-256 content-digest")
	}

	input, err := onlyHeader(resp.Header, "Signature-Input")
	if err != nil {
		return fail("signature-input: %v", err)
	}
	signature, err := onlyHeader(resp.Header, "Signature")
	if err != nil {
		return fail("signature: %v", err)
	}
	inputs, err := parseDictionary(input)
	if err != nil {
		return fail("signature-input: %v", err)
	}
	sigs, err := parseDictionary(signature)
	if err != nil {
		return fail("signature: %v", err)
	}
	in, ok := member(inputs, sigLabel)
	if !ok || !in.inner {
		return fail("no signature labelled %s", sigLabel)
	}
	sm, ok := member(sigs, sigLabel)
	sig, isBytes := sm.item.value.([]byte)
	if !ok || sm.inner || !isBytes || len(sig) != ed25519.SignatureSize {
		return fail("no signature labelled %s", sigLabel)
	}

	want := answerComponents(resp.Header.Get("Content-Type") != "", sr.contentDigest != "")
	if len(in.list) != len(want) {
		return fail("the signature covers other components")
	}
	comps := make([]sfComponent, len(in.list))
	for i, it := range in.list {
		name, ok := it.value.(string)
		c := sfComponent{name: name}
		for _, p := range it.params {
			if p.key != "req" || p.value != true {
				return fail("component parameter %s", p.key)
			}
			c.req = true
		}
		if !ok || c != want[i] {
			return fail("the signature covers other components")
		}
		comps[i] = c
	}

	var created int64
	var keyID, alg, nonce, tag string
	seen := map[string]bool{}
	for _, p := range in.params {
		seen[p.key] = true
		switch p.key {
		case "created":
			created, _ = p.value.(int64)
		case "keyid":
			keyID, _ = p.value.(string)
		case "alg":
			alg, _ = p.value.(string)
		case "nonce":
			nonce, _ = p.value.(string)
		case "tag":
			tag, _ = p.value.(string)
		default:
			// expires or any other parameter is not part of this shape.
			return fail("signature parameter %s", p.key)
		}
	}
	switch {
	case len(seen) != 5 || created <= 0:
		return fail("signature parameters missing")
	case tag != sigTag || alg != sigAlg:
		return fail("tag %q, alg %q", tag, alg)
	case subtle.ConstantTimeCompare([]byte(nonce), []byte(sr.nonce)) != 1:
		return fail("the answer was signed for another request (nonce)")
	}
	pub, ok := keys[keyID]
	if !ok {
		return fail("signed by key %q, which is not pinned", keyID)
	}
	base, err := signatureBase(comps, in.params, resp, sr)
	if err != nil {
		return fail("%v", err)
	}
	if !ed25519.Verify(pub, base, sig) {
		return fail("bad signature")
	}
	return verified{created: time.Unix(created, 0)}, nil
}

// signatureBase is RFC 9421 §2.5's signature base of resp answering sr.
func signatureBase(comps []sfComponent, params []sfParam, resp *http.Response, sr *signedRequest) ([]byte, error) {
	var b bytes.Buffer
	list := make([]string, len(comps))
	for i, c := range comps {
		id := sfString(c.name)
		if c.req {
			id += ";req"
		}
		list[i] = id
		v, err := componentValue(c, resp, sr)
		if err != nil {
			return nil, err
		}
		b.WriteString(id + ": " + v + "\n")
	}
	ps, err := serializeParams(params)
	if err != nil {
		return nil, err
	}
	b.WriteString(`"@signature-params": (` + strings.Join(list, " ") + ")" + ps)
	return b.Bytes(), nil
}

func componentValue(c sfComponent, resp *http.Response, sr *signedRequest) (string, error) {
	u := sr.req.URL
	switch {
	case c.name == "@status" && !c.req:
		return strconv.Itoa(resp.StatusCode), nil
	case c.name == "@method" && c.req:
		return sr.req.Method, nil
	case c.name == "@authority" && c.req:
		host := strings.ToLower(u.Host)
		if u.Scheme == "https" {
			host = strings.TrimSuffix(host, ":443")
		} else {
			host = strings.TrimSuffix(host, ":80")
		}
		return host, nil
	case c.name == "@path" && c.req:
		if p := u.EscapedPath(); p != "" {
			return p, nil
		}
		return "/", nil
	case c.name == "@query" && c.req:
		return "?" + u.RawQuery, nil
	case c.name == "accept-signature" && c.req:
		return sr.acceptSignature, nil
	case c.name == "content-digest" && c.req:
		return sr.contentDigest, nil
	case !c.req && !strings.HasPrefix(c.name, "@"):
		vs := resp.Header.Values(c.name)
		if len(vs) == 0 {
			return "", fmt.Errorf("the answer lacks %s", c.name)
		}
		for i := range vs {
			vs[i] = strings.TrimSpace(vs[i])
		}
		return strings.Join(vs, ", "), nil
	}
	return "", fmt.Errorf("component %s", c.name)
}

// onlyHeader is the one field line of name: a repeated Signature or digest
// field would let a proxy add a member the library never reads.
func onlyHeader(h http.Header, name string) (string, error) {
	vs := h.Values(name)
	if len(vs) != 1 {
		return "", fmt.Errorf("%d field lines", len(vs))
	}
	return vs[0], nil
}

func member(ms []sfMember, key string) (sfMember, bool) {
	for _, m := range ms {
		if m.key == key {
			return m, true
		}
	}
	return sfMember{}, false
}
