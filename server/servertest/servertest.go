// Package servertest runs a real licensectl server on a loopback listener
// with a temporary data directory, for end-to-end tests of every package.
package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"licensectl/store/password"
	"log/slog"
	"net/http"
	netmail "net/mail"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alexedwards/argon2id"

	"licensectl/config"
	"licensectl/server"
	"licensectl/store"
	"licensectl/store/storetest"
)

// Server is a running server and an HTTP client for it.
type Server struct {
	*server.Server
	URL    string
	Config config.Config
	Client *http.Client
	clock  *Clock
	db     Store
}

// Store is the server's store, for tests that seed data directly (through
// its storetest.Fixtures) or drive its maintenance.
func (s *Server) Store() Store { return s.db }

// Clock is a settable test clock: the suite's (storetest.Clock), so that a
// server under the conformance suite is driven by the same clock type.
type Clock = storetest.Clock

// CheapHash are argon2id parameters that keep tests fast.
var CheapHash = argon2id.Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLength: 16, KeyLength: 32}

// New starts a server on 127.0.0.1:0 with a fresh data directory, rate limits
// off, the ALTCHA challenge off and mail written to files. mods adjust the
// configuration first. The server is closed when the test ends.
func New(tb testing.TB, mods ...func(*config.Config)) *Server {
	tb.Helper()
	cfg := config.Default()
	cfg.DataDir = tb.TempDir()
	cfg.Server.Listen = "127.0.0.1:0"
	cfg.RateLimit.Enabled = false
	cfg.Signup.Challenge = "off"
	cfg.Server.ShutdownTimeout = 5 * time.Second
	for _, m := range mods {
		m(&cfg)
	}
	return Start(tb, cfg)
}

// Start starts a server with exactly cfg (restart tests reuse a data dir);
// opts apply after the test defaults (e.g. a logger whose output a test reads).
func Start(tb testing.TB, cfg config.Config, opts ...server.Option) *Server {
	tb.Helper()
	return StartAt(tb, cfg, time.Now(), opts...)
}

// StartAt is Start with the test clock (server and store) set to at.
func StartAt(tb testing.TB, cfg config.Config, at time.Time, opts ...server.Option) *Server {
	tb.Helper()
	clock := storetest.NewClock(at)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		tb.Fatal(err)
	}
	hasher := password.NewHasher(password.Options{Concurrency: cfg.Auth.HashConcurrency, MaxWait: cfg.Auth.HashWait, Params: &CheapHash})
	db, err := OpenStore(cfg.DataDir, StoreOptions{Clock: clock.Now, Hasher: hasher, Billing: cfg.Billing.Policy(), MaxQueueWait: cfg.Server.MaxQueueWait, MaxWebhookEndpoints: cfg.Webhooks.MaxEndpoints})
	if err != nil {
		tb.Fatalf("open the store: %v", err)
	}
	srv, err := server.New(cfg, db, append([]server.Option{server.WithLogger(logger), server.WithClock(clock.Now)}, opts...)...)
	if err != nil {
		tb.Fatalf("server.New: %v", err)
	}
	if err := srv.Open(); err != nil {
		srv.Close()
		tb.Fatalf("Open: %v", err)
	}
	// Every answer a test receives through Client is checked against the
	// OpenAPI document.
	s := &Server{Server: srv, URL: srv.URL(), Config: cfg, clock: clock, db: db,
		Client: &http.Client{Timeout: 30 * time.Second, Transport: newValidatingTransport(tb, srv.URL())}}
	tb.Cleanup(func() { srv.Close() })
	return s
}

// Clock is the server's clock.
func (s *Server) Clock() *Clock { return s.clock }

// Org is a seeded organization with a verified owner and a developer API key.
type Org struct {
	ID            string
	OwnerEmail    string
	OwnerPassword string
	APIKey        string
}

var orgSeq atomic.Int64

// Password is a password that passes the policy.
const Password = "correct horse battery staple 42"

// NewOrg seeds an organization straight into the store, with its owner and
// an API key, so tests of other endpoints need not go through signup.
func (s *Server) NewOrg(tb testing.TB) *Org {
	tb.Helper()
	n := orgSeq.Add(1)
	email := "owner" + itoa(n) + "@example.com"
	ctx := context.Background()
	o, err := s.Store().CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Org " + itoa(n), OwnerEmail: email, OwnerPassword: Password})
	if err != nil {
		tb.Fatalf("CreateOrganization: %v", err)
	}
	_, key, err := s.Store().CreateAPIKey(ctx, o.ID, "test")
	if err != nil {
		tb.Fatalf("CreateAPIKey: %v", err)
	}
	return &Org{ID: o.ID, OwnerEmail: email, OwnerPassword: Password, APIKey: key}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// Resp is a response read whole.
type Resp struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends a request. body is JSON-encoded unless it is a string or []byte;
// hdr is name, value pairs.
func (s *Server) Do(tb testing.TB, method, path string, body any, hdr ...string) *Resp {
	tb.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			tb.Fatalf("encode body: %v", err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		tb.Fatalf("new request: %v", err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := s.Client.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatalf("read body: %v", err)
	}
	return &Resp{Status: res.StatusCode, Header: res.Header, Body: raw}
}

// As sends a request with the API key of org.
func (s *Server) As(tb testing.TB, key, method, path string, body any, hdr ...string) *Resp {
	tb.Helper()
	return s.Do(tb, method, path, body, append([]string{"Authorization", "Bearer " + key}, hdr...)...)
}

// JSON decodes the body into v.
func (r *Resp) JSON(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		tb.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Map decodes a JSON object body.
func (r *Resp) Map(tb testing.TB) map[string]any {
	tb.Helper()
	var m map[string]any
	r.JSON(tb, &m)
	return m
}

// List decodes a JSON array of objects.
func (r *Resp) List(tb testing.TB) []map[string]any {
	tb.Helper()
	var l []map[string]any
	r.JSON(tb, &l)
	return l
}

// Want fails the test unless the status is want.
func (r *Resp) Want(tb testing.TB, want int) *Resp {
	tb.Helper()
	if r.Status != want {
		tb.Fatalf("status = %d, want %d; body %s", r.Status, want, r.Body)
	}
	return r
}

// WantError fails the test unless the response is an error with this status
// and code in the management shape (every field present) or, for runtime
// paths, the runtime shape.
func (r *Resp) WantError(tb testing.TB, status int, code string) {
	tb.Helper()
	r.Want(tb, status)
	var body map[string]map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil || len(body) != 1 || body["error"] == nil {
		tb.Fatalf("error body = %s, want {\"error\":{...}}", r.Body)
	}
	e := body["error"]
	if e["code"] != code {
		tb.Fatalf("error code = %v, want %s; body %s", e["code"], code, r.Body)
	}
	if msg, _ := e["message"].(string); msg == "" {
		tb.Fatalf("error message empty: %s", r.Body)
	}
	retry := 0
	if h := r.Header.Get("Retry-After"); h != "" {
		n, err := strconv.Atoi(h)
		if err != nil || n <= 0 {
			tb.Fatalf("Retry-After = %q, want a positive number of seconds", h)
		}
		retry = n
	} else if retryAfterCodes[code] {
		tb.Fatalf("%s answered without Retry-After (docs/design.md §7)", code)
	}
	if len(e) == 2 {
		return // runtime shape: code and message
	}
	WantKeys(tb, e, "code", "message", "title", "reason", "action", "retry_after_seconds")
	if e["retry_after_seconds"] != float64(retry) {
		tb.Fatalf("retry_after_seconds = %v, Retry-After %d", e["retry_after_seconds"], retry)
	}
}

// retryAfterCodes are the error codes docs/design.md §7 answers with
// Retry-After.
var retryAfterCodes = map[string]bool{
	"seats_exhausted": true, "rate_limited": true, "monthly_quota_exceeded": true,
	"challenge_required": true, "unavailable": true, "overloaded": true,
}

// WantKeys fails the test unless m has exactly these keys.
func WantKeys(tb testing.TB, m map[string]any, keys ...string) {
	tb.Helper()
	var got []string
	for k := range m {
		got = append(got, k)
	}
	sort.Strings(got)
	want := append([]string(nil), keys...)
	sort.Strings(want)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		tb.Fatalf("keys = %v, want %v", got, want)
	}
}

// WantTime fails unless v is an RFC 3339 UTC timestamp ending in Z.
func WantTime(tb testing.TB, field string, v any) {
	tb.Helper()
	s, ok := v.(string)
	if !ok || !strings.HasSuffix(s, "Z") {
		tb.Fatalf("%s = %v, want an RFC 3339 UTC time", field, v)
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		tb.Fatalf("%s = %q: %v", field, s, err)
	}
}

// Login signs in through the API and returns the dashboard access token.
func (s *Server) Login(tb testing.TB, email, password string) string {
	tb.Helper()
	var out struct {
		AccessToken string `json:"access_token"`
	}
	s.Do(tb, "POST", "/v1/mgmt/auth/login", map[string]string{"email": email, "password": password}).Want(tb, http.StatusOK).JSON(tb, &out)
	if out.AccessToken == "" {
		tb.Fatal("login returned no access_token")
	}
	return out.AccessToken
}

// Member is a dashboard member seeded by NewMember, signed in.
type Member struct {
	ID    string
	Email string
	Token string // dashboard access token
}

var memberSeq atomic.Int64

// NewMember adds a verified member of role to org straight into the store and
// signs it in through the API.
func (s *Server) NewMember(tb testing.TB, org *Org, role string) *Member {
	tb.Helper()
	email := "member" + itoa(memberSeq.Add(1)) + "-" + role + "@example.com"
	m, err := s.Store().AddMember(context.Background(), store.AddMemberInput{OrgID: org.ID, Email: email, Password: Password, Role: role})
	if err != nil {
		tb.Fatalf("AddMember: %v", err)
	}
	return &Member{ID: m.ID, Email: email, Token: s.Login(tb, email, Password)}
}

// Member returns the dashboard access token of a new member of role in org.
func (s *Server) Member(tb testing.TB, org *Org, role string) string {
	tb.Helper()
	return s.NewMember(tb, org, role).Token
}

// OwnerToken signs in as org's owner.
func (s *Server) OwnerToken(tb testing.TB, org *Org) string {
	tb.Helper()
	return s.Login(tb, org.OwnerEmail, org.OwnerPassword)
}

// Mail is a message the file mail driver wrote.
type Mail struct {
	To      string
	Subject string
	Body    string
}

// Mails parses every message in <data-dir>/mail, oldest first.
func (s *Server) Mails(tb testing.TB) []Mail {
	tb.Helper()
	s.WaitMail() // account mail is sent from a queue, after the answer
	paths, err := filepath.Glob(filepath.Join(s.Config.DataDir, "mail", "*.eml"))
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(paths) // names start with the time sent
	var out []Mail
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			tb.Fatal(err)
		}
		msg, err := netmail.ReadMessage(f)
		if err != nil {
			f.Close()
			tb.Fatalf("parse %s: %v", p, err)
		}
		body, err := io.ReadAll(msg.Body)
		f.Close()
		if err != nil {
			tb.Fatal(err)
		}
		to, err := netmail.ParseAddress(msg.Header.Get("To"))
		if err != nil {
			tb.Fatalf("%s: To: %v", p, err)
		}
		out = append(out, Mail{To: to.Address, Subject: msg.Header.Get("Subject"), Body: strings.ReplaceAll(string(body), "\r\n", "\n")})
	}
	return out
}

// MailsTo returns the messages sent to addr, oldest first.
func (s *Server) MailsTo(tb testing.TB, addr string) []Mail {
	tb.Helper()
	var out []Mail
	for _, m := range s.Mails(tb) {
		if strings.EqualFold(m.To, addr) {
			out = append(out, m)
		}
	}
	return out
}

// LinkToken returns the token of the first link to path (such as
// "/verify-email") in a mail body, failing the test when there is none.
func LinkToken(tb testing.TB, body, path string) string {
	tb.Helper()
	i := strings.Index(body, path+"?token=")
	if i < 0 {
		tb.Fatalf("no %s link in mail:\n%s", path, body)
	}
	tok := body[i+len(path)+len("?token="):]
	if j := strings.IndexAny(tok, " \r\n\t"); j >= 0 {
		tok = tok[:j]
	}
	return tok
}
