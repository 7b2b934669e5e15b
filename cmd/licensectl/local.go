package main

import (
	"context"
	"io"
	"log/slog"
	"time"

	"licensectl/config"
	"licensectl/server"
	"licensectl/server/api"
	"licensectl/server/client"
	"licensectl/server/rttoken"
	"licensectl/server/webhook"
	"licensectl/store"
)

// local is the backend of local mode: the store the configuration names,
// and what the server would do for a remote command done here instead.
type local struct {
	localStore
	cfg config.Config
}

// Backup implements backend: the bbolt file streams a consistent copy; a
// store on a database server is backed up with that database's tools, and
// nothing is written (docs/design.md §12).
func (l local) Backup(ctx context.Context, w io.Writer) (int64, error) {
	fb, ok := l.localStore.(store.FileBackup)
	if !ok {
		return 0, errPostgresBackup
	}
	return fb.Backup(ctx, w)
}

// errPostgresBackup is the one-line answer of backup and restore on
// PostgreSQL.
var errPostgresBackup = store.Errorf(store.ECodeBackupUnsupported, "%s", server.BackupOnPostgres)

// OrgBound implements backend: the file holds every organization, as the
// operator token does.
func (local) OrgBound() bool { return false }

// WebhookEvents implements backend: this binary's registry.
func (local) WebhookEvents(context.Context) ([]string, error) { return store.Events(), nil }

// PingWebhook implements backend: the ping is sent from here, with the
// configured timeout and URL rules, and recorded as a delivery as the server
// records its own.
func (l local) PingWebhook(ctx context.Context, ref store.AppRef, webhookID string) (*api.WebhookTestResult, error) {
	c := l.cfg.Webhooks
	sender := &webhook.Sender{Client: l.guard().Client(c.Timeout), UserAgent: "licensectl/" + version, Now: store.SystemClock}
	d := webhook.NewDispatcher(l.localStore, sender, webhook.Config{Workers: c.Workers, Lease: c.Timeout + 30*time.Second}, slog.Default())
	job, a, err := d.Ping(ctx, ref, webhookID)
	if err != nil {
		return nil, err
	}
	r := api.WebhookTestResultOf(job.Delivery.ID, a)
	return &r, nil
}

// RegisterWebhook implements backend: the URL passes the checks the server
// would apply (https, no private targets unless configured) before the
// store, which trusts them, records the endpoint.
func (l local) RegisterWebhook(ctx context.Context, ref store.AppRef, url string, events []string) (*store.Webhook, error) {
	if err := l.guard().CheckURL(ctx, url); err != nil {
		return nil, err
	}
	return l.CreateWebhook(ctx, ref, url, events)
}

// guard is this configuration's policy for webhook targets.
func (l local) guard() *webhook.Guard {
	return webhook.NewGuard(l.cfg.Webhooks.AllowHTTP, l.cfg.Webhooks.AllowPrivateTargets)
}

// JWKS implements backend from the stored key.
func (l local) JWKS(ctx context.Context, ref store.AppRef, env string) ([]byte, error) {
	a, err := l.FindApplication(ctx, ref)
	if err != nil {
		return nil, err
	}
	return rttoken.Document(a.Env(env)), nil
}

// remote is the backend of remote mode: the HTTP client, plus what the
// server does for a call that locally takes more than one step.
type remote struct{ *client.Client }

// JWKS implements backend with the document the server serves, once the
// application is known to be the organization's.
func (r remote) JWKS(ctx context.Context, ref store.AppRef, env string) ([]byte, error) {
	if _, err := r.FindApplication(ctx, ref); err != nil {
		return nil, err
	}
	return r.Client.JWKS(ctx, ref.AppID, env)
}

// RegisterWebhook implements backend: the server checks the URL itself
// when it creates the endpoint.
func (r remote) RegisterWebhook(ctx context.Context, ref store.AppRef, url string, events []string) (*store.Webhook, error) {
	return r.CreateWebhook(ctx, ref, url, events)
}
