// Package httpsig signs and verifies HTTP answers the way docs/design.md §15
// asks: RFC 9421 HTTP Message Signatures with Ed25519 over a fixed set of
// components, the request's nonce and tag="licensectl", and the body bound
// by an RFC 9530 Content-Digest. Structured fields (RFC 8941) are parsed and
// serialized with httpsfv; the signature base is built here.
//
// The package knows nothing of licensectl's store or routes: the server's
// middleware and tests use it, and a client can mirror Verify line by line.
package httpsig

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/dunglas/httpsfv"
)

// Tag is the tag parameter of every signature licensectl makes, so that a
// signature made for another protocol with the same key is not taken for one.
const Tag = "licensectl"

// Alg is the alg parameter of every signature licensectl makes.
const Alg = "ed25519"

// The bounds of a nonce (docs/design.md §15), the same as the anti-replay
// nonce of a login or activation body.
const (
	MinNonce = 16
	MaxNonce = 128
)

// Component is one covered component: a derived component ("@status",
// "@method", ...) or a field name in lower case; Req takes it from the
// request a response answers (RFC 9421 §2.4).
type Component struct {
	Name string
	Req  bool
}

// Message is what a signature base reads of an HTTP message. A response
// sets Status and Header; a request sets Method, Authority, Path, Query and
// Header.
type Message struct {
	Status    int
	Method    string
	Authority string // host[:port], lower case, no default port
	Path      string // as sent, percent-encoded; "/" when empty
	Query     string // as sent, without "?"; "" when there is none
	Header    http.Header
}

// RequestMessage describes r for a signature base, on either side of the
// connection: the server's incoming request (Host, parsed URL, TLS) or a
// client's outgoing one (URL with scheme and host).
func RequestMessage(r *http.Request) Message {
	host := r.Host
	if host == "" && r.URL != nil {
		host = r.URL.Host
	}
	scheme := "http"
	if r.TLS != nil || (r.URL != nil && r.URL.Scheme == "https") {
		scheme = "https"
	}
	return Message{Method: r.Method, Authority: Authority(scheme, host), Path: r.URL.EscapedPath(), Query: r.URL.RawQuery, Header: r.Header}
}

// Authority normalizes a host as RFC 9421 §2.2.3 asks: lower case, the
// scheme's default port left out.
func Authority(scheme, host string) string {
	host = strings.ToLower(host)
	if scheme == "https" {
		return strings.TrimSuffix(host, ":443")
	}
	return strings.TrimSuffix(host, ":80")
}

// Params are the signature parameters licensectl uses, in the order they
// are serialized.
type Params struct {
	Created int64
	KeyID   string
	Alg     string
	Nonce   string
	Tag     string
}

// Errors of a signature base. A component that the message does not hold
// cannot be signed (RFC 9421 §2.5).
var (
	ErrMissingComponent = errors.New("httpsig: a covered component is missing from the message")
	ErrUnknownComponent = errors.New("httpsig: unsupported component")
)

// Base returns the signature base (RFC 9421 §2.5) of msg over components
// with params; req is the request components with Req are read from (nil
// when there are none). The "@signature-params" line serializes components
// and params as Signature-Input carries them.
func Base(dst []byte, components []Component, params *httpsfv.Params, msg, req *Message) ([]byte, error) {
	for _, c := range components {
		m := msg
		if c.Req {
			m = req
		}
		if m == nil {
			return nil, fmt.Errorf("%w: %s;req without a request", ErrMissingComponent, c.Name)
		}
		dst = appendIdentifier(dst, c)
		dst = append(dst, ": "...)
		var err error
		if dst, err = appendValue(dst, c.Name, m); err != nil {
			return nil, err
		}
		dst = append(dst, '\n')
	}
	dst = append(dst, `"@signature-params": `...)
	sp, err := SignatureParams(components, params)
	if err != nil {
		return nil, err
	}
	return append(dst, sp...), nil
}

// SignatureParams serializes components and params as the inner list a
// Signature-Input member holds.
func SignatureParams(components []Component, params *httpsfv.Params) (string, error) {
	il := httpsfv.InnerList{Items: make([]httpsfv.Item, len(components)), Params: params}
	for i, c := range components {
		it := httpsfv.NewItem(c.Name)
		if c.Req {
			it.Params.Add("req", true)
		}
		il.Items[i] = it
	}
	return httpsfv.Marshal(il)
}

// ParamsOf is params as the structured-field parameters they serialize to,
// in licensectl's order (created, keyid, alg, nonce, tag).
func ParamsOf(p Params) *httpsfv.Params {
	out := httpsfv.NewParams()
	out.Add("created", p.Created)
	out.Add("keyid", p.KeyID)
	out.Add("alg", p.Alg)
	out.Add("nonce", p.Nonce)
	out.Add("tag", p.Tag)
	return out
}

func appendIdentifier(dst []byte, c Component) []byte {
	dst = append(dst, '"')
	dst = append(dst, c.Name...)
	dst = append(dst, '"')
	if c.Req {
		dst = append(dst, ";req"...)
	}
	return dst
}

func appendValue(dst []byte, name string, m *Message) ([]byte, error) {
	switch name {
	case "@status":
		if m.Status < 100 || m.Status > 999 {
			return nil, fmt.Errorf("%w: @status", ErrMissingComponent)
		}
		return strconv.AppendInt(dst, int64(m.Status), 10), nil
	case "@method":
		return append(dst, m.Method...), nil
	case "@authority":
		return append(dst, m.Authority...), nil
	case "@path":
		if m.Path == "" {
			return append(dst, '/'), nil
		}
		return append(dst, m.Path...), nil
	case "@query":
		// An absent query and an empty one are both "?" (RFC 9421 §2.2.7).
		dst = append(dst, '?')
		return append(dst, m.Query...), nil
	}
	if strings.HasPrefix(name, "@") {
		return nil, fmt.Errorf("%w: %s", ErrUnknownComponent, name)
	}
	values := m.Header.Values(name)
	if len(values) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrMissingComponent, name)
	}
	// Several field lines are one value joined by ", ", each trimmed
	// (RFC 9421 §2.1); obsolete line folding does not reach net/http.
	for i, v := range values {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, strings.Trim(v, " \t")...)
	}
	return dst, nil
}

// Accept is what a request's Accept-Signature asks for: the label of the
// signature and the nonce it must carry.
type Accept struct {
	Label string
	Nonce string
}

// ParseAccept reads an Accept-Signature field (RFC 9421 §5.1): exactly one
// member, an inner list (whose components are ignored: the answer covers
// the fixed set) with a nonce parameter of MinNonce to MaxNonce printable
// ASCII characters.
func ParseAccept(values []string) (Accept, error) {
	d, err := httpsfv.UnmarshalDictionary(values)
	if err != nil {
		return Accept{}, errors.New("Accept-Signature is not a structured-field dictionary")
	}
	names := d.Names()
	if len(names) != 1 {
		return Accept{}, errors.New("Accept-Signature must ask for exactly one signature, e.g. lc=();nonce=\"<16-128 printable characters>\"")
	}
	m, _ := d.Get(names[0])
	il, ok := m.(httpsfv.InnerList)
	if !ok {
		return Accept{}, errors.New("Accept-Signature's member must be an inner list, e.g. lc=();nonce=\"...\"")
	}
	v, ok := il.Params.Get("nonce")
	nonce, isString := v.(string)
	if !ok || !isString {
		return Accept{}, errors.New("Accept-Signature must carry a nonce string parameter")
	}
	if len(nonce) < MinNonce || len(nonce) > MaxNonce {
		return Accept{}, fmt.Errorf("Accept-Signature's nonce must be %d to %d printable characters", MinNonce, MaxNonce)
	}
	// httpsfv admits only printable ASCII (0x20-0x7E) in a string.
	return Accept{Label: names[0], Nonce: nonce}, nil
}

// ContentDigest is the Content-Digest field value of body (RFC 9530):
// its SHA-256.
func ContentDigest(body []byte) string {
	sum := sha256.Sum256(body)
	b := make([]byte, 0, 12+base64.StdEncoding.EncodedLen(len(sum)))
	b = append(b, "sha-256=:"...)
	b = base64.StdEncoding.AppendEncode(b, sum[:])
	b = append(b, ':')
	return string(b)
}

// Errors of CheckDigest.
var (
	ErrDigestMalformed   = errors.New("Content-Digest is not a dictionary of byte sequences")
	ErrDigestUnsupported = errors.New("Content-Digest names no algorithm this server checks (sha-256, sha-512)")
	ErrDigestMismatch    = errors.New("Content-Digest does not match the body")
)

// CheckDigest checks a Content-Digest field against body: every sha-256
// and sha-512 member must match, and one at least must be there. Other
// algorithms are ignored (RFC 9530 §2), but cannot stand alone.
func CheckDigest(values []string, body []byte) error {
	d, err := httpsfv.UnmarshalDictionary(values)
	if err != nil {
		return ErrDigestMalformed
	}
	checked := false
	for _, name := range d.Names() {
		m, _ := d.Get(name)
		it, ok := m.(httpsfv.Item)
		want, isBytes := it.Value.([]byte)
		if !ok || !isBytes {
			return ErrDigestMalformed
		}
		var got []byte
		switch name {
		case "sha-256":
			s := sha256.Sum256(body)
			got = s[:]
		case "sha-512":
			s := sha512.Sum512(body)
			got = s[:]
		default:
			continue
		}
		if subtle.ConstantTimeCompare(got, want) != 1 {
			return ErrDigestMismatch
		}
		checked = true
	}
	if !checked {
		return ErrDigestUnsupported
	}
	return nil
}

// AnswerComponents is the component set a licensectl answer covers
// (docs/design.md §15); reqDigest adds the request's Content-Digest, when it
// sent one; an answer without a Content-Type (a 204) covers none.
func AnswerComponents(hasContentType, reqDigest bool) []Component {
	switch {
	case hasContentType && reqDigest:
		return answerWithDigest
	case hasContentType:
		return answer
	case reqDigest:
		return noContentWithDigest
	default:
		return noContent
	}
}

var (
	answer = []Component{
		{Name: "@status"}, {Name: "content-type"}, {Name: "content-digest"},
		{Name: "@method", Req: true}, {Name: "@authority", Req: true}, {Name: "@path", Req: true}, {Name: "@query", Req: true},
		{Name: "accept-signature", Req: true},
	}
	answerWithDigest    = append(append([]Component(nil), answer...), Component{Name: "content-digest", Req: true})
	noContent           = without(answer, "content-type")
	noContentWithDigest = without(answerWithDigest, "content-type")
)

func without(cs []Component, name string) []Component {
	var out []Component
	for _, c := range cs {
		if c.Name != name || c.Req {
			out = append(out, c)
		}
	}
	return out
}

// sameComponents reports whether a and b list the same components in the
// same order.
func sameComponents(a, b []Component) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// bodyDigestMatches reports whether the Content-Digest header h holds a
// sha-256 member equal to body's.
func bodyDigestMatches(h http.Header, body []byte) bool {
	v := h.Values("Content-Digest")
	if len(v) == 0 {
		return false
	}
	d, err := httpsfv.UnmarshalDictionary(v)
	if err != nil {
		return false
	}
	m, ok := d.Get("sha-256")
	if !ok {
		return false
	}
	it, ok := m.(httpsfv.Item)
	want, isBytes := it.Value.([]byte)
	if !ok || !isBytes {
		return false
	}
	sum := sha256.Sum256(body)
	return bytes.Equal(sum[:], want)
}
