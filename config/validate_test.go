package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/viper"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string // substring of the error; "" for none
	}{
		{name: "OK", change: func(*Config) {}},
		{name: "OKSMTP", change: func(c *Config) { c.Mail.Driver = "smtp"; c.Mail.SMTP.Host = "mail.example.com" }},
		{name: "OKRateLimitOffIgnoresWindow", change: func(c *Config) { c.RateLimit.Enabled = false; c.RateLimit.Window = 0 }},
		{name: "OKTrustedProxies", change: func(c *Config) { c.Server.TrustedProxies = []string{"10.0.0.0/8", "::1", "fd00::/8"} }},
		{name: "ErrEmptyListen", change: func(c *Config) { c.Server.Listen = "" }, want: "server.listen: must not be empty"},
		{name: "OKListenForms", change: func(c *Config) { c.Server.Listen = "[::1]:0"; c.Metrics.Listen = ":9090" }},
		{name: "ErrListenNoPort", change: func(c *Config) { c.Server.Listen = "nonsense" }, want: `server.listen: must be host:port such as 127.0.0.1:8080 or :8080, got "nonsense"`},
		{name: "ErrListenBadPort", change: func(c *Config) { c.Server.Listen = "127.0.0.1:99999" }, want: "server.listen: must be host:port"},
		{name: "ErrEmptyDataDir", change: func(c *Config) { c.DataDir = " " }, want: "data_dir: must not be empty"},
		{name: "ErrPublicURL", change: func(c *Config) { c.Server.PublicURL = "example.com" }, want: "server.public_url"},
		{name: "ErrTrustedProxy", change: func(c *Config) { c.Server.TrustedProxies = []string{"10.0.0.0/33"} }, want: "server.trusted_proxies"},
		{name: "ErrMaxQueueWait", change: func(c *Config) { c.Server.MaxQueueWait = -time.Second }, want: "server.max_queue_wait: must be a positive duration"},
		{name: "ErrShutdownTimeout", change: func(c *Config) { c.Server.ShutdownTimeout = 0 }, want: "server.shutdown_timeout: must be a positive duration"},
		{name: "ErrGCPercent", change: func(c *Config) { c.Server.GCPercent = -1 }, want: "server.gc_percent: must be 0 (the runtime's default) or more"},
		{name: "ErrMailDriver", change: func(c *Config) { c.Mail.Driver = "pigeon" }, want: "mail.driver: must be one of file, smtp, log"},
		{name: "ErrSMTPHost", change: func(c *Config) { c.Mail.Driver = "smtp" }, want: "mail.smtp.host: must be set"},
		{name: "ErrSMTPTLS", change: func(c *Config) { c.Mail.Driver = "smtp"; c.Mail.SMTP.Host = "h"; c.Mail.SMTP.TLS = "ssl" }, want: "mail.smtp.tls"},
		{name: "ErrSMTPPort", change: func(c *Config) { c.Mail.Driver = "smtp"; c.Mail.SMTP.Host = "h"; c.Mail.SMTP.Port = 0 }, want: "mail.smtp.port"},
		{name: "ErrChallenge", change: func(c *Config) { c.Signup.Challenge = "captcha" }, want: "signup.challenge: must be one of altcha, off"},
		{name: "ErrTUIColor", change: func(c *Config) { c.TUI.Color = "rainbow" }, want: "tui.color: must be one of auto, never"},
		{name: "ErrTUIClipboard", change: func(c *Config) { c.TUI.Clipboard = "carrier-pigeon" }, want: "tui.clipboard: must be one of auto, osc52, osc52-tmux, native, off"},
		{name: "ErrTUIRefresh", change: func(c *Config) { c.TUI.Refresh = 0 }, want: "tui.refresh: must be a positive duration"},
		{name: "ErrLogFormat", change: func(c *Config) { c.Log.Format = "xml" }, want: "log.format: must be one of auto, text, json"},
		{name: "ErrLogRequests", change: func(c *Config) { c.Log.Requests = "reads" }, want: "log.requests: must be one of all, writes, errors, none"},
		{name: "ErrLogLevel", change: func(c *Config) { c.Log.Level = "verbose" }, want: "log.level: must be one of debug, info, warn, error"},
		{name: "ErrSessionTTL", change: func(c *Config) { c.Auth.SessionTTL = 0 }, want: "auth.session_ttl"},
		{name: "ErrHashWait", change: func(c *Config) { c.Auth.HashWait = -1 }, want: "auth.hash_wait"},
		{name: "ErrHashConcurrency", change: func(c *Config) { c.Auth.HashConcurrency = -1 }, want: "auth.hash_concurrency"},
		{name: "ErrReplayWindow", change: func(c *Config) { c.Runtime.ReplayWindow = -1 }, want: "runtime.replay_window"},
		{name: "ErrAccessTTL", change: func(c *Config) { c.Runtime.AccessTTL = 0 }, want: "runtime.access_ttl"},
		{name: "ErrRefreshIdleTTL", change: func(c *Config) { c.Runtime.RefreshIdleTTL = 0 }, want: "runtime.refresh_idle_ttl: must be a positive duration"},
		{name: "ErrRefreshAbsoluteTTL", change: func(c *Config) { c.Runtime.RefreshAbsoluteTTL = 0 }, want: "runtime.refresh_absolute_ttl"},
		{name: "ErrRefreshIdleOverAbsolute", change: func(c *Config) { c.Runtime.RefreshIdleTTL = 2 * c.Runtime.RefreshAbsoluteTTL }, want: "must not exceed runtime.refresh_absolute_ttl"},
		{name: "ErrIssuer", change: func(c *Config) { c.Runtime.Issuer = "" }, want: "runtime.issuer"},
		{name: "ErrRateLimitWindow", change: func(c *Config) { c.RateLimit.Window = 0 }, want: "ratelimit.window"},
		{name: "ErrRateLimitRuntime", change: func(c *Config) { c.RateLimit.Runtime = 0 }, want: "ratelimit.runtime: must be positive"},
		{name: "ErrNoTiers", change: func(c *Config) { c.Billing.Tiers = nil }, want: "billing.tiers: must list at least one tier"},
		{name: "ErrDuplicateTier", change: func(c *Config) { c.Billing.Tiers[2].Key = "free" }, want: `billing.tiers[2].key: "free" is used by an earlier tier`},
		{name: "ErrEmptyTierKey", change: func(c *Config) { c.Billing.Tiers[0].Key = "" }, want: "billing.tiers[0].key: must not be empty"},
		{name: "ErrTierLimit", change: func(c *Config) { c.Billing.Tiers[1].MaxLicenses = -2 }, want: "billing.tiers[1].max_licenses"},
		{name: "ErrTierPrice", change: func(c *Config) { c.Billing.Tiers[1].PriceCents = -1 }, want: "billing.tiers[1].price_cents"},
		{name: "ErrGraceDays", change: func(c *Config) { c.Billing.GraceDays = -1 }, want: "billing.grace_days"},
		{name: "ErrPixMerchantName", change: func(c *Config) {
			c.Billing.Pix = Pix{Key: "pix@example.com", MerchantName: strings.Repeat("n", 26), MerchantCity: "RECIFE"}
		}, want: "billing.pix.merchant_name"},
		{name: "ErrPixMerchantCity", change: func(c *Config) {
			c.Billing.Pix = Pix{Key: "pix@example.com", MerchantName: "Licensectl", MerchantCity: "São Paulo"}
		}, want: "billing.pix.merchant_city"},
		{name: "OKPostgresURL", change: postgres("postgres://lc:pw@db.internal:5432/lc?sslmode=verify-full")},
		{name: "OKPostgresSocketURL", change: postgres("postgresql:///lc?host=/run/postgresql")},
		{name: "OKPostgresDSN", change: postgres("host=db.internal user=lc dbname=lc")},
		{name: "OKBoltIgnoresPostgres", change: func(c *Config) { c.Storage.Postgres.URL = "not used" }},
		{name: "ErrStorageDriver", change: func(c *Config) { c.Storage.Driver = "sqlite" }, want: `storage.driver: must be one of bolt, postgres, got "sqlite"`},
		{name: "ErrPostgresNoURL", change: postgres(""), want: "storage.postgres.url: must be set when storage.driver is postgres"},
		{name: "ErrPostgresBadURL", change: postgres("mysql://root:hunter2@db/lc"), want: "storage.postgres.url: must be a postgres:// (or postgresql://) URL or a key=value DSN"},
		{name: "ErrPostgresBadDSN", change: postgres("db.internal"), want: "storage.postgres.url: must be a postgres://"},
		{name: "ErrPostgresMaxConns", change: func(c *Config) { c.Storage.Postgres.MaxConns = -1 }, want: "storage.postgres.max_conns: must be 0 (4 × GOMAXPROCS) or more, got -1"},
		{name: "ErrPostgresConnectTimeout", change: func(c *Config) { c.Storage.Postgres.ConnectTimeout = 0 }, want: "storage.postgres.connect_timeout: must be a positive duration"},
		{name: "ErrPartnerHalfConfigured", change: func(c *Config) { c.Partner.ClientID = "id" }, want: "partner.issuer"},
		{name: "OKPartnerIssuerHTTPS", change: partner("https://id.example.com/realms/a")},
		{name: "OKPartnerIssuerHTTPLoopback4", change: partner("http://127.0.0.1:5556/oidc")},
		{name: "OKPartnerIssuerHTTPLoopback4Net", change: partner("http://127.8.9.10/oidc")},
		{name: "OKPartnerIssuerHTTPLoopback6", change: partner("http://[::1]:5556")},
		{name: "OKPartnerIssuerHTTPLocalhost", change: partner("http://localhost:5556")},
		{name: "ErrPartnerIssuerHTTP", change: partner("http://id.example.com"), want: `partner.issuer: must be an https URL (http only on a loopback host: 127.0.0.0/8, ::1, localhost), got "http://id.example.com"`},
		{name: "ErrPartnerIssuerHTTPPrivate", change: partner("http://10.0.0.7:8080"), want: "partner.issuer: must be an https URL"},
		{name: "ErrPartnerIssuerHTTPLocalhostLookalike", change: partner("http://localhost.example.com"), want: "partner.issuer: must be an https URL"},
		{name: "ErrPartnerIssuerHTTPUnspecified", change: partner("http://0.0.0.0:5556"), want: "partner.issuer: must be an https URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.change(&c)
			err := c.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("got %v, want no error", err)
			case tt.want != "" && err == nil:
				t.Fatalf("got no error, want one containing %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Errorf("got %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// postgres selects the PostgreSQL store at url.
func postgres(url string) func(*Config) {
	return func(c *Config) { c.Storage.Driver, c.Storage.Postgres.URL = DriverPostgres, url }
}

// The database password never reaches an error message: the URL is not
// echoed, whatever is wrong with it.
func TestValidatePostgresURLNotEchoed(t *testing.T) {
	c := Default()
	postgres("mysql://root:hunter2@db/lc")(&c)
	err := c.Validate()
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("Validate = %v; want an error without the password", err)
	}
}

// partner configures partner sign-in with issuer.
func partner(issuer string) func(*Config) {
	return func(c *Config) { c.Partner.Issuer, c.Partner.ClientID = issuer, "licensectl" }
}

func TestValidateReportsEveryProblem(t *testing.T) {
	c := Default()
	c.Server.Listen = ""
	c.Log.Level = "loud"
	err := c.Validate()
	if err == nil {
		t.Fatal("got no error")
	}
	for _, want := range []string{"server.listen", "log.level"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got %q, want it to mention %s", err, want)
		}
	}
}

// The example file at the root of the repository loads to exactly Default()
// and names every key, so the two cannot drift apart.
func TestExampleFile(t *testing.T) {
	const path = "../licensectl.yaml"

	got, err := Load(LoadOptions{File: path, Env: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if want := Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("%s loads to\n%+v\nwant Default()\n%+v", path, got, want)
	}

	v := viper.New()
	v.SetConfigFile(path)
	if err := v.ReadInConfig(); err != nil {
		t.Fatal(err)
	}
	inFile := v.AllKeys()
	for _, l := range leafKeys() {
		if !slices.Contains(inFile, l.key) {
			t.Errorf("%s does not list key %s", path, l.key)
		}
	}

	tiers, ok := v.Get("billing.tiers").([]any)
	if !ok || len(tiers) == 0 {
		t.Fatalf("%s: billing.tiers: got %T, want a list of tiers", path, v.Get("billing.tiers"))
	}
	tierType := reflect.TypeFor[Tier]()
	for i, raw := range tiers {
		tier, ok := raw.(map[string]any)
		if !ok {
			t.Fatalf("%s: billing.tiers[%d]: got %T, want a map", path, i, raw)
		}
		for f := range tierType.Fields() {
			if _, ok := tier[f.Tag.Get("mapstructure")]; !ok {
				t.Errorf("%s: billing.tiers[%d] does not list key %s", path, i, f.Tag.Get("mapstructure"))
			}
		}
	}
}
