package server_test

import (
	"net/http"
	"testing"
	"time"

	"licensectl/server/servertest"
	"licensectl/store"
)

// TestSessionCounts: GET …/licenses/{id}/sessions and …/devices/{id}/sessions
// count the sessions a suspension or a block would revoke, in the
// environment the request selects.
func TestSessionCounts(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	key := f.license(t, planOpts{maxDevices: 2})
	lic := f.ids[key]
	f.activate(t, key, "count-fp-1")
	f.activate(t, key, "count-fp-2")
	f.activate(t, key, "count-fp-2")
	dev := f.device(t, "count-fp-2").ID
	count := func(path string, cred string, hdr ...string) *servertest.Resp {
		t.Helper()
		return f.s.As(t, cred, "GET", "/v1/mgmt/applications/"+f.appID+path, nil, hdr...)
	}
	want := func(path string, n int) {
		t.Helper()
		m := count(path, f.org.APIKey).Want(t, http.StatusOK).Map(t)
		servertest.WantKeys(t, m, "active_sessions")
		if m["active_sessions"] != float64(n) {
			t.Fatalf("%s: active_sessions = %v, want %d", path, m["active_sessions"], n)
		}
	}

	t.Run("OK", func(t *testing.T) {
		want("/licenses/"+lic+"/sessions", 3)
		want("/devices/"+dev+"/sessions", 2)
		viewer := f.s.Member(t, f.org, "viewer")
		count("/licenses/"+lic+"/sessions", viewer).Want(t, http.StatusOK)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		count("/licenses/"+store.NewID()+"/sessions", f.org.APIKey).WantError(t, http.StatusNotFound, "not_found")
		count("/devices/nope/sessions", f.org.APIKey).WantError(t, http.StatusNotFound, "not_found")
		count("/licenses/"+lic+"/sessions", f.org.APIKey, "x-environment", "development").WantError(t, http.StatusNotFound, "not_found")
		theirs := f.s.NewOrg(t)
		count("/licenses/"+lic+"/sessions", theirs.APIKey).WantError(t, http.StatusNotFound, "not_found")
	})
	t.Run("OKRevokedAndExpired", func(t *testing.T) {
		f.setStatus(t, "devices", dev, store.DeviceBlocked)
		want("/devices/"+dev+"/sessions", 0)
		want("/licenses/"+lic+"/sessions", 1)
		// Past every session's absolute lifetime nothing is live, revoked or not.
		f.s.Clock().Advance(400 * 24 * time.Hour)
		want("/licenses/"+lic+"/sessions", 0)
	})
}
