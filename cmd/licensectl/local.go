package main

import (
	"context"

	"licensectl/config"
	"licensectl/server/api"
	"licensectl/server/webhook"
	"licensectl/store"
	"licensectl/store/bolt"
)

// local is the backend of local mode: the data file, and what the server
// would do for a remote command done here instead.
type local struct {
	*bolt.DB
	cfg config.Config
}

// OrgBound implements backend: the file holds every organization, as the
// operator token does.
func (local) OrgBound() bool { return false }

// WebhookEvents implements backend: this binary's registry.
func (local) WebhookEvents(context.Context) ([]string, error) { return store.Events(), nil }

// PingWebhook implements backend: the ping is sent from here, with the
// configured timeout and URL rules, and recorded as a delivery as the server
// records its own.
func (l local) PingWebhook(ctx context.Context, ref store.AppRef, webhookID string) (*api.WebhookTestResult, error) {
	job, err := l.TestDelivery(ctx, ref, webhookID)
	if err != nil {
		return nil, err
	}
	c := l.cfg.Webhooks
	g := webhook.NewGuard(c.AllowHTTP, c.AllowPrivateTargets)
	sender := &webhook.Sender{Client: g.Client(c.Timeout), UserAgent: "licensectl/" + version, Now: store.SystemClock}
	a := sender.Send(ctx, job)
	if err := l.RecordAttempt(ctx, job.Delivery.ID, a, store.RetryPolicy{}); err != nil {
		return nil, err
	}
	r := api.WebhookTestResultOf(job.Delivery.ID, a)
	return &r, nil
}
