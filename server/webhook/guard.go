// Package webhook sends webhook deliveries: the network guard that keeps
// endpoints off private addresses, the signed HTTP send, and the dispatcher
// that works the store's outbox. It knows store and net/http, nothing of the
// server's routing.
package webhook

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"code.dny.dev/ssrf"

	"licensectl/store"
)

// Guard holds the URL rules of docs/design.md §9.
type Guard struct {
	AllowHTTP    bool
	AllowPrivate bool
	// Resolver resolves host names; nil means net.DefaultResolver.
	Resolver *net.Resolver

	guardian *ssrf.Guardian
}

// NewGuard builds a Guard. Any port is allowed: receivers behind 8443 are
// common, and the address check is what keeps requests off internal hosts.
func NewGuard(allowHTTP, allowPrivate bool) *Guard {
	return &Guard{AllowHTTP: allowHTTP, AllowPrivate: allowPrivate, guardian: ssrf.New(ssrf.WithAnyPort())}
}

// CheckURL validates an endpoint URL at registration: absolute https (http
// when allowed), a host, and unless private targets are allowed, no address
// of the host, literal or resolved, that is loopback, private, link-local,
// CGNAT, unspecified or IPv4-mapped. Errors are validation_failed naming url.
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return store.Invalid("url", "url must be an absolute https URL")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && g.AllowHTTP:
	case u.Scheme == "http":
		return store.Invalid("url", "url must use https: plain http is allowed only with webhooks.allow_http: true (or `licensectl serve --dev`, for local testing)")
	default:
		return store.Invalid("url", "url must be an absolute https URL")
	}
	if u.User != nil {
		return store.Invalid("url", "url must not carry credentials")
	}
	if len(raw) > 2048 {
		return store.Invalid("url", "url must be at most 2048 characters")
	}
	if g.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		return g.checkAddr(ip)
	}
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return store.Invalid("url", "url host %q does not resolve", host)
	}
	for _, ip := range addrs {
		if err := g.checkAddr(ip); err != nil {
			return err
		}
	}
	return nil
}

func (g *Guard) checkAddr(ip netip.Addr) error {
	if err := g.guardian.SafeAddr(ip); err != nil {
		return store.Invalid("url", "url must not point to a private, loopback or link-local address (%s): such targets are allowed only with webhooks.allow_private_targets: true (or `licensectl serve --dev`, for local testing)", ip)
	}
	return nil
}

// Client returns the HTTP client deliveries go through: no proxy from the
// environment, no redirects followed, the timeout per attempt, and unless
// private targets are allowed, every dialled address checked again, so a
// name that resolved to a public address at registration cannot be rebound
// to an internal one.
func (g *Guard) Client(timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: timeout}
	if !g.AllowPrivate {
		d.Control = g.guardian.Safe
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
