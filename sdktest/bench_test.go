package sdktest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"
)

// BenchmarkValidate compares the library's Validate (a signed answer,
// verified, the machine file's freshness checked) with a bare unsigned
// validate request to the same in-process server.
func BenchmarkValidate(b *testing.B) {
	v := newVendor(b)
	key, _ := v.license(b, nil)
	dir := filepath.Join(b.TempDir(), "state")
	c := v.client(b, v.s.URL, dir, nil)
	if err := c.Activate(ctx(b), key, "bench-device"); err != nil {
		b.Fatal(err)
	}
	var sess struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal([]byte(snapshot(b, dir)["session.json"]), &sess); err != nil {
		b.Fatal(err)
	}
	b.Run("library", func(b *testing.B) {
		for b.Loop() {
			if st, err := c.Validate(ctx(b)); err != nil || !st.Valid {
				b.Fatal(st, err)
			}
		}
	})
	b.Run("unsigned", func(b *testing.B) {
		body, _ := json.Marshal(map[string]string{"access_token": sess.AccessToken})
		for b.Loop() {
			req, _ := http.NewRequest(http.MethodPost, v.s.URL+"/v1/runtime/sessions/validate", bytes.NewReader(body))
			req.Header.Set("x-api-key", v.pub)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !bytes.Contains(raw, []byte(`"valid":true`)) {
				b.Fatalf("%s", raw)
			}
		}
	})
}
