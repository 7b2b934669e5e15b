package client

import (
	"context"
	"net/http"
	"net/url"

	"licensectl/server/api"
	"licensectl/store"
)

var (
	_ store.Webhooks    = (*Client)(nil)
	_ store.OrgAuditLog = (*Client)(nil)
)

func webhookFrom(ref store.AppRef) func(api.Webhook) *store.Webhook {
	return func(w api.Webhook) *store.Webhook {
		out := w.Domain()
		out.OrgID = ref.OrgID
		return out
	}
}

// CreateWebhook implements store.Webhooks; the server checks the URL.
func (c *Client) CreateWebhook(ctx context.Context, ref store.AppRef, u string, events []string) (*store.Webhook, error) {
	var out api.WebhookCreated
	body := api.CreateWebhookRequest{URL: u, Events: events}
	if err := c.do(ctx, call{method: http.MethodPost, path: appPath(ref.AppID, "webhooks"), org: ref.OrgID, body: body}, &out); err != nil {
		return nil, err
	}
	w := out.Domain()
	w.OrgID = ref.OrgID
	return w, nil
}

// ListWebhooks implements store.Webhooks.
func (c *Client) ListWebhooks(ctx context.Context, ref store.AppRef) ([]*store.Webhook, error) {
	var list []api.Webhook
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(ref.AppID, "webhooks"), org: ref.OrgID}, &list); err != nil {
		return nil, err
	}
	return mapList(list, webhookFrom(ref)), nil
}

// UpdateWebhook implements store.Webhooks.
func (c *Client) UpdateWebhook(ctx context.Context, ref store.AppRef, id string, u store.WebhookUpdate) (*store.Webhook, error) {
	var out api.Webhook
	body := api.UpdateWebhookRequest{URL: u.URL, Events: u.Events, Status: u.Status}
	if err := c.do(ctx, call{method: http.MethodPatch, path: appPath(ref.AppID, "webhooks", id), org: ref.OrgID, body: body}, &out); err != nil {
		return nil, err
	}
	return webhookFrom(ref)(out), nil
}

// DeleteWebhook implements store.Webhooks.
func (c *Client) DeleteWebhook(ctx context.Context, ref store.AppRef, id string) error {
	return c.do(ctx, call{method: http.MethodDelete, path: appPath(ref.AppID, "webhooks", id), org: ref.OrgID}, nil)
}

// ListDeliveries implements store.Webhooks.
func (c *Client) ListDeliveries(ctx context.Context, ref store.AppRef, webhookID string, f store.DeliveryFilter) (*store.Page[*store.Delivery], error) {
	q := url.Values{}
	setIf(q, "status", f.Status)
	var out api.Page[api.Delivery]
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(ref.AppID, "webhooks", webhookID, "deliveries"), org: ref.OrgID, query: pageQuery(q, f.PageRequest)}, &out); err != nil {
		return nil, err
	}
	return api.StorePage(out, func(d api.Delivery) *store.Delivery {
		x := d.Domain()
		x.OrgID, x.AppID, x.WebhookID = ref.OrgID, ref.AppID, webhookID
		return x
	}), nil
}

// RetryDelivery implements store.Webhooks.
func (c *Client) RetryDelivery(ctx context.Context, ref store.AppRef, webhookID, deliveryID string) error {
	return c.do(ctx, call{method: http.MethodPost, path: appPath(ref.AppID, "webhooks", webhookID, "deliveries", deliveryID, "retry"), org: ref.OrgID}, nil)
}

// PingWebhook sends the endpoint a test ping through the server.
func (c *Client) PingWebhook(ctx context.Context, ref store.AppRef, webhookID string) (*api.WebhookTestResult, error) {
	var out api.WebhookTestResult
	if err := c.do(ctx, call{method: http.MethodPost, path: appPath(ref.AppID, "webhooks", webhookID, "test"), org: ref.OrgID}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// WebhookEvents lists every event name an endpoint can subscribe to.
func (c *Client) WebhookEvents(ctx context.Context) ([]string, error) {
	var out []string
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/mgmt/webhooks/events"}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// ListOrgAudit implements store.OrgAuditLog.
func (c *Client) ListOrgAudit(ctx context.Context, orgID string, f store.AuditFilter) (*store.Page[*store.AuditEntry], error) {
	var out api.Page[api.AuditEntry]
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/mgmt/audit-logs", org: orgID, query: auditQuery(f)}, &out); err != nil {
		return nil, err
	}
	return api.StorePage(out, func(a api.AuditEntry) *store.AuditEntry {
		return &store.AuditEntry{ID: a.ID, OrgID: orgID, Event: a.Event, Actor: store.Actor{Type: a.Actor.Type, ID: a.Actor.ID},
			Target: store.Target(a.Target), IP: a.IP, UserAgent: a.UserAgent, Metadata: a.Metadata, CreatedAt: a.CreatedAt}
	}), nil
}
