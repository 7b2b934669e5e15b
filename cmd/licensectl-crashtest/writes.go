package main

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"
)

var client = &http.Client{Timeout: 10 * time.Second}

// call sends a JSON request and decodes a JSON answer into out.
func call(ctx context.Context, method, url string, body, out any, hdr ...string) (int, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, err
	}
	if out != nil && res.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			return res.StatusCode, err
		}
	}
	if res.StatusCode >= 300 {
		return res.StatusCode, fmt.Errorf("%s %s: %d %s", method, url, res.StatusCode, raw)
	}
	return res.StatusCode, nil
}

func get(url, key string) (int, error) {
	return call(context.Background(), "GET", url, nil, nil, "Authorization", "Bearer "+key)
}

func random() string {
	var b [12]byte
	_, _ = crand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// fixture is the application the writes go to.
type fixture struct {
	url, key, app, pub, plan string
}

func newFixture(url, key string) (*fixture, error) {
	f := &fixture{url: url, key: key}
	var app struct {
		ID string `json:"application_id"`
	}
	if _, err := f.mgmt(context.Background(), "POST", "/v1/mgmt/applications", map[string]any{"name": "Crash App"}, &app); err != nil {
		return nil, err
	}
	f.app = app.ID
	var detail struct {
		Environments []struct {
			Name      string `json:"name"`
			PublicKey string `json:"public_key"`
		} `json:"environments"`
	}
	if _, err := f.mgmt(context.Background(), "GET", "/v1/mgmt/applications/"+f.app, nil, &detail); err != nil {
		return nil, err
	}
	for _, e := range detail.Environments {
		if e.Name == "production" {
			f.pub = e.PublicKey
		}
	}
	var plan struct {
		ID string `json:"plan_id"`
	}
	if _, err := f.mgmt(context.Background(), "POST", "/v1/mgmt/applications/"+f.app+"/plans", map[string]any{"name": "Crash", "max_devices": 1000}, &plan); err != nil {
		return nil, err
	}
	f.plan = plan.ID
	return f, nil
}

func (f *fixture) mgmt(ctx context.Context, method, path string, body, out any) (int, error) {
	return call(ctx, method, f.url+path, body, out, "Authorization", "Bearer "+f.key)
}

func (f *fixture) runtime(ctx context.Context, path string, body, out any) (int, error) {
	return call(ctx, "POST", f.url+"/v1/runtime"+path, body, out, "x-api-key", f.pub)
}

// ledger holds every acknowledged write.
type ledger struct {
	mu       sync.Mutex
	licenses map[string]string // id → key
	order    []string          // license ids as acknowledged
	seen     [3]int            // licenses, users, members checked in full so far
	users    []string          // e-mail
	members  []string          // e-mail
	sessions map[string]string // session (first refresh token) → its acknowledged access token
	lost     int
}

func (l *ledger) total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.licenses) + len(l.users) + len(l.members) + len(l.sessions)
}

func (l *ledger) generate(ctx context.Context, f *fixture, _ int) error {
	var gen struct {
		Licenses []struct{ ID, Key string } `json:"licenses"`
	}
	if _, err := f.mgmt(ctx, "POST", "/v1/mgmt/applications/"+f.app+"/licenses", map[string]any{"plan_id": f.plan, "quantity": 1}, &gen); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.licenses == nil {
		l.licenses = map[string]string{}
	}
	for _, x := range gen.Licenses {
		l.licenses[x.ID] = x.Key
		l.order = append(l.order, x.ID)
	}
	return nil
}

type pair struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
}

// activateRefresh activates a known license on a new device, then rotates
// the session's tokens a few times. Only a session whose every refresh was
// answered is checked later: an unanswered refresh may have committed.
func (l *ledger) activateRefresh(ctx context.Context, f *fixture, _ int) error {
	l.mu.Lock()
	var key string
	for _, k := range l.licenses {
		key = k
		break
	}
	l.mu.Unlock()
	if key == "" {
		return fmt.Errorf("no license yet")
	}
	var p pair
	body := map[string]any{"license_key": key, "device_fingerprint": random(), "timestamp": time.Now().UTC().Format(time.RFC3339Nano), "nonce": random()}
	if _, err := f.runtime(ctx, "/licenses/activate", body, &p); err != nil {
		return err
	}
	id := p.RefreshToken
	l.record(id, p.AccessToken)
	for range 3 {
		var n pair
		if _, err := f.runtime(ctx, "/sessions/refresh", map[string]any{"refresh_token": p.RefreshToken}, &n); err != nil {
			l.forget(id) // the refresh may or may not have committed
			return err
		}
		p = n
		l.record(id, p.AccessToken)
	}
	return nil
}

func (l *ledger) record(id, access string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sessions == nil {
		l.sessions = map[string]string{}
	}
	l.sessions[id] = access
}

func (l *ledger) forget(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.sessions, id)
}

func (l *ledger) register(ctx context.Context, f *fixture, _ int) error {
	email := "user-" + random() + "@crash.example"
	if _, err := f.runtime(ctx, "/auth/register", map[string]any{"email": email, "password": "correct horse battery staple 42"}, nil); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.users = append(l.users, email)
	return nil
}

func (l *ledger) addMember(ctx context.Context, f *fixture, _ int) error {
	email := "member-" + random() + "@crash.example"
	if _, err := f.mgmt(ctx, "POST", "/v1/mgmt/organizations/members", map[string]any{"email": email, "password": "correct horse battery staple 42", "role": "viewer"}, nil); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.members = append(l.members, email)
	return nil
}

// sample is what verify looks at of items: those not checked yet, and 50
// of the others at random, unless all is set; seen is updated.
func sample(items []string, seen *int, all bool) []string {
	if all || *seen < 50 {
		*seen = len(items)
		return items
	}
	out := slices.Clone(items[*seen:])
	for range 50 {
		out = append(out, items[rand.IntN(*seen)])
	}
	*seen = len(items)
	return out
}

// verify checks acknowledged writes through the API of a restarted server —
// the new ones and a sample of the older ones each cycle, all of them when
// all is set — and that the listed totals are at least the acknowledged
// counts. Sessions are checked in full each time (the last pair of each).
func (l *ledger) verify(f *fixture, all bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	ctx := context.Background()
	var missing []string
	for _, id := range sample(l.order, &l.seen[0], all) {
		if _, err := f.mgmt(ctx, "GET", "/v1/mgmt/applications/"+f.app+"/licenses/"+id, nil, nil); err != nil {
			missing = append(missing, "license "+id)
		}
	}
	var page struct {
		Total int `json:"total"`
	}
	if _, err := f.mgmt(ctx, "GET", "/v1/mgmt/applications/"+f.app+"/licenses?per_page=1", nil, &page); err != nil {
		return err
	}
	if page.Total < len(l.licenses) {
		missing = append(missing, fmt.Sprintf("license total %d < %d acknowledged", page.Total, len(l.licenses)))
	}
	for _, email := range sample(l.users, &l.seen[1], all) {
		if _, err := f.mgmt(ctx, "GET", "/v1/mgmt/applications/"+f.app+"/users?email="+email, nil, &page); err != nil || page.Total != 1 {
			missing = append(missing, "end-user "+email)
		}
	}
	var members []struct {
		Email string `json:"email"`
	}
	if _, err := f.mgmt(ctx, "GET", "/v1/mgmt/organizations/members", nil, &members); err != nil {
		return err
	}
	have := map[string]bool{}
	for _, m := range members {
		have[m.Email] = true
	}
	for _, email := range sample(l.members, &l.seen[2], all) {
		if !have[email] {
			missing = append(missing, "member "+email)
		}
	}
	for _, access := range l.sessions {
		var v struct {
			Valid  bool   `json:"valid"`
			Reason string `json:"reason"`
		}
		if _, err := f.runtime(ctx, "/sessions/validate", map[string]any{"access_token": access}, &v); err != nil || !v.Valid {
			missing = append(missing, "session ("+v.Reason+")")
		}
	}
	l.lost = len(missing)
	if len(missing) > 0 {
		return fmt.Errorf("%d acknowledged writes lost: %v", len(missing), missing[:min(len(missing), 10)])
	}
	return nil
}
