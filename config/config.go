// Package config holds licensectl's configuration: defaults, the YAML file,
// LICENSECTL_* environment variables and command-line flags, merged by viper.
// Nobody else in the project imports viper.
package config

import "time"

// Config is the whole configuration. The yaml/mapstructure names are the keys
// of licensectl.yaml; the environment variable of a key is LICENSECTL_ followed
// by the key path upper-cased with dots as underscores (server.listen ↔
// LICENSECTL_SERVER_LISTEN).
type Config struct {
	Server    Server    `mapstructure:"server"`
	DataDir   string    `mapstructure:"data_dir"`
	Storage   Storage   `mapstructure:"storage"`
	Log       Log       `mapstructure:"log"`
	Admin     Admin     `mapstructure:"admin"`
	Mail      Mail      `mapstructure:"mail"`
	Metrics   Metrics   `mapstructure:"metrics"`
	RateLimit RateLimit `mapstructure:"ratelimit"`
	Auth      Auth      `mapstructure:"auth"`
	Signup    Signup    `mapstructure:"signup"`
	Runtime   Runtime   `mapstructure:"runtime"`
	Billing   Billing   `mapstructure:"billing"`
	Webhooks  Webhooks  `mapstructure:"webhooks"`
	Partner   Partner   `mapstructure:"partner"`
	TUI       TUI       `mapstructure:"tui"`
}

// Server configures the HTTP listener.
type Server struct {
	Listen string `mapstructure:"listen"`
	// PublicURL is the base address of the server as browsers reach it:
	// links sent by mail open the account pages under it, and the partner
	// callback defaults to it. Empty means http://<listen address>.
	PublicURL       string        `mapstructure:"public_url"`
	ShutdownTimeout time.Duration `mapstructure:"shutdown_timeout"`
	// MaxQueueWait bounds how long a write waits for the store's writer;
	// past it the request is answered 503 overloaded and changes nothing.
	MaxQueueWait time.Duration `mapstructure:"max_queue_wait"`
	// TrustedProxies are CIDRs whose X-Forwarded-For is believed for the client IP.
	TrustedProxies []string `mapstructure:"trusted_proxies"`
	// GCPercent is the Go garbage collector's target (GOGC) for `serve`; 0
	// leaves the runtime's default. The GOGC environment variable wins.
	GCPercent int `mapstructure:"gc_percent"`
	// TLS serves HTTPS instead of plain HTTP when configured.
	TLS TLS `mapstructure:"tls"`
}

// TLS configures HTTPS: a certificate and key from files (re-read on SIGHUP),
// or certificates obtained by ACME for one public host name. Neither set
// means plain HTTP, as behind a reverse proxy that terminates TLS.
type TLS struct {
	CertFile string `mapstructure:"cert_file"`
	KeyFile  string `mapstructure:"key_file"`
	// ACMEHost is the public host name to obtain a certificate for with ACME
	// (TLS-ALPN-01 on the listener, which must then be reachable on :443).
	ACMEHost string `mapstructure:"acme_host"`
	// ACMEEmail is the contact address given to the ACME directory.
	ACMEEmail string `mapstructure:"acme_email"`
	// ACMEDirectory is the ACME directory URL; empty means the autocert default.
	ACMEDirectory string `mapstructure:"acme_directory"`
	// ACMECacheDir keeps obtained certificates; empty means <data_dir>/acme.
	ACMECacheDir string `mapstructure:"acme_cache_dir"`
}

// Enabled reports whether HTTPS is configured.
func (t TLS) Enabled() bool { return t.CertFile != "" || t.KeyFile != "" || t.ACMEHost != "" }

// Storage names the store the server and the admin CLI's local mode open
// (docs/design.md §12): the bbolt file <data_dir>/licensectl.db, or a
// PostgreSQL database that several servers share.
type Storage struct {
	// Driver is bolt (the default) or postgres.
	Driver   string   `mapstructure:"driver"`
	Postgres Postgres `mapstructure:"postgres"`
}

// Postgres configures the PostgreSQL store.
type Postgres struct {
	// URL is a libpq URL or key=value DSN; it may hold a password, so
	// `config show` masks it.
	URL string `mapstructure:"url"`
	// MaxConns bounds the connection pool of one server; 0 means 4 ×
	// GOMAXPROCS.
	MaxConns int `mapstructure:"max_conns"`
	// ConnectTimeout bounds each connection attempt.
	ConnectTimeout time.Duration `mapstructure:"connect_timeout"`
}

// Storage drivers.
const (
	DriverBolt     = "bolt"
	DriverPostgres = "postgres"
)

// Log configures log/slog output.
type Log struct {
	Level  string `mapstructure:"level"`  // debug, info, warn, error
	Format string `mapstructure:"format"` // auto, text, json
	// Requests chooses which request lines are logged at info: all, writes
	// (changes and failed answers), errors (failed answers) or none. The
	// others are logged at debug, so log.level debug still shows every one.
	Requests string `mapstructure:"requests"`
}

// Admin configures operator access.
type Admin struct {
	// OperatorToken, when set, replaces the token written to <data_dir>/operator.token.
	OperatorToken string `mapstructure:"operator_token"`
}

// Mail configures outgoing mail.
type Mail struct {
	Driver string `mapstructure:"driver"` // file, smtp, log
	From   string `mapstructure:"from"`
	SMTP   SMTP   `mapstructure:"smtp"`
	// LinkBase, when set, is where the links in mails point instead of the
	// account pages under server.public_url: a vendor's own dashboard that
	// serves <link_base>/verify-email?token=… and /reset-password?token=….
	LinkBase string `mapstructure:"link_base"`
}

// SMTP configures the smtp mail driver.
type SMTP struct {
	Host     string `mapstructure:"host"`
	Port     int    `mapstructure:"port"`
	Username string `mapstructure:"username"`
	Password string `mapstructure:"password"`
	From     string `mapstructure:"from"`
	TLS      string `mapstructure:"tls"` // none, starttls, tls
}

// Metrics configures the Prometheus endpoint.
type Metrics struct {
	Enabled bool `mapstructure:"enabled"`
	// Listen serves /metrics on its own address (host:port, plain HTTP)
	// instead of the API listener; empty keeps it on the API listener.
	Listen string `mapstructure:"listen"`
}

// RateLimit configures request rate limits. Limits are requests per Window.
type RateLimit struct {
	Enabled bool          `mapstructure:"enabled"`
	Window  time.Duration `mapstructure:"window"`
	// Runtime is per client IP on /v1/runtime.
	Runtime int `mapstructure:"runtime"`
	// RuntimeAuth is per client IP on runtime login, register and activate.
	RuntimeAuth int `mapstructure:"runtime_auth"`
	// RuntimeDevices is per license on the runtime devices list, which a
	// customer opens by hand: a script walking keys meets it long before
	// the per-address limit.
	RuntimeDevices int `mapstructure:"runtime_devices"`
	// Management is per credential on /v1/mgmt.
	Management int `mapstructure:"management"`
	// Account is per client IP on signup, login, forgot-password and similar.
	Account int `mapstructure:"account"`
	// LoginFailures is how many failed logins of one account from one
	// client address within Window refuse that pair (docs/design.md §7).
	LoginFailures int `mapstructure:"login_failures"`
	// LoginFailuresGlobal bounds failed logins of one account from all
	// addresses per hour, which only a distributed attack reaches; past it
	// the account's logins need a solved challenge.
	LoginFailuresGlobal int `mapstructure:"login_failures_global"`
}

// Auth configures dashboard sessions and password hashing.
type Auth struct {
	SessionTTL time.Duration `mapstructure:"session_ttl"`
	// HashConcurrency bounds argon2id hashes at once; 0 means one per CPU.
	HashConcurrency int `mapstructure:"hash_concurrency"`
	// HashWait is how long a request waits for a hashing slot before 429.
	HashWait time.Duration `mapstructure:"hash_wait"`
}

// Signup configures account creation hardening.
type Signup struct {
	Challenge      string   `mapstructure:"challenge"` // altcha, off
	BlockedDomains []string `mapstructure:"blocked_domains"`
}

// Runtime configures the runtime API.
type Runtime struct {
	ReplayWindow       time.Duration `mapstructure:"replay_window"`
	AccessTTL          time.Duration `mapstructure:"access_ttl"`
	RefreshIdleTTL     time.Duration `mapstructure:"refresh_idle_ttl"`
	RefreshAbsoluteTTL time.Duration `mapstructure:"refresh_absolute_ttl"`
	// RefreshReuseGrace is how long after a rotation the token it retired
	// is answered 409 refresh_token_rotated instead of revoking the
	// session (parallel refreshes of one client); 0 switches it off.
	RefreshReuseGrace time.Duration `mapstructure:"refresh_reuse_grace"`
	Issuer            string        `mapstructure:"issuer"`
}

// Billing configures tiers and enforcement.
type Billing struct {
	Enforce bool   `mapstructure:"enforce"`
	Tiers   []Tier `mapstructure:"tiers"`
	// GraceDays is how long a subscription stays past_due, its paid tier
	// still in force, after a paid period ends without renewal.
	GraceDays int `mapstructure:"grace_days"`
	Pix       Pix `mapstructure:"pix"`
}

// Tier is one billing plan; -1 means unlimited.
type Tier struct {
	Key                   string `mapstructure:"key"`
	Name                  string `mapstructure:"name"`
	PriceCents            int    `mapstructure:"price_cents"`
	MaxApplications       int    `mapstructure:"max_applications"`
	MaxLicenses           int    `mapstructure:"max_licenses"`
	MaxRequestsPerMonth   int    `mapstructure:"max_requests_per_month"`
	AuditLogRetentionDays int    `mapstructure:"audit_log_retention_days"`
	MaxDashboardMembers   int    `mapstructure:"max_dashboard_members"`
}

// Pix configures instant-payment checkout.
type Pix struct {
	Key          string `mapstructure:"key"`
	MerchantName string `mapstructure:"merchant_name"`
	MerchantCity string `mapstructure:"merchant_city"`
	// CallbackSecret is the HMAC-SHA256 key of the payment provider's
	// signed callback; empty refuses every callback.
	CallbackSecret string `mapstructure:"callback_secret"`
}

// Webhooks configures outgoing webhook deliveries.
type Webhooks struct {
	AllowHTTP           bool `mapstructure:"allow_http"`
	AllowPrivateTargets bool `mapstructure:"allow_private_targets"`
	// Workers bounds concurrent sends; at most 2 go to one endpoint at once.
	Workers int `mapstructure:"workers"`
	// Timeout bounds one attempt, connection to answer.
	Timeout time.Duration `mapstructure:"timeout"`
	// RetrySchedule is the delay before each retry: N entries, N retries.
	RetrySchedule []time.Duration `mapstructure:"retry_schedule"`
	// DisableAfter disables an endpoint that failed without a break this long.
	DisableAfter time.Duration `mapstructure:"disable_after"`
	// MaxEndpoints bounds the endpoints of one application.
	MaxEndpoints int `mapstructure:"max_endpoints"`
}

// DefaultRetrySchedule is docs/design.md §9's schedule.
func DefaultRetrySchedule() []time.Duration {
	return []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}
}

// Partner configures OpenID Connect sign-in.
type Partner struct {
	Issuer       string `mapstructure:"issuer"`
	ClientID     string `mapstructure:"client_id"`
	ClientSecret string `mapstructure:"client_secret"`
	// RedirectURL is the callback registered with the issuer; empty means
	// <server.public_url>/account/partner/callback.
	RedirectURL string   `mapstructure:"redirect_url"`
	Scopes      []string `mapstructure:"scopes"`
}

// TUI configures `licensectl tui`; its flags override these.
type TUI struct {
	// Refresh is how often remote screens poll (overview, details).
	Refresh time.Duration `mapstructure:"refresh"`
	// Color is auto (when the terminal supports it and NO_COLOR is unset)
	// or never.
	Color string `mapstructure:"color"`
	// Mouse turns mouse reporting on; off keeps terminal selection working.
	Mouse bool `mapstructure:"mouse"`
	// Clipboard is how y copies: auto, osc52, osc52-tmux, native or off.
	Clipboard string `mapstructure:"clipboard"`
	// ReadOnly offers no changes (locally the file is opened read-only).
	ReadOnly bool `mapstructure:"read_only"`
}

// Default returns the configuration used when nothing is set.
func Default() Config {
	return Config{
		Server: Server{
			Listen:          "127.0.0.1:8080",
			ShutdownTimeout: 10 * time.Second,
			MaxQueueWait:    2 * time.Second,
			GCPercent:       400,
		},
		DataDir: "./data",
		Storage: Storage{Driver: DriverBolt, Postgres: Postgres{ConnectTimeout: 5 * time.Second}},
		Log:     Log{Level: "info", Format: "auto", Requests: "writes"},
		Mail:    Mail{Driver: "file", From: "licensectl <no-reply@localhost>", SMTP: SMTP{Port: 587, TLS: "starttls"}},
		Metrics: Metrics{Enabled: true},
		RateLimit: RateLimit{
			Enabled:             true,
			Window:              time.Minute,
			Runtime:             6000,
			RuntimeAuth:         120,
			RuntimeDevices:      30,
			Management:          1200,
			Account:             30,
			LoginFailures:       10,
			LoginFailuresGlobal: 100,
		},
		Auth:    Auth{SessionTTL: 12 * time.Hour, HashWait: 2 * time.Second},
		Signup:  Signup{Challenge: "altcha"},
		Runtime: Runtime{ReplayWindow: 300 * time.Second, AccessTTL: 15 * time.Minute, RefreshIdleTTL: 14 * 24 * time.Hour, RefreshAbsoluteTTL: 30 * 24 * time.Hour, RefreshReuseGrace: 10 * time.Second, Issuer: "licensectl"},
		Billing: Billing{Tiers: DefaultTiers(), GraceDays: 7},
		Webhooks: Webhooks{Workers: 8, Timeout: 15 * time.Second, RetrySchedule: DefaultRetrySchedule(), DisableAfter: 120 * time.Hour,
			MaxEndpoints: 20},
		Partner: Partner{Scopes: []string{"openid", "email", "profile"}},
		TUI:     TUI{Refresh: 5 * time.Second, Color: "auto", Clipboard: "auto"},
	}
}

// DefaultTiers are the billing tiers used when the configuration names none.
func DefaultTiers() []Tier {
	return []Tier{
		{Key: "free", Name: "Free", PriceCents: 0, MaxApplications: 1, MaxLicenses: 100, MaxRequestsPerMonth: 10_000, AuditLogRetentionDays: 7, MaxDashboardMembers: 2},
		{Key: "starter", Name: "Starter", PriceCents: 4900, MaxApplications: 3, MaxLicenses: 1_000, MaxRequestsPerMonth: 100_000, AuditLogRetentionDays: 30, MaxDashboardMembers: 5},
		{Key: "pro", Name: "Pro", PriceCents: 14900, MaxApplications: 10, MaxLicenses: 10_000, MaxRequestsPerMonth: 1_000_000, AuditLogRetentionDays: 90, MaxDashboardMembers: 20},
		{Key: "enterprise", Name: "Enterprise", PriceCents: 49900, MaxApplications: -1, MaxLicenses: -1, MaxRequestsPerMonth: -1, AuditLogRetentionDays: 365, MaxDashboardMembers: -1},
	}
}
