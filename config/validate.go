package config

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Validate reports every problem of c at once, one line per key, or nil when
// the configuration can be used. Load calls it.
func (c Config) Validate() error {
	var v validator

	v.check(strings.TrimSpace(c.Server.Listen) != "", "server.listen", "must not be empty")
	if l := c.Server.Listen; strings.TrimSpace(l) != "" {
		v.check(hostPort(l), "server.listen", "must be host:port such as 127.0.0.1:8080 or :8080, got %q", l)
	}
	if c.Server.PublicURL != "" {
		u, err := url.Parse(c.Server.PublicURL)
		v.check(err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "",
			"server.public_url", "must be an absolute http or https URL, got %q", c.Server.PublicURL)
	}
	v.positive("server.shutdown_timeout", c.Server.ShutdownTimeout)
	v.positive("server.max_queue_wait", c.Server.MaxQueueWait)
	v.check(c.Server.GCPercent >= 0, "server.gc_percent", "must be 0 (the runtime's default) or more")
	for _, p := range c.Server.TrustedProxies {
		_, perr := netip.ParsePrefix(p)
		_, aerr := netip.ParseAddr(p)
		v.check(perr == nil || aerr == nil, "server.trusted_proxies", "%q is not a CIDR or an IP address", p)
	}
	v.check(strings.TrimSpace(c.DataDir) != "", "data_dir", "must not be empty")
	v.oneOf("storage.driver", c.Storage.Driver, DriverBolt, DriverPostgres)
	if pg := c.Storage.Postgres; c.Storage.Driver == DriverPostgres {
		v.check(strings.TrimSpace(pg.URL) != "", "storage.postgres.url", "must be set when storage.driver is postgres (postgres://user:password@host:5432/db)")
		// The URL is never echoed: it may hold the database password.
		v.check(strings.TrimSpace(pg.URL) == "" || postgresURL(pg.URL), "storage.postgres.url",
			"must be a postgres:// (or postgresql://) URL or a key=value DSN such as \"host=db user=licensectl dbname=licensectl\"")
	}
	v.check(c.Storage.Postgres.MaxConns >= 0, "storage.postgres.max_conns", "must be 0 (4 × GOMAXPROCS) or more, got %d", c.Storage.Postgres.MaxConns)
	v.positive("storage.postgres.connect_timeout", c.Storage.Postgres.ConnectTimeout)
	v.check(c.Webhooks.Workers >= 1, "webhooks.workers", "must be 1 or more")
	v.positive("webhooks.timeout", c.Webhooks.Timeout)
	for _, d := range c.Webhooks.RetrySchedule {
		v.positive("webhooks.retry_schedule", d)
	}
	v.positive("webhooks.disable_after", c.Webhooks.DisableAfter)
	v.check(c.Webhooks.MaxEndpoints >= 1, "webhooks.max_endpoints", "must be 1 or more")
	if t := c.Server.TLS; t.Enabled() {
		v.check((t.CertFile == "") == (t.KeyFile == ""), "server.tls.key_file", "server.tls.cert_file and server.tls.key_file go together")
		v.check(t.ACMEHost == "" || t.CertFile == "", "server.tls.acme_host", "use either certificate files or ACME, not both")
	}

	if l := c.Metrics.Listen; l != "" {
		_, port, err := net.SplitHostPort(l)
		v.check(err == nil && port != "", "metrics.listen", "must be host:port, got %q", l)
		v.check(l != c.Server.Listen, "metrics.listen", "must differ from server.listen (leave it empty to serve /metrics there)")
	}

	v.positive("tui.refresh", c.TUI.Refresh)
	v.oneOf("tui.color", c.TUI.Color, "auto", "never")
	v.oneOf("tui.clipboard", c.TUI.Clipboard, "auto", "osc52", "osc52-tmux", "native", "off")

	v.oneOf("log.level", c.Log.Level, "debug", "info", "warn", "error")
	v.oneOf("log.format", c.Log.Format, "auto", "text", "json")
	v.oneOf("log.requests", c.Log.Requests, "all", "writes", "errors", "none")

	v.oneOf("mail.driver", c.Mail.Driver, "file", "smtp", "log")
	if c.Mail.Driver == "smtp" {
		v.check(c.Mail.SMTP.Host != "", "mail.smtp.host", "must be set when mail.driver is smtp")
		v.check(c.Mail.SMTP.Port > 0 && c.Mail.SMTP.Port < 65536, "mail.smtp.port", "must be between 1 and 65535, got %d", c.Mail.SMTP.Port)
		v.oneOf("mail.smtp.tls", c.Mail.SMTP.TLS, "none", "starttls", "tls")
		v.check(c.Mail.SMTP.From != "" || c.Mail.From != "", "mail.from", "must be set when mail.driver is smtp")
	}

	if c.RateLimit.Enabled {
		v.positive("ratelimit.window", c.RateLimit.Window)
		v.check(c.RateLimit.Runtime > 0, "ratelimit.runtime", "must be positive, got %d", c.RateLimit.Runtime)
		v.check(c.RateLimit.RuntimeAuth > 0, "ratelimit.runtime_auth", "must be positive, got %d", c.RateLimit.RuntimeAuth)
		v.check(c.RateLimit.RuntimeDevices > 0, "ratelimit.runtime_devices", "must be positive, got %d", c.RateLimit.RuntimeDevices)
		v.check(c.RateLimit.Management > 0, "ratelimit.management", "must be positive, got %d", c.RateLimit.Management)
		v.check(c.RateLimit.Account > 0, "ratelimit.account", "must be positive, got %d", c.RateLimit.Account)
		v.check(c.RateLimit.LoginFailures >= 0, "ratelimit.login_failures", "must not be negative, got %d", c.RateLimit.LoginFailures)
		v.check(c.RateLimit.LoginFailuresGlobal >= 0, "ratelimit.login_failures_global", "must not be negative, got %d", c.RateLimit.LoginFailuresGlobal)
	}

	v.positive("auth.session_ttl", c.Auth.SessionTTL)
	v.check(c.Auth.HashConcurrency >= 0, "auth.hash_concurrency", "must not be negative, got %d", c.Auth.HashConcurrency)
	v.check(c.Auth.HashWait >= 0, "auth.hash_wait", "must not be negative, got %s", c.Auth.HashWait)

	v.oneOf("signup.challenge", c.Signup.Challenge, "altcha", "off")

	v.positive("runtime.replay_window", c.Runtime.ReplayWindow)
	v.positive("runtime.access_ttl", c.Runtime.AccessTTL)
	v.positive("runtime.refresh_idle_ttl", c.Runtime.RefreshIdleTTL)
	v.positive("runtime.refresh_absolute_ttl", c.Runtime.RefreshAbsoluteTTL)
	v.check(c.Runtime.RefreshReuseGrace >= 0 && c.Runtime.RefreshReuseGrace <= time.Minute, "runtime.refresh_reuse_grace",
		"must be between 0s (off) and 1m, got %s", c.Runtime.RefreshReuseGrace)
	v.check(c.Runtime.RefreshIdleTTL <= c.Runtime.RefreshAbsoluteTTL, "runtime.refresh_idle_ttl",
		"must not exceed runtime.refresh_absolute_ttl (%s), got %s", c.Runtime.RefreshAbsoluteTTL, c.Runtime.RefreshIdleTTL)
	v.check(c.Runtime.Issuer != "", "runtime.issuer", "must not be empty")

	v.check(len(c.Billing.Tiers) > 0, "billing.tiers", "must list at least one tier")
	seen := map[string]bool{}
	for i, t := range c.Billing.Tiers {
		key := fmt.Sprintf("billing.tiers[%d]", i)
		v.check(t.Key != "", key+".key", "must not be empty")
		v.check(t.Key == "" || !seen[t.Key], key+".key", "%q is used by an earlier tier", t.Key)
		seen[t.Key] = true
		v.check(t.Name != "", key+".name", "must not be empty")
		v.check(t.PriceCents >= 0, key+".price_cents", "must not be negative, got %d", t.PriceCents)
		for _, l := range []struct {
			name string
			n    int
		}{
			{"max_applications", t.MaxApplications},
			{"max_licenses", t.MaxLicenses},
			{"max_requests_per_month", t.MaxRequestsPerMonth},
			{"audit_log_retention_days", t.AuditLogRetentionDays},
			{"max_dashboard_members", t.MaxDashboardMembers},
		} {
			v.check(l.n >= -1, key+"."+l.name, "must be -1 (unlimited) or more, got %d", l.n)
		}
	}

	v.check(c.Billing.GraceDays >= 0, "billing.grace_days", "must not be negative, got %d", c.Billing.GraceDays)
	if px := c.Billing.Pix; px.Key != "" {
		v.check(len(px.Key) <= 77, "billing.pix.key", "must be at most 77 characters")
		v.check(px.MerchantName != "" && len(px.MerchantName) <= 25 && ascii(px.MerchantName), "billing.pix.merchant_name",
			"must be 1 to 25 ASCII characters when billing.pix.key is set")
		v.check(px.MerchantCity != "" && len(px.MerchantCity) <= 15 && ascii(px.MerchantCity), "billing.pix.merchant_city",
			"must be 1 to 15 ASCII characters when billing.pix.key is set")
	}

	p := c.Partner
	if p.Issuer != "" || p.ClientID != "" || p.ClientSecret != "" || p.RedirectURL != "" {
		v.check(p.Issuer != "", "partner.issuer", "must be set when partner sign-in is configured")
		v.check(p.ClientID != "", "partner.client_id", "must be set when partner sign-in is configured")
		v.check(slices.Contains(p.Scopes, "openid"), "partner.scopes", "must include openid")
	}
	for _, k := range []struct{ key, v string }{{"partner.issuer", p.Issuer}, {"partner.redirect_url", p.RedirectURL}, {"mail.link_base", c.Mail.LinkBase}} {
		if k.v != "" {
			u, err := url.Parse(k.v)
			v.check(err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "", k.key, "must be an absolute http or https URL, got %q", k.v)
		}
	}
	// Discovery, keys and the code exchange (with the client secret) all
	// follow from the issuer: over plain http anyone on the path could sign
	// anyone in. Loopback stays open for a provider on the same host.
	if u, err := url.Parse(p.Issuer); err == nil && u.Scheme == "http" {
		v.check(LoopbackHost(u.Hostname()), "partner.issuer", "must be an https URL (http only on a loopback host: 127.0.0.0/8, ::1, localhost), got %q", p.Issuer)
	}

	return v.err()
}

// validator collects the problems found by Validate.
type validator struct{ problems []string }

// check records "key: message" when ok is false.
func (v *validator) check(ok bool, key, format string, args ...any) {
	if !ok {
		v.problems = append(v.problems, key+": "+fmt.Sprintf(format, args...))
	}
}

// oneOf checks that value is one of allowed.
func (v *validator) oneOf(key, value string, allowed ...string) {
	v.check(slices.Contains(allowed, value), key, "must be one of %s, got %q", strings.Join(allowed, ", "), value)
}

// positive checks that d is greater than zero.
func (v *validator) positive(key string, d time.Duration) {
	v.check(d > 0, key, "must be a positive duration, got %s", d)
}

// err returns the problems as one error, or nil.
func (v *validator) err() error {
	if len(v.problems) == 0 {
		return nil
	}
	return errors.New("config: invalid configuration:\n  " + strings.Join(v.problems, "\n  "))
}

// LoopbackHost reports whether host names this machine's loopback
// interface: localhost, 127.0.0.0/8 or ::1.
func LoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// postgresURL reports whether s has the form of a libpq connection
// string: a postgres:// URL with a host or a socket directory, or key=value
// pairs. The driver checks the rest when it connects.
func postgresURL(s string) bool {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") {
		_, err := url.Parse(s)
		return err == nil
	}
	if strings.Contains(s, "://") {
		return false
	}
	for _, f := range strings.Fields(s) {
		if k, _, ok := strings.Cut(f, "="); !ok || k == "" {
			return false
		}
	}
	return s != ""
}

// hostPort reports whether addr is host:port with a port net.Listen takes
// (a number up to 65535 or a service name), so that a mistyped address is
// refused before serve writes anything rather than when it binds.
func hostPort(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" || strings.ContainsAny(host, " /") {
		return false
	}
	_, err = net.LookupPort("tcp", port)
	return err == nil
}

// ascii reports whether s is printable ASCII, as the fields of a Pix BR Code
// must be (accents are written without: "SAO PAULO").
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
