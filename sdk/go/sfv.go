package licensing

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// A small reader of RFC 8941 structured fields: dictionaries whose members
// are items or inner lists with parameters, and the item types the signed
// answers use (integers, strings, tokens, byte sequences, booleans). Any
// other input is an error: the library verifies one shape, the server's.

// sfItem is a bare item: int64, string, token, []byte or bool.
type sfItem struct {
	value  any
	params []sfParam
}

// sfToken is a token, kept apart from a string.
type sfToken string

type sfParam struct {
	key   string
	value any
}

// sfMember is a dictionary member: an item, or an inner list (list != nil).
type sfMember struct {
	key    string
	item   sfItem
	list   []sfItem
	inner  bool
	params []sfParam
}

var errSF = errors.New("licensing: malformed structured field")

type sfReader struct {
	s string
	i int
}

func parseDictionary(s string) ([]sfMember, error) {
	r := &sfReader{s: s}
	r.skipSP()
	var out []sfMember
	for r.i < len(r.s) {
		key, err := r.key()
		if err != nil {
			return nil, err
		}
		m := sfMember{key: key}
		if r.peek() == '=' {
			r.i++
			if r.peek() == '(' {
				m.inner = true
				if m.list, m.params, err = r.innerList(); err != nil {
					return nil, err
				}
			} else if m.item, err = r.item(); err != nil {
				return nil, err
			}
		} else {
			m.item.value = true
			if m.item.params, err = r.params(); err != nil {
				return nil, err
			}
		}
		for j := range out {
			if out[j].key == key {
				return nil, errSF // a repeated member would make two readings
			}
		}
		out = append(out, m)
		r.skipOWS()
		if r.i >= len(r.s) {
			break
		}
		if r.peek() != ',' {
			return nil, errSF
		}
		r.i++
		r.skipOWS()
		if r.i >= len(r.s) {
			return nil, errSF
		}
	}
	return out, nil
}

func (r *sfReader) peek() byte {
	if r.i < len(r.s) {
		return r.s[r.i]
	}
	return 0
}

func (r *sfReader) skipSP() {
	for r.i < len(r.s) && r.s[r.i] == ' ' {
		r.i++
	}
}

func (r *sfReader) skipOWS() {
	for r.i < len(r.s) && (r.s[r.i] == ' ' || r.s[r.i] == '\t') {
		r.i++
	}
}

func (r *sfReader) key() (string, error) {
	start := r.i
	if c := r.peek(); !(c >= 'a' && c <= 'z' || c == '*') {
		return "", errSF
	}
	for r.i < len(r.s) {
		c := r.s[r.i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '*') {
			break
		}
		r.i++
	}
	return r.s[start:r.i], nil
}

func (r *sfReader) innerList() ([]sfItem, []sfParam, error) {
	r.i++ // (
	var items []sfItem
	for {
		r.skipSP()
		if r.peek() == ')' {
			r.i++
			p, err := r.params()
			return items, p, err
		}
		if r.i >= len(r.s) {
			return nil, nil, errSF
		}
		it, err := r.item()
		if err != nil {
			return nil, nil, err
		}
		items = append(items, it)
		if c := r.peek(); c != ' ' && c != ')' {
			return nil, nil, errSF
		}
	}
}

func (r *sfReader) item() (sfItem, error) {
	v, err := r.bare()
	if err != nil {
		return sfItem{}, err
	}
	p, err := r.params()
	return sfItem{value: v, params: p}, err
}

func (r *sfReader) params() ([]sfParam, error) {
	var out []sfParam
	for r.peek() == ';' {
		r.i++
		r.skipSP()
		key, err := r.key()
		if err != nil {
			return nil, err
		}
		var v any = true
		if r.peek() == '=' {
			r.i++
			if v, err = r.bare(); err != nil {
				return nil, err
			}
		}
		for _, p := range out {
			if p.key == key {
				return nil, errSF
			}
		}
		out = append(out, sfParam{key, v})
	}
	return out, nil
}

func (r *sfReader) bare() (any, error) {
	c := r.peek()
	switch {
	case c == '-' || c >= '0' && c <= '9':
		start := r.i
		if c == '-' {
			r.i++
		}
		for r.i < len(r.s) && r.s[r.i] >= '0' && r.s[r.i] <= '9' {
			r.i++
		}
		if r.i < len(r.s) && r.s[r.i] == '.' {
			return nil, errSF // decimals are not part of this shape
		}
		digits := strings.TrimPrefix(r.s[start:r.i], "-")
		if len(digits) == 0 || len(digits) > 15 {
			return nil, errSF
		}
		n, err := strconv.ParseInt(r.s[start:r.i], 10, 64)
		if err != nil {
			return nil, errSF
		}
		return n, nil
	case c == '"':
		r.i++
		var b strings.Builder
		for r.i < len(r.s) {
			c := r.s[r.i]
			r.i++
			switch {
			case c == '\\':
				if r.i >= len(r.s) || (r.s[r.i] != '"' && r.s[r.i] != '\\') {
					return nil, errSF
				}
				b.WriteByte(r.s[r.i])
				r.i++
			case c == '"':
				return b.String(), nil
			case c < 0x20 || c > 0x7e:
				return nil, errSF
			default:
				b.WriteByte(c)
			}
		}
		return nil, errSF
	case c == ':':
		end := strings.IndexByte(r.s[r.i+1:], ':')
		if end < 0 {
			return nil, errSF
		}
		raw, err := base64.StdEncoding.Strict().DecodeString(r.s[r.i+1 : r.i+1+end])
		if err != nil {
			return nil, errSF
		}
		r.i += end + 2
		return raw, nil
	case c == '?':
		if r.i+1 >= len(r.s) || (r.s[r.i+1] != '0' && r.s[r.i+1] != '1') {
			return nil, errSF
		}
		r.i += 2
		return r.s[r.i-1] == '1', nil
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '*':
		start := r.i
		for r.i < len(r.s) && isTokenChar(r.s[r.i]) {
			r.i++
		}
		return sfToken(r.s[start:r.i]), nil
	}
	return nil, errSF
}

func isTokenChar(c byte) bool {
	return c > 0x20 && c < 0x7f && !strings.ContainsRune(`"(),;<=>?@[\]{}`, rune(c)) || c == ':' || c == '/'
}

// sfString serializes a string as RFC 8941 §4.1.6 does.
func sfString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// serializeParams serializes parameters as RFC 8941 §4.1.1.2 does, for the
// types parseDictionary reads.
func serializeParams(ps []sfParam) (string, error) {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(";" + p.key)
		switch v := p.value.(type) {
		case bool:
			if !v {
				b.WriteString("=?0")
			}
		case int64:
			b.WriteString("=" + strconv.FormatInt(v, 10))
		case string:
			b.WriteString("=" + sfString(v))
		case sfToken:
			b.WriteString("=" + string(v))
		case []byte:
			b.WriteString("=:" + base64.StdEncoding.EncodeToString(v) + ":")
		default:
			return "", errSF
		}
	}
	return b.String(), nil
}
