package server

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"licensectl/server/api"
	"licensectl/store"
)

// The runtime's hot endpoints (validate, entitlement check) answer tens of
// thousands of requests a second. Their bodies are tiny, so reading them
// into pooled buffers and writing the two answer shapes by hand, instead of
// through reflection, is a measurable share of their cost.

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// decodeRuntime is decode with a pooled read buffer; the same errors.
func decodeRuntime(r *http.Request, v any) error {
	buf := bufPool.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 64<<10 {
			buf.Reset()
			bufPool.Put(buf)
		}
	}()
	buf.Reset()
	if _, err := buf.ReadFrom(r.Body); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return store.Errorf(store.ECodeBodyTooLarge, "request body exceeds 1 MiB")
		}
		return store.Errorf(store.ECodeInvalidJSON, "could not read the request body")
	}
	return decodeBytes(buf.Bytes(), v)
}

// plainKey reports whether s needs no JSON escaping (entitlement keys and
// reasons always qualify; anything else takes the slow path).
func plainKey(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			return false
		}
	}
	return true
}

// writeRaw writes a JSON body built by hand, with writeJSON's headers.
func writeRaw(w http.ResponseWriter, body []byte) {
	h := w.Header()
	setJSONHeaders(h)
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// writeValidation writes one of the two validation shapes.
func writeValidation(w http.ResponseWriter, v *store.Validation) {
	buf := bufPool.Get().(*bytes.Buffer)
	defer func() { buf.Reset(); bufPool.Put(buf) }()
	b := buf.AvailableBuffer()
	if !v.Valid {
		if !plainKey(v.Reason) {
			writeJSON(w, http.StatusOK, api.Invalid{Valid: false, Reason: v.Reason})
			return
		}
		b = append(b, `{"valid":false,"reason":"`...)
		b = append(b, v.Reason...)
		b = append(b, "\"}\n"...)
		writeRaw(w, b)
		return
	}
	b = append(b, `{"valid":true,"entitlements":[`...)
	for i, k := range v.Entitlements {
		if !plainKey(k) {
			writeJSON(w, http.StatusOK, api.Valid{Valid: true, Entitlements: v.Entitlements, ExpiresAt: v.ExpiresAt.UTC()})
			return
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, '"')
	}
	b = append(b, `],"expires_at":"`...)
	b = v.ExpiresAt.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, "\"}\n"...)
	writeRaw(w, b)
}

var (
	grantedTrue  = []byte("{\"granted\":true}\n")
	grantedFalse = []byte("{\"granted\":false}\n")
)

// writeGranted writes the entitlement check answer.
func writeGranted(w http.ResponseWriter, granted bool) {
	if granted {
		writeRaw(w, grantedTrue)
	} else {
		writeRaw(w, grantedFalse)
	}
}

// decodeToken reads a {"access_token": "..."} body. The shape clients send
// is parsed directly; anything else (other fields, escapes, odd spacing)
// goes through decodeBytes with its usual errors.
func decodeToken(r *http.Request) (string, error) {
	buf := bufPool.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 64<<10 {
			buf.Reset()
			bufPool.Put(buf)
		}
	}()
	buf.Reset()
	if _, err := buf.ReadFrom(r.Body); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return "", store.Errorf(store.ECodeBodyTooLarge, "request body exceeds 1 MiB")
		}
		return "", store.Errorf(store.ECodeInvalidJSON, "could not read the request body")
	}
	body := bytes.TrimSpace(buf.Bytes())
	if tok, ok := bytes.CutPrefix(body, []byte(`{"access_token":"`)); ok {
		if tok, ok = bytes.CutSuffix(tok, []byte(`"}`)); ok {
			if s := string(tok); plainKey(s) {
				return s, nil
			}
		}
	}
	var in api.AccessToken
	err := decodeBytes(body, &in)
	return in.AccessToken, err
}
