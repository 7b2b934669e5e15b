package sdktest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	licensing "licensectl.dev/sdk/go"
)

// TestUpdatesAllowed: a build is allowed updates while the license's
// maintenance had not ended at its build date. Unlimited maintenance
// allows any build; a year of maintenance allows a build before its end
// and refuses one after, from the machine file and from the access token
// alone, and offline from the machine file.
func TestUpdatesAllowed(t *testing.T) {
	now := time.Now()
	cases := []struct {
		name    string
		plan    planSpec
		build   time.Time
		want    bool
		offline bool
	}{
		{"Unlimited", planSpec{}, now.AddDate(5, 0, 0), true, false},
		{"BuildBeforeEnd", planSpec{"maintenance_days": 365}, now.AddDate(0, 11, 0), true, false},
		{"BuildAfterEnd", planSpec{"maintenance_days": 365}, now.AddDate(1, 1, 0), false, false},
		{"OfflineBeforeEnd", planSpec{"maintenance_days": 365, "max_offline_days": 7}, now.AddDate(0, 11, 0), true, true},
		{"OfflineAfterEnd", planSpec{"maintenance_days": 365, "max_offline_days": 7}, now.AddDate(1, 1, 0), false, true},
		{"OfflineUnlimited", planSpec{"max_offline_days": 7}, now.AddDate(5, 0, 0), true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := newVendor(t)
			key, _ := v.license(t, tc.plan)
			dir := filepath.Join(t.TempDir(), "state")
			c := v.client(t, v.base(t), dir, nil)
			c2 := ctx(t)
			if _, err := c.UpdatesAllowed(tc.build); err == nil {
				t.Fatal("before activation: UpdatesAllowed answered without a session")
			}
			if err := c.Activate(c2, key, "device-1"); err != nil {
				t.Fatal(err)
			}
			if st, err := c.Validate(c2); err != nil || !st.Valid {
				t.Fatalf("validate: %+v, %v", st, err)
			}
			if tc.offline {
				v.s.Server.Close()
				if st, err := c.Validate(c2); err != nil || !st.Offline {
					t.Fatalf("offline validate: %+v, %v", st, err)
				}
				// A token that no longer verifies proves the answer is the file's.
				tamperToken(t, dir)
			}
			got, err := c.UpdatesAllowed(tc.build)
			if err != nil || got != tc.want {
				t.Fatalf("UpdatesAllowed(%s) = %v, %v; want %v", tc.build.Format(time.DateOnly), got, err, tc.want)
			}
			if !tc.offline {
				// Without a machine file the answer is the token's, so a
				// forged one is refused.
				if err := os.Remove(filepath.Join(dir, "machine.lic")); err != nil && !errors.Is(err, os.ErrNotExist) {
					t.Fatal(err)
				}
				if got, err := c.UpdatesAllowed(tc.build); err != nil || got != tc.want {
					t.Fatalf("from the token: UpdatesAllowed = %v, %v; want %v", got, err, tc.want)
				}
				tamperToken(t, dir)
				if _, err := c.UpdatesAllowed(tc.build); !errors.Is(err, licensing.ErrNotGenuine) {
					t.Fatalf("forged token: UpdatesAllowed = %v, want ErrNotGenuine", err)
				}
			}
		})
	}
}

// tamperToken changes the signature of the stored access token, as a user
// editing the state directory would.
func tamperToken(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(dir, "session.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sess map[string]any
	if err := json.Unmarshal(raw, &sess); err != nil {
		t.Fatal(err)
	}
	tok, _ := sess["access_token"].(string)
	i := strings.LastIndexByte(tok, '.')
	if i < 0 || i+1 >= len(tok) {
		t.Fatalf("stored token %q", tok)
	}
	flip := byte('A')
	if tok[i+1] == 'A' {
		flip = 'B'
	}
	sess["access_token"] = tok[:i+1] + string(flip) + tok[i+2:]
	if raw, err = json.Marshal(sess); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}
