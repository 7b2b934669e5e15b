package server_test

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"licensectl/config"
)

// TestRuntimeLicenseDevices: POST /v1/runtime/licenses/devices lists a
// licence's devices for its customer (docs/design.md §17): a signed answer
// with no fingerprint anywhere, the caller's device current, another
// licence's devices absent; anti-replay as activation; limited per licence.
func TestRuntimeLicenseDevices(t *testing.T) {
	const perLicense = 6
	f := newRT(t, func(c *config.Config) {
		c.RateLimit.Enabled = true
		c.RateLimit.Window = time.Minute
		c.RateLimit.Runtime, c.RateLimit.RuntimeAuth, c.RateLimit.Management = 1000, 1000, 1000
		c.RateLimit.RuntimeDevices = perLicense
	})
	keys := f.licenses(t, 3, planOpts{maxDevices: 3})
	mine, theirs, spare := keys[0], keys[1], keys[2]
	f.activate(t, mine, "list-fp-old")
	f.activate(t, mine, "list-fp-new")
	f.activate(t, theirs, "list-fp-other")
	old, nw, other := f.device(t, "list-fp-old"), f.device(t, "list-fp-new"), f.device(t, "list-fp-other")
	body := func(key, fp string) map[string]any {
		ts, n := f.replay()
		b := map[string]any{"license_key": key, "timestamp": ts, "nonce": n}
		if fp != "" {
			b["device_fingerprint"] = fp
		}
		return b
	}
	calls := 0 // of mine, against its limit
	t.Run("OK", func(t *testing.T) {
		pinned := f.pinned(t, "")
		for _, c := range []struct {
			name, key, fp string
			want          []string
			current       string
		}{
			{"current", mine, "list-fp-old", []string{nw.ID, old.ID}, old.ID},
			{"no fingerprint", strings.ToLower(mine), "", []string{nw.ID, old.ID}, ""},
			{"another licence's device", mine, "list-fp-other", []string{nw.ID, old.ID}, ""},
			{"other licence", theirs, "list-fp-other", []string{other.ID}, other.ID},
		} {
			if c.key != theirs {
				calls++
			}
			r := f.signedDo(t, "POST", "/licenses/devices", body(c.key, c.fp)).wantSigned(t, pinned, http.StatusOK)
			for _, fp := range []string{"list-fp-old", "list-fp-new", "list-fp-other", "fingerprint"} {
				if strings.Contains(string(r.Body), fp) {
					t.Fatalf("%s: the answer carries %q: %s", c.name, fp, r.Body)
				}
			}
			var out struct {
				Data []map[string]any `json:"data"`
			}
			r.JSON(t, &out)
			var ids []string
			for _, d := range out.Data {
				ids = append(ids, d["id"].(string))
				var fields []string
				for k := range d {
					fields = append(fields, k)
				}
				slices.Sort(fields)
				if want := []string{"bound_at", "current", "id", "last_seen_at", "name", "platform"}; !slices.Equal(fields, want) {
					t.Fatalf("%s: fields %v, want %v", c.name, fields, want)
				}
				if d["current"] != (d["id"] == c.current) {
					t.Fatalf("%s: %v current = %v, want it for %q only", c.name, d["id"], d["current"], c.current)
				}
			}
			if !slices.Equal(ids, c.want) {
				t.Fatalf("%s: ids %v, want %v", c.name, ids, c.want)
			}
		}
	})
	t.Run("OKCountsAsRuntimeRequest", func(t *testing.T) {
		before := usage(t, f.s, f.org.APIKey).Usage.RuntimeRequests.Current
		f.do(t, "POST", "/licenses/devices", body(theirs, "")).Want(t, http.StatusOK)
		if got := usage(t, f.s, f.org.APIKey).Usage.RuntimeRequests.Current; got != before+1 {
			t.Fatalf("runtime_requests = %d after one list, want %d", got, before+1)
		}
	})
	t.Run("ErrNonceReused", func(t *testing.T) {
		b := body(mine, "")
		f.do(t, "POST", "/licenses/devices", b).Want(t, http.StatusOK)
		f.do(t, "POST", "/licenses/devices", b).WantError(t, http.StatusConflict, "nonce_reused")
		calls += 2
		f.wantAudit(t, "runtime.replay_rejected", 1)
	})
	t.Run("ErrStaleTimestamp", func(t *testing.T) {
		b := body(mine, "")
		b["timestamp"] = f.s.Clock().Now().Add(-10 * time.Minute).Format(time.RFC3339Nano)
		f.do(t, "POST", "/licenses/devices", b).WantError(t, http.StatusUnauthorized, "stale_timestamp")
		calls++
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		for name, change := range map[string]func(map[string]any){
			"no key":          func(b map[string]any) { delete(b, "license_key") },
			"bad timestamp":   func(b map[string]any) { b["timestamp"] = "yesterday" },
			"short nonce":     func(b map[string]any) { b["nonce"] = "n" },
			"null device":     func(b map[string]any) { b["device_fingerprint"] = nil },
			"unknown field":   func(b map[string]any) { b["fingerprints"] = true },
			"blank device":    func(b map[string]any) { b["device_fingerprint"] = "   " },
			"device as array": func(b map[string]any) { b["device_fingerprint"] = []string{"list-fp-old"} },
		} {
			b := body(spare, "")
			change(b)
			t.Run(name, func(t *testing.T) {
				f.do(t, "POST", "/licenses/devices", b).WantError(t, http.StatusBadRequest, "validation_failed")
			})
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		f.do(t, "POST", "/licenses/devices", body("7KQ2M-9XW4T-HB3ZP-0D6RN-C5VYE", "")).WantError(t, http.StatusNotFound, "not_found")
	})
	t.Run("ErrRateLimited", func(t *testing.T) {
		for ; calls < perLicense; calls++ {
			f.do(t, "POST", "/licenses/devices", body(mine, "")).Want(t, http.StatusOK)
		}
		r := f.do(t, "POST", "/licenses/devices", body(strings.ToLower(mine), ""))
		r.WantError(t, http.StatusTooManyRequests, "rate_limited")
		if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
			t.Fatalf("Retry-After = %q, want 1 to 60 seconds", r.Header.Get("Retry-After"))
		}
		// The limit is the licence's: another licence lists on.
		f.do(t, "POST", "/licenses/devices", body(theirs, "")).Want(t, http.StatusOK)
	})
}
