package sdktest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"licensectl.dev/sdk/go"
)

// base is where clients reach the server: the server itself.
func (v *vendor) base(*testing.T) string { return v.s.URL }

// TestEveryCall drives each call of the library against a real server:
// activation with the key as a user types it, validation, the entitlement
// check, a machine file in the state directory, logout, sign-in and a
// device reset.
func TestEveryCall(t *testing.T) {
	v := newVendor(t)
	key, _ := v.license(t, planSpec{"device_reset_limit": 2})
	base := v.base(t)
	dir := filepath.Join(t.TempDir(), "state")
	c := v.client(t, base, dir, nil)
	c2 := ctx(t)

	if st, err := c.Validate(c2); err != nil || st.Valid || st.Reason != "no_session" {
		t.Fatalf("before activation: %+v, %v", st, err)
	}
	typed := strings.ToLower(strings.ReplaceAll(key, "-", ""))
	if err := c.Activate(c2, typed, "device-1"); err != nil {
		t.Fatalf("Activate: %v", err)
	}
	st, err := c.Validate(c2)
	if err != nil || !st.Valid || st.Offline || !slices.Equal(st.Entitlements, []string{"export.pdf"}) || st.ValidUntil.Before(time.Now()) {
		t.Fatalf("Validate: %+v, %v", st, err)
	}
	for _, name := range []string{"session.json", "machine.lic", "clock"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v, %v", name, fi, err)
		}
	}
	for ent, want := range map[string]bool{"export.pdf": true, "print": false} {
		if got, err := c.Entitled(c2, ent); err != nil || got != want {
			t.Errorf("Entitled(%s) = %v, %v; want %v", ent, got, err, want)
		}
	}
	if err := c.Logout(c2); err != nil {
		t.Fatalf("Logout: %v", err)
	}
	if st, err := c.Validate(c2); err != nil || st.Reason != "no_session" {
		t.Fatalf("after logout: %+v, %v", st, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "machine.lic")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("machine file kept after logout: %v", err)
	}

	// An API refusal is an *Error with the API's code.
	var apiErr *licensing.Error
	if err := c.Activate(c2, "7KQ2M-9XW4T-HB3ZP-0D6RN-C5VYE", "device-1"); !errors.As(err, &apiErr) || apiErr.Status != http.StatusNotFound || apiErr.Code != "not_found" {
		t.Fatalf("unknown key: %v", err)
	}
	if err := c.Login(c2, "ada@example.com", "wrong password here", "device-1"); !errors.As(err, &apiErr) || apiErr.Code != "invalid_credentials" {
		t.Fatalf("Login unknown user: %v", err)
	}

	// Sign-in of an end-user who holds the license.
	v.s.Do(t, http.MethodPost, "/v1/runtime/auth/register", map[string]any{"email": "ada@example.com", "password": "difference engine no 2"}, "x-api-key", v.pub).Want(t, http.StatusCreated)
	if err := c.Login(c2, "ada@example.com", "difference engine no 2", "device-1"); err != nil {
		t.Fatalf("Login: %v", err)
	}
	if st, err := c.Validate(c2); err != nil || !st.Valid {
		t.Fatalf("Validate after login: %+v, %v", st, err)
	}

	// Resetting this device's activation frees its seat and forgets it.
	if err := c.Activate(c2, key, "device-2"); err != nil {
		t.Fatal(err)
	}
	n, err := c.ResetDevice(c2, typed, "device-2")
	if err != nil || n != 1 {
		t.Fatalf("ResetDevice = %d, %v", n, err)
	}
	if st, err := c.Validate(c2); err != nil || st.Reason != "no_session" {
		t.Fatalf("after reset: %+v, %v", st, err)
	}
}

// forger stands between client and server: it passes requests on, or
// answers {"valid":true} unsigned, or replays a signed answer it captured,
// or sends the request to the server in another environment's name so
// that the answer is signed with that environment's key.
type forger struct {
	mu       sync.Mutex
	mode     string // "", "unsigned", "replay", "other-key"
	upstream string
	otherPub string
	captured map[string]*captured // path → the last genuine answer
}

type captured struct {
	status int
	header http.Header
	body   []byte
}

func (f *forger) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	mode := f.mode
	f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	switch mode {
	case "unsigned":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"valid":true,"entitlements":["export.pdf","everything"],"expires_at":"2099-01-01T00:00:00Z"}`))
		return
	case "replay":
		f.mu.Lock()
		c := f.captured[r.URL.Path]
		f.mu.Unlock()
		if c == nil {
			http.Error(w, "nothing captured", http.StatusTeapot)
			return
		}
		for k, vs := range c.header {
			w.Header()[k] = vs
		}
		w.WriteHeader(c.status)
		w.Write(c.body)
		return
	}
	req, _ := http.NewRequest(r.Method, f.upstream+r.URL.RequestURI(), bytes.NewReader(body))
	req.Header = r.Header.Clone()
	req.Host = r.Host // as a reverse proxy keeps it: @authority is covered
	if mode == "other-key" {
		req.Header.Set("x-api-key", f.otherPub)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	rb, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if mode == "" {
		f.mu.Lock()
		f.captured[r.URL.Path] = &captured{resp.StatusCode, resp.Header.Clone(), rb}
		f.mu.Unlock()
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(rb)
}

func (f *forger) set(mode string) {
	f.mu.Lock()
	f.mode = mode
	f.mu.Unlock()
}

// TestForgedAnswers puts a forging proxy between the library and the
// server: an unsigned {"valid":true}, a replayed signed answer and one
// signed with the development environment's key are each ErrNotGenuine,
// and the state directory does not change.
func TestForgedAnswers(t *testing.T) {
	v := newVendor(t)
	key, _ := v.license(t, nil)
	f := &forger{upstream: v.base(t), otherPub: v.devPub, captured: map[string]*captured{}}
	proxy := httptest.NewServer(f)
	t.Cleanup(proxy.Close)
	dir := filepath.Join(t.TempDir(), "state")
	c := v.client(t, proxy.URL, dir, nil)
	c2 := ctx(t)
	if err := c.Activate(c2, key, "device-1"); err != nil {
		t.Fatal(err)
	}
	if st, err := c.Validate(c2); err != nil || !st.Valid {
		t.Fatalf("through the honest proxy: %+v, %v", st, err)
	}
	if _, err := c.Entitled(c2, "export.pdf"); err != nil {
		t.Fatal(err)
	}
	// Capture a genuine answer of each call for the replay, then go back
	// to the session the test forges against.
	if _, err := c.ResetDevice(c2, key, "device-9"); code(err) != "not_found" {
		t.Fatalf("ResetDevice of an unbound device: %v", err)
	}
	if _, err := c.Devices(c2, key, "device-1"); err != nil {
		t.Fatal(err)
	}
	l, err := c.Lease(c2)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	late := v.client(t, proxy.URL, dir, func() time.Time { return time.Now().Add(14 * time.Minute) })
	before := snapshot(t, dir)
	for _, mode := range []string{"unsigned", "replay", "other-key"} {
		f.set(mode)
		st, err := c.Validate(c2)
		if !errors.Is(err, licensing.ErrNotGenuine) || st.Valid {
			t.Errorf("%s: Validate = %+v, %v; want ErrNotGenuine", mode, st, err)
		}
		if ok, err := c.Entitled(c2, "export.pdf"); !errors.Is(err, licensing.ErrNotGenuine) || ok {
			t.Errorf("%s: Entitled = %v, %v; want ErrNotGenuine", mode, ok, err)
		}
		if err := c.Activate(c2, key, "device-2"); !errors.Is(err, licensing.ErrNotGenuine) {
			t.Errorf("%s: Activate = %v; want ErrNotGenuine", mode, err)
		}
		if err := c.Login(c2, "ada@example.com", "difference engine no 2", "device-2"); !errors.Is(err, licensing.ErrNotGenuine) {
			t.Errorf("%s: Login = %v; want ErrNotGenuine", mode, err)
		}
		if _, err := c.ResetDevice(c2, key, "device-1"); !errors.Is(err, licensing.ErrNotGenuine) {
			t.Errorf("%s: ResetDevice = %v; want ErrNotGenuine", mode, err)
		}
		if devs, err := c.Devices(c2, key, "device-1"); !errors.Is(err, licensing.ErrNotGenuine) || devs != nil {
			t.Errorf("%s: Devices = %+v, %v; want ErrNotGenuine", mode, devs, err)
		}
		if _, err := c.ResetDeviceByID(c2, key, "01a25042-a75e-7dd7-aabc-22793208f9ed"); !errors.Is(err, licensing.ErrNotGenuine) {
			t.Errorf("%s: ResetDeviceByID = %v; want ErrNotGenuine", mode, err)
		}
		if l, err := c.Lease(c2); !errors.Is(err, licensing.ErrNotGenuine) {
			t.Errorf("%s: Lease = %+v, %v; want ErrNotGenuine", mode, l, err)
		}
		// A refresh due: the forged answer to it stores no pair.
		if _, err := late.Validate(c2); !errors.Is(err, licensing.ErrNotGenuine) {
			t.Errorf("%s: Validate with a refresh due = %v; want ErrNotGenuine", mode, err)
		}
		if err := c.Logout(c2); !errors.Is(err, licensing.ErrNotGenuine) {
			t.Errorf("%s: Logout = %v; want ErrNotGenuine", mode, err)
		}
		if after := snapshot(t, dir); !mapsEqual(before, after) {
			t.Errorf("%s: the state directory changed", mode)
		}
	}
	f.set("")
	if st, err := c.Validate(c2); err != nil || !st.Valid {
		t.Fatalf("honest again: %+v, %v", st, err)
	}
}

func code(err error) string {
	var e *licensing.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestOfflineAndClock checks a machine file out online, then stops the
// server: Validate answers from the file with Offline. A clock set back
// past the watermark is ErrClockTampered; a clock moved past the file's
// expiry ends offline use.
func TestOfflineAndClock(t *testing.T) {
	v := newVendor(t)
	key, _ := v.license(t, planSpec{"max_offline_days": 7})
	base := v.base(t)
	dir := filepath.Join(t.TempDir(), "state")
	c := v.client(t, base, dir, nil)
	c2 := ctx(t)
	if err := c.Activate(c2, key, "device-1"); err != nil {
		t.Fatal(err)
	}
	if st, err := c.Validate(c2); err != nil || !st.Valid || st.Offline {
		t.Fatalf("online: %+v, %v", st, err)
	}
	v.s.Server.Close()

	st, err := c.Validate(c2)
	if err != nil || !st.Valid || !st.Offline || !slices.Equal(st.Entitlements, []string{"export.pdf"}) {
		t.Fatalf("offline: %+v, %v", st, err)
	}
	if d := time.Until(st.ValidUntil); d < 7*24*time.Hour-time.Hour || d > 7*24*time.Hour+time.Hour {
		t.Fatalf("offline ValidUntil %v, want about 7 days", st.ValidUntil)
	}
	if ok, err := c.Entitled(c2, "export.pdf"); err != nil || !ok {
		t.Fatalf("offline Entitled = %v, %v", ok, err)
	}

	for _, back := range []time.Duration{11 * time.Minute, 24 * time.Hour, 365 * 24 * time.Hour} {
		set := v.client(t, base, dir, func() time.Time { return time.Now().Add(-back) })
		if _, err := set.Validate(c2); !errors.Is(err, licensing.ErrClockTampered) {
			t.Errorf("clock %v back: Validate = %v, want ErrClockTampered", back, err)
		}
		if _, err := set.Entitled(c2, "export.pdf"); !errors.Is(err, licensing.ErrClockTampered) {
			t.Errorf("clock %v back: Entitled = %v, want ErrClockTampered", back, err)
		}
	}
	within := v.client(t, base, dir, func() time.Time { return time.Now().Add(-5 * time.Minute) })
	if st, err := within.Validate(c2); err != nil || !st.Valid || !st.Offline {
		t.Errorf("clock 5 min behind (within the tolerance): %+v, %v", st, err)
	}
	ahead := v.client(t, base, dir, func() time.Time { return time.Now().Add(8 * 24 * time.Hour) })
	if st, err := ahead.Validate(c2); err != nil || st.Valid || st.Reason != "machine_file_expired" {
		t.Errorf("clock past the file's expiry: %+v, %v", st, err)
	}
	// Once the clock was seen 8 days ahead... it was not: a system clock
	// is not trusted time, so the normal clock still runs offline.
	if st, err := c.Validate(c2); err != nil || !st.Valid {
		t.Errorf("clock back to normal: %+v, %v", st, err)
	}
}

// TestMachineFileRenewal: a fresh file is kept as it is; once a third of
// its life is left, the next online Validate checks out a new one.
func TestMachineFileRenewal(t *testing.T) {
	v := newVendor(t)
	key, _ := v.license(t, planSpec{"max_offline_days": 3})
	dir := filepath.Join(t.TempDir(), "state")
	c := v.client(t, v.base(t), dir, nil)
	c2 := ctx(t)
	if err := c.Activate(c2, key, "device-1"); err != nil {
		t.Fatal(err)
	}
	file := func() string {
		b, err := os.ReadFile(filepath.Join(dir, "machine.lic"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	first := file()
	if st, err := c.Validate(c2); err != nil || !st.Valid {
		t.Fatalf("%+v, %v", st, err)
	}
	if file() != first {
		t.Fatal("a fresh machine file was checked out again")
	}
	// Two days and a bit later (server and device alike), less than a
	// third of the three days is left.
	later := time.Now().Add(50 * time.Hour)
	v.s.Clock().Set(later)
	moved := v.client(t, v.base(t), dir, func() time.Time { return time.Now().Add(50 * time.Hour) })
	st, err := moved.Validate(c2)
	if err != nil || !st.Valid || st.Offline {
		t.Fatalf("later: %+v, %v", st, err)
	}
	if file() == first {
		t.Fatal("the machine file was not renewed with a third of its life left")
	}
	v.s.Server.Close()
	if st, err := moved.Validate(c2); err != nil || !st.Valid || !st.Offline || st.ValidUntil.Before(later.Add(71*time.Hour)) {
		t.Fatalf("offline on the renewed file: %+v, %v", st, err)
	}
}

// TestReusedRefreshTokenClearsSession: a copy of the state directory that
// presents a refresh token spent by the original (after the server's grace)
// revokes the session; the library forgets it and says so.
func TestReusedRefreshTokenClearsSession(t *testing.T) {
	v := newVendor(t)
	key, _ := v.license(t, nil)
	dir := filepath.Join(t.TempDir(), "state")
	c := v.client(t, v.base(t), dir, nil)
	c2 := ctx(t)
	if err := c.Activate(c2, key, "device-1"); err != nil {
		t.Fatal(err)
	}
	copyDir := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(copyDir, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	ahead := func() time.Time { return time.Now().Add(14 * time.Minute) }
	if st, err := v.client(t, v.base(t), dir, ahead).Validate(c2); err != nil || !st.Valid {
		t.Fatalf("original refreshes: %+v, %v", st, err)
	}
	// Past the server's grace for a concurrent refresh (10 s).
	v.s.Clock().Set(time.Now().Add(11 * time.Second))
	st, err := v.client(t, v.base(t), copyDir, ahead).Validate(c2)
	var apiErr *licensing.Error
	if !errors.As(err, &apiErr) || apiErr.Code != "refresh_token_reused" || st.Valid || st.Reason != "refresh_token_reused" {
		t.Fatalf("copy: %+v, %v", st, err)
	}
	for _, name := range []string{"session.json", "machine.lic"} {
		if _, err := os.Stat(filepath.Join(copyDir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s kept after reuse: %v", name, err)
		}
	}
	if st, err := v.client(t, v.base(t), copyDir, nil).Validate(c2); err != nil || st.Reason != "no_session" {
		t.Fatalf("copy afterwards: %+v, %v", st, err)
	}
}

// TestRotatedGraceRereadsPair: another process spent the stored refresh
// token a moment ago and stores its pair a little later; the library's
// refresh meets 409 refresh_token_rotated, waits for that pair and carries
// on signed in.
func TestRotatedGraceRereadsPair(t *testing.T) {
	v := newVendor(t)
	key, _ := v.license(t, nil)
	dir := filepath.Join(t.TempDir(), "state")
	c2 := ctx(t)
	if err := v.client(t, v.base(t), dir, nil).Activate(c2, key, "device-1"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "session.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sess map[string]any
	if err := json.Unmarshal(raw, &sess); err != nil {
		t.Fatal(err)
	}
	// The other process's refresh, answered before it stores the pair.
	pair := v.s.Do(t, http.MethodPost, "/v1/runtime/sessions/refresh", map[string]any{"refresh_token": sess["refresh_token"]}, "x-api-key", v.pub).Want(t, http.StatusOK).Map(t)
	stored := make(chan error, 1)
	go func() {
		time.Sleep(500 * time.Millisecond)
		for _, k := range []string{"access_token", "refresh_token", "access_expires_at", "refresh_expires_at"} {
			sess[k] = pair[k]
		}
		b, _ := json.Marshal(sess)
		stored <- os.WriteFile(path, b, 0o600)
	}()
	ahead := v.client(t, v.base(t), dir, func() time.Time { return time.Now().Add(14 * time.Minute) })
	st, err := ahead.Validate(c2)
	if err := <-stored; err != nil {
		t.Fatal(err)
	}
	if err != nil || !st.Valid {
		t.Fatalf("Validate during the other's rotation: %+v, %v", st, err)
	}
	raw, _ = os.ReadFile(path)
	if !strings.Contains(string(raw), pair["refresh_token"].(string)) {
		t.Fatal("the library did not keep the pair the other process stored")
	}
}
