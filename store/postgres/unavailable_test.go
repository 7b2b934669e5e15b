package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"licensectl/store"
	"licensectl/store/postgres/pgtest"
)

// TestUnreachableIsUnavailable: requests made while the database cannot be
// reached (its connections cut, then refused) are 503 unavailable, not 500
// internal (docs/design.md §7, §12), on every kind of path (a transaction,
// a runtime read on a pooled connection, a credential check); once it can
// be reached again they are served.
func TestUnreachableIsUnavailable(t *testing.T) {
	p := newDBProxy(t, pgtest.URL(t))
	db := openOn(t, Options{URL: p.url})
	ctx := context.Background()
	org, err := db.CreateOrganization(ctx, store.CreateOrganizationInput{Name: "Reachable", OwnerEmail: "owner@reach.test", OwnerPassword: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	app, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org.ID, Name: "Reachable"})
	if err != nil {
		t.Fatal(err)
	}
	rt := db.OpenRuntime(store.RuntimeOptions{})
	calls := []struct {
		name string
		do   func() error
	}{
		{"ListApplications", func() error { _, err := db.ListApplications(ctx, org.ID); return err }},
		{"CreateApplication", func() error {
			_, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org.ID, Name: "Another"})
			return err
		}},
		{"ResolveApp", func() error { _, err := rt.ResolveApp(ctx, store.RuntimeClient{AppID: app.ID}); return err }},
		{"Validate", func() error { _, err := rt.Validate(ctx, store.RuntimeClient{AppID: app.ID}, "some-token"); return err }},
		{"OperatorTokenHash", func() error { _, err := db.OperatorTokenHash(ctx); return err }},
		{"RuntimeRequests", func() error { _, err := rt.RuntimeRequests(ctx, org.ID, db.Clock()); return err }},
	}
	p.stop()
	for _, c := range calls {
		if err := c.do(); store.ErrorCode(err) != store.ECodeUnavailable {
			t.Errorf("%s while the database cannot be reached: %v (code %q), want unavailable", c.name, err, store.ErrorCode(err))
		}
	}
	p.start()
	for _, c := range calls {
		if err := c.do(); err != nil && store.ErrorCode(err) == store.ECodeUnavailable {
			t.Errorf("%s once the database is back: %v", c.name, err)
		}
	}
}

func TestUnreachableErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"AdminShutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"CannotConnectNow", fmt.Errorf("query: %w", &pgconn.PgError{Code: "57P03"}), true},
		{"ConnectionException", &pgconn.PgError{Code: "08006"}, true},
		{"TooManyConnections", &pgconn.PgError{Code: "53300"}, true},
		{"ConnClosed", fmt.Errorf("x: %w", pgconn.ErrConnClosed), true},
		{"UnexpectedEOF", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{"Refused", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, true},
		{"UniqueViolation", &pgconn.PgError{Code: "23505"}, false},
		{"SyntaxError", &pgconn.PgError{Code: "42601"}, false},
		{"NoRows", pgx.ErrNoRows, false},
		{"Nil", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := unreachable(tt.err); got != tt.want {
				t.Fatalf("unreachable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// dbProxy relays TCP connections to the database of a URL, so that a test
// can cut them and refuse new ones (stop) and let them through again
// (start) on the same address.
type dbProxy struct {
	t      *testing.T
	target func() (net.Conn, error)
	addr   string
	url    string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func newDBProxy(t *testing.T, raw string) *dbProxy {
	t.Helper()
	cfg, err := pgconn.ParseConfig(raw)
	if err != nil {
		t.Fatal(err)
	}
	network, address := "tcp", net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port))
	if strings.HasPrefix(cfg.Host, "/") {
		network, address = "unix", fmt.Sprintf("%s/.s.PGSQL.%d", cfg.Host, cfg.Port)
	}
	p := &dbProxy{t: t, target: func() (net.Conn, error) { return net.Dial(network, address) }}
	p.start()
	p.addr = p.ln.Addr().String()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(p.addr)
	if u.Host == "" || strings.HasPrefix(u.Query().Get("host"), "/") {
		q := u.Query()
		q.Set("host", host)
		q.Set("port", port)
		u.RawQuery = q.Encode()
		u.Host = ""
	} else {
		u.Host = p.addr
	}
	q := u.Query()
	q.Set("sslmode", "disable")
	u.RawQuery = q.Encode()
	p.url = u.String()
	t.Cleanup(p.stop)
	return p
}

func (p *dbProxy) start() {
	addr := p.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			d, err := p.target()
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, d)
			p.mu.Unlock()
			go func() { io.Copy(d, c); d.Close() }()
			go func() { io.Copy(c, d); c.Close() }()
		}
	}()
}

// stop closes the listener and cuts every relayed connection.
func (p *dbProxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
