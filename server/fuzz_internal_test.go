package server

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"licensectl/store"
)

// Fuzz targets of the HTTP layer's parsers of untrusted input. `go test`
// runs their seeds; scripts/fuzz runs them at length.

func FuzzDecodeBody(f *testing.F) {
	for _, s := range []string{`{"email":"a@example.com","password":"x"}`, `{"quantity":"7"}`, `[]`, `{`, ``, `null`, `{"a":1e999}`,
		`{"expires_at":"yesterday"}`, `{"entitlement_ids":[1,2]}`, "\xff\xfe"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var v struct {
			Email    string            `json:"email"`
			Quantity int               `json:"quantity"`
			IDs      []string          `json:"entitlement_ids"`
			Expires  *string           `json:"expires_at"`
			Nested   struct{ A []int } `json:"nested"`
			replayFields
		}
		err := decodeBytes(body, &v)
		if err == nil {
			if _, err := v.replay(); err != nil && store.ErrorCode(err) != store.ECodeValidation {
				t.Fatalf("replay of %q: %v", body, err)
			}
			return
		}
		if c := store.ErrorCode(err); c != store.ECodeInvalidJSON && c != store.ECodeValidation {
			t.Fatalf("decode %q: code %s (%v)", body, c, err)
		}
		if StatusOf(store.ErrorCode(err)) != 400 {
			t.Fatalf("decode %q: status %d", body, StatusOf(store.ErrorCode(err)))
		}
	})
}

func FuzzReplayFields(f *testing.F) {
	for _, s := range []string{"2026-01-02T03:04:05Z", "2026-01-02T03:04:05.123456789+14:00", "", " ", "yesterday", "9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z"} {
		f.Add(s, "0123456789abcdef")
	}
	f.Fuzz(func(t *testing.T, ts, nonce string) {
		rp, err := replayFields{Timestamp: ts, Nonce: nonce}.replay()
		if err != nil {
			if store.ErrorCode(err) != store.ECodeValidation {
				t.Fatalf("replay(%q): %v", ts, err)
			}
			return
		}
		if rp.Timestamp.Location().String() != "UTC" || rp.Nonce != nonce {
			t.Fatalf("replay(%q) = %+v", ts, rp)
		}
	})
}

func FuzzPageQuery(f *testing.F) {
	for _, s := range []string{"page=1&per_page=20", "page=0", "per_page=101", "page=-1", "page=abc", "page=99999999999999999999", "page=%zz", "page=1&page=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		r := httptest.NewRequest("GET", "/v1/mgmt/applications", nil)
		r.URL.RawQuery = q
		p, err := pageRequest(r)
		if err != nil {
			if store.ErrorCode(err) != store.ECodeValidation {
				t.Fatalf("pageRequest(%q): %v", q, err)
			}
			return
		}
		if p.Page < 1 || p.PerPage < 1 || p.PerPage > 100 {
			t.Fatalf("pageRequest(%q) = %+v", q, p)
		}
	})
}

func FuzzPathSegments(f *testing.F) {
	for _, s := range []string{"/v1/mgmt/applications/x/entitlements/..", "/v1/mgmt/applications/%2e%2e", "/account/", "//", "/", "/a/./b", "/a/b/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		p := u.Path
		if hasDotSegment(p) {
			return
		}
		// A path let through has no segment a router would clean away
		// into a redirect to another resource.
		for _, seg := range strings.Split(p, "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("hasDotSegment(%q) = false, segment %q", p, seg)
			}
		}
	})
}
