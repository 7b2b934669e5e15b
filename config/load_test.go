package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// MustWriteFile writes content to name in a fresh temporary directory and
// returns its path.
func MustWriteFile(tb testing.TB, name, content string) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// MustFlags returns a flag set defined by BindFlags and parsed from args.
func MustFlags(tb testing.TB, args ...string) *pflag.FlagSet {
	tb.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		tb.Fatal(err)
	}
	return fs
}

// envOf returns an environment lookup over m, so tests never see the real one.
func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func TestLoadDefaults(t *testing.T) {
	t.Chdir(t.TempDir()) // no ./licensectl.yaml here
	got, err := Load(LoadOptions{Env: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if want := Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestLoadDefaultFileInWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, DefaultFile), []byte("data_dir: /var/lib/here\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	got, err := Load(LoadOptions{Env: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := got.DataDir, "/var/lib/here"; got != want {
		t.Errorf("data_dir: got %q, want %q", got, want)
	}
}

func TestLoad(t *testing.T) {
	const file = `
server:
  listen: "0.0.0.0:9000"
  trusted_proxies: ["10.0.0.0/8"]
data_dir: /srv/file
log:
  level: debug
ratelimit:
  enabled: true
  window: 30s
runtime:
  replay_window: 120s
mail:
  smtp:
    port: 2525
billing:
  tiers:
    - key: solo
      name: Solo
      price_cents: 1000
      max_applications: 2
      max_licenses: 50
      max_requests_per_month: 1000
      audit_log_retention_days: 14
      max_dashboard_members: 1
`
	tests := []struct {
		name  string
		file  string // content of the file given as LoadOptions.File; "" for none
		env   map[string]string
		flags []string
		want  func(*Config)
	}{
		{
			name: "FileOverridesDefaults",
			file: file,
			want: func(c *Config) {
				c.Server.Listen = "0.0.0.0:9000"
				c.Server.TrustedProxies = []string{"10.0.0.0/8"}
				c.DataDir = "/srv/file"
				c.Log.Level = "debug"
				c.RateLimit.Window = 30 * time.Second
				c.Runtime.ReplayWindow = 2 * time.Minute
				c.Mail.SMTP.Port = 2525
				c.Billing.Tiers = []Tier{{Key: "solo", Name: "Solo", PriceCents: 1000, MaxApplications: 2, MaxLicenses: 50, MaxRequestsPerMonth: 1000, AuditLogRetentionDays: 14, MaxDashboardMembers: 1}}
			},
		},
		{
			name: "EnvOverridesFile",
			file: file,
			env: map[string]string{
				"LICENSECTL_SERVER_LISTEN":          "127.0.0.1:7000",
				"LICENSECTL_DATA_DIR":               "/srv/env",
				"LICENSECTL_RUNTIME_REPLAY_WINDOW":  "45s",
				"LICENSECTL_RATELIMIT_ENABLED":      "false",
				"LICENSECTL_MAIL_SMTP_PORT":         "465",
				"LICENSECTL_SERVER_TRUSTED_PROXIES": "192.168.0.0/16, 172.16.0.0/12",
				"LICENSECTL_SIGNUP_BLOCKED_DOMAINS": "example.com",
				"LICENSECTL_BILLING_TIERS":          `[{"key":"one","name":"One","price_cents":5,"max_applications":-1,"max_licenses":-1,"max_requests_per_month":-1,"audit_log_retention_days":1,"max_dashboard_members":-1}]`,
				"LICENSECTL_LOG_LEVEL":              "", // empty counts as unset
			},
			want: func(c *Config) {
				c.Server.Listen = "127.0.0.1:7000"
				c.Server.TrustedProxies = []string{"192.168.0.0/16", "172.16.0.0/12"}
				c.DataDir = "/srv/env"
				c.Log.Level = "debug"
				c.RateLimit.Enabled = false
				c.RateLimit.Window = 30 * time.Second
				c.Runtime.ReplayWindow = 45 * time.Second
				c.Mail.SMTP.Port = 465
				c.Signup.BlockedDomains = []string{"example.com"}
				c.Billing.Tiers = []Tier{{Key: "one", Name: "One", PriceCents: 5, MaxApplications: -1, MaxLicenses: -1, MaxRequestsPerMonth: -1, AuditLogRetentionDays: 1, MaxDashboardMembers: -1}}
			},
		},
		{
			name: "EnvOverridesDefaults",
			env: map[string]string{
				"LICENSECTL_AUTH_SESSION_TTL":                 "1h30m",
				"LICENSECTL_METRICS_ENABLED":                  "0",
				"LICENSECTL_WEBHOOKS_ALLOW_PRIVATE_TARGETS":   "true",
				"LICENSECTL_BILLING_PIX_MERCHANT_CITY":        "Recife",
				"LICENSECTL_ADMIN_OPERATOR_TOKEN":             "s3cret",
				"LICENSECTL_TUI_CLIPBOARD":                    "osc52-tmux",
				"LICENSECTL_TUI_READ_ONLY":                    "true",
				"LICENSECTL_TUI_REFRESH":                      "2s",
				"LICENSECTL_LOG_REQUESTS":                     "none",
				"LICENSECTL_STORAGE_DRIVER":                   "postgres",
				"LICENSECTL_STORAGE_POSTGRES_URL":             "postgres://lc:pw@db.internal/lc",
				"LICENSECTL_STORAGE_POSTGRES_MAX_CONNS":       "24",
				"LICENSECTL_STORAGE_POSTGRES_CONNECT_TIMEOUT": "2s",
			},
			want: func(c *Config) {
				c.Storage = Storage{Driver: DriverPostgres, Postgres: Postgres{URL: "postgres://lc:pw@db.internal/lc", MaxConns: 24, ConnectTimeout: 2 * time.Second}}
				c.Log.Requests = "none"
				c.TUI.Clipboard = "osc52-tmux"
				c.TUI.ReadOnly = true
				c.TUI.Refresh = 2 * time.Second
				c.Auth.SessionTTL = 90 * time.Minute
				c.Metrics.Enabled = false
				c.Webhooks.AllowPrivateTargets = true
				c.Billing.Pix.MerchantCity = "Recife"
				c.Admin.OperatorToken = "s3cret"
			},
		},
		{
			name:  "FlagOverridesEnv",
			file:  file,
			env:   map[string]string{"LICENSECTL_SERVER_LISTEN": "127.0.0.1:7000", "LICENSECTL_DATA_DIR": "/srv/env"},
			flags: []string{"--listen", "127.0.0.1:6000", "--data-dir", "/srv/flag"},
			want: func(c *Config) {
				c.Server.Listen = "127.0.0.1:6000"
				c.Server.TrustedProxies = []string{"10.0.0.0/8"}
				c.DataDir = "/srv/flag"
				c.Log.Level = "debug"
				c.RateLimit.Window = 30 * time.Second
				c.Runtime.ReplayWindow = 2 * time.Minute
				c.Mail.SMTP.Port = 2525
				c.Billing.Tiers = []Tier{{Key: "solo", Name: "Solo", PriceCents: 1000, MaxApplications: 2, MaxLicenses: 50, MaxRequestsPerMonth: 1000, AuditLogRetentionDays: 14, MaxDashboardMembers: 1}}
			},
		},
		{
			name:  "UnchangedFlagDoesNotOverride",
			env:   map[string]string{"LICENSECTL_DATA_DIR": "/srv/env"},
			flags: []string{"--listen", "127.0.0.1:6000"},
			want: func(c *Config) {
				c.Server.Listen = "127.0.0.1:6000"
				c.DataDir = "/srv/env"
			},
		},
		{
			name: "EmptyListsAndSections",
			file: "server:\n  trusted_proxies: []\nadmin:\nsignup:\n  blocked_domains: \"\"\n",
			want: func(*Config) {},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			opts := LoadOptions{Env: envOf(tt.env)}
			if tt.file != "" {
				opts.File = MustWriteFile(t, "licensectl.yaml", tt.file)
			}
			if tt.flags != nil {
				opts.Flags = MustFlags(t, tt.flags...)
			}
			got, err := Load(opts)
			if err != nil {
				t.Fatal(err)
			}
			want := Default()
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestLoadConfigFlag(t *testing.T) {
	t.Chdir(t.TempDir())
	path := MustWriteFile(t, "other.yaml", "data_dir: /srv/from-flag\n")
	got, err := Load(LoadOptions{Flags: MustFlags(t, "--config", path), Env: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := got.DataDir, "/srv/from-flag"; got != want {
		t.Errorf("data_dir: got %q, want %q", got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		env     map[string]string
		missing bool   // name a file that does not exist
		want    string // substring of the error
	}{
		{name: "ErrUnknownKey", file: "server:\n  lisen: x\nbogus: 1\n", want: "unknown keys: bogus, server.lisen"},
		{name: "ErrUnknownSection", file: "servre:\n  listen: x\n", want: "unknown keys: servre.listen"},
		{name: "ErrUnknownTierKey", file: "billing:\n  tiers:\n    - key: a\n      name: A\n      prise_cents: 1\n", want: "prise_cents"},
		{name: "ErrSectionAsValue", file: "server: 8080\n", want: "unknown keys: server"},
		{name: "ErrBadDuration", file: "auth:\n  session_ttl: soon\n", want: `"soon" is not a duration`},
		{name: "ErrDurationWithoutUnit", file: "runtime:\n  replay_window: 300\n", want: "300 is not a duration"},
		{name: "ErrBadYAML", file: "server: [\n", want: "licensectl.yaml"},
		{name: "ErrMissingFile", missing: true, want: "no such file"},
		{name: "ErrEnvBadBool", env: map[string]string{"LICENSECTL_METRICS_ENABLED": "maybe"}, want: "metrics.enabled"},
		{name: "ErrEnvBadInt", env: map[string]string{"LICENSECTL_RATELIMIT_RUNTIME": "lots"}, want: "ratelimit.runtime"},
		{name: "ErrEnvBadDuration", env: map[string]string{"LICENSECTL_RUNTIME_ACCESS_TTL": "15"}, want: `"15" is not a duration`},
		{name: "ErrEnvBadTiers", env: map[string]string{"LICENSECTL_BILLING_TIERS": "free,pro"}, want: "JSON array of tiers"},
		{name: "ErrInvalid", env: map[string]string{"LICENSECTL_MAIL_DRIVER": "pigeon"}, want: "mail.driver: must be one of file, smtp, log"},
		{name: "ErrEmptyTiers", file: "billing:\n  tiers: []\n", want: "billing.tiers: must list at least one tier"},
		{name: "ErrPartnerIssuerHTTP", file: "partner:\n  issuer: http://id.example.com\n  client_id: x\n", want: "partner.issuer: must be an https URL"},
		{name: "ErrEnvPartnerIssuerHTTP", env: map[string]string{"LICENSECTL_PARTNER_ISSUER": "http://id.example.com", "LICENSECTL_PARTNER_CLIENT_ID": "x"},
			want: "partner.issuer: must be an https URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			opts := LoadOptions{Env: envOf(tt.env)}
			switch {
			case tt.missing:
				opts.File = filepath.Join(t.TempDir(), "absent.yaml")
			case tt.file != "":
				opts.File = MustWriteFile(t, "licensectl.yaml", tt.file)
			}
			_, err := Load(opts)
			if err == nil {
				t.Fatalf("got no error, want one containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestBindFlags(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	BindFlags(fs)
	for _, name := range []string{FlagConfig, FlagListen, FlagDataDir} {
		f := fs.Lookup(name)
		if f == nil {
			t.Fatalf("flag --%s not defined", name)
		}
		if f.DefValue != "" || f.Usage == "" {
			t.Errorf("flag --%s: got default %q and usage %q, want empty default and some usage", name, f.DefValue, f.Usage)
		}
	}
}

func TestEnvNames(t *testing.T) {
	for key, want := range map[string]string{
		"server.listen":         "LICENSECTL_SERVER_LISTEN",
		"ratelimit.enabled":     "LICENSECTL_RATELIMIT_ENABLED",
		"runtime.replay_window": "LICENSECTL_RUNTIME_REPLAY_WINDOW",
		"data_dir":              "LICENSECTL_DATA_DIR",
		"mail.smtp.host":        "LICENSECTL_MAIL_SMTP_HOST",
	} {
		if got := EnvName(key); got != want {
			t.Errorf("EnvName(%q): got %q, want %q", key, got, want)
		}
	}
	// Two keys sharing a variable could not both be set from the environment.
	seen := map[string]string{}
	for _, l := range leafKeys() {
		name := EnvName(l.key)
		if other, ok := seen[name]; ok {
			t.Errorf("%s and %s share %s", other, l.key, name)
		}
		seen[name] = l.key
	}
}

// Every key must be settable from the environment; set each to a value that
// differs from its default and check that it arrives.
func TestEveryKeyFromEnv(t *testing.T) {
	t.Chdir(t.TempDir())
	env := map[string]string{}
	for _, l := range leafKeys() {
		var s string
		switch v := l.value.(type) {
		case string:
			s = "value-of-" + l.key
		case bool:
			s = "true"
			if v {
				s = "false"
			}
		case int:
			s = "4242"
		case time.Duration:
			s = "4242h"
		case []string:
			s = "10.1.0.0/16,10.2.0.0/16"
		case []Tier:
			s = `[{"key":"x","name":"X"}]`
		case []time.Duration:
			s = "1s,2s"
		default:
			t.Fatalf("%s: no test value for %T", l.key, v)
		}
		env[EnvName(l.key)] = s
	}
	// The values above are not all valid, so skip Validate.
	got, err := load(LoadOptions{Env: envOf(env)})
	if err != nil {
		t.Fatal(err)
	}
	def := reflect.ValueOf(Default())
	gotV := reflect.ValueOf(got)
	var walk func(prefix string, d, g reflect.Value)
	walk = func(prefix string, d, g reflect.Value) {
		for i := range d.NumField() {
			name, _, _ := strings.Cut(d.Type().Field(i).Tag.Get("mapstructure"), ",")
			if d.Field(i).Kind() == reflect.Struct {
				walk(prefix+name+".", d.Field(i), g.Field(i))
				continue
			}
			if reflect.DeepEqual(d.Field(i).Interface(), g.Field(i).Interface()) {
				t.Errorf("%s: %s did not change it", prefix+name, EnvName(prefix+name))
			}
		}
	}
	walk("", def, gotV)
	if !slices.Equal(got.Server.TrustedProxies, []string{"10.1.0.0/16", "10.2.0.0/16"}) {
		t.Errorf("server.trusted_proxies: got %q", got.Server.TrustedProxies)
	}
}

func TestUnknownEnv(t *testing.T) {
	environ := []string{
		"LICENSECTL_SERVER_LISTEN=127.0.0.1:1", "LICENSECTL_WEBHOOKS_ALLOW_HTTP=true", "LICENSECTL_SERVER=http://x",
		"LICENSECTL_WEBHOOK_ALLOW_HTTP=true", "LICENSECTL_DATADIR=/srv", "HOME=/root", "XLICENSECTL_Y=1",
	}
	got := UnknownEnv(environ, "LICENSECTL_SERVER")
	want := []string{"LICENSECTL_DATADIR", "LICENSECTL_WEBHOOK_ALLOW_HTTP"}
	if !slices.Equal(got, want) {
		t.Fatalf("UnknownEnv = %q, want %q", got, want)
	}
}
