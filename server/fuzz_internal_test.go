package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"licensectl/server/api"
	"licensectl/store"
)

// Fuzz targets for the parsers of untrusted input in the HTTP layer. Their
// seeds (below and in testdata/fuzz) run with every `go test`; scripts/test
// fuzzes each briefly, scripts/fuzz at length.

// inputCodes are the codes a parser may answer bad input with.
var inputCodes = map[string]bool{store.ECodeValidation: true, store.ECodeInvalidJSON: true, store.ECodeBodyTooLarge: true}

func wantInputError(t *testing.T, err error) {
	t.Helper()
	if err != nil && !inputCodes[store.ErrorCode(err)] {
		t.Fatalf("bad input answered %v (code %q)", err, store.ErrorCode(err))
	}
}

// FuzzDecode: any body decodes into a request type or fails with an input
// error, never a panic or an internal error.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `{"email":"a@b.c","password":"x"}`, `{"email":1}`, `[]`, `null`, `{"a":`, "\x00", `{"email":"a"}{"b":1}`,
		`{"email":"\ud800"}`, strings.Repeat(`[`, 10000), `{"quantity":1e400}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var v struct {
			Email    string         `json:"email"`
			Password string         `json:"password"`
			Quantity int            `json:"quantity"`
			Meta     map[string]any `json:"meta"`
		}
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(string(body)))
		wantInputError(t, decode(r, &v))
		r = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(string(body)))
		var rt struct {
			LicenseKey string `json:"license_key"`
			api.Replay
		}
		if err := decodeRuntime(r, &rt); err == nil {
			_, err = replayOf(rt.Replay)
			wantInputError(t, err)
		} else {
			wantInputError(t, err)
		}
		r = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(string(body)))
		_, err := decodeToken(r)
		wantInputError(t, err)
	})
}

// FuzzPageRequest: any query yields a page within bounds or an input error.
func FuzzPageRequest(f *testing.F) {
	for _, q := range []string{"", "page=2&per_page=50", "page=0", "per_page=101", "page=-1", "page=1e9", "page=99999999999999999999", "page=899999999999999999", "per_page=%zz", "page=1&page=2"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if _, err := url.ParseQuery(q); err != nil {
			return // the router refuses such a query before any handler (badQueryParam)
		}
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.URL.RawQuery = q
		p, err := pageRequest(r)
		wantInputError(t, err)
		if err == nil && (p.Page < 1 || p.PerPage < 1 || p.PerPage > store.MaxPerPage || p.Offset() < 0) {
			t.Fatalf("%q gave page %+v", q, p)
		}
	})
}

// FuzzPathSegments: no path with dot segments reaches a handler.
func FuzzPathSegments(f *testing.F) {
	for _, p := range []string{"/v1/mgmt/applications/x", "/a/../b", "/a/./b", "/..", "/a/..%2f", "//"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if !utf8.ValidString(p) {
			return
		}
		got := hasDotSegment(p)
		want := false
		for _, seg := range strings.Split(p, "/") {
			want = want || seg == "." || seg == ".."
		}
		if got != want {
			t.Fatalf("hasDotSegment(%q) = %v", p, got)
		}
	})
}
