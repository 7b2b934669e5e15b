package tui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/server/api"
	"licensectl/store"
)

var (
	keyPing        = mutating(bind(groupScreen, "t", "test ping", "t"))
	keyDisableHook = mutating(bind(groupScreen, "p", "disable", "p"))
	keyEnableHook  = mutating(bind(groupScreen, "u", "enable", "u"))
	keyRetry       = mutating(bind(groupScreen, "r", "retry", "r"))
)

// pinger sends an endpoint a test ping now. Both the local file and the
// server can (the CLI's backend); a Data without it has no t key.
type pinger interface {
	PingWebhook(ctx context.Context, ref store.AppRef, webhookID string) (*api.WebhookTestResult, error)
}

// pinged is the answer of a test ping of webhook id, for its row and the
// status line.
type pinged struct {
	id string
	r  *api.WebhookTestResult
}

func (p pinged) text(c *ctx) string {
	if p.r.Success {
		return fmt.Sprintf("%s delivered HTTP %d %s delivery %s", c.g.ok, p.r.ResponseStatus, c.g.dot, tail(p.r.DeliveryID))
	}
	answer := fmt.Sprintf("HTTP %d", p.r.ResponseStatus)
	if p.r.ResponseStatus == 0 {
		answer += " (no answer)"
	}
	return fmt.Sprintf("%s failed %s %s delivery %s", c.g.fail, answer, c.g.dot, tail(p.r.DeliveryID))
}

func webhookStatusAction(b *binding, verb, ing, did, to, consequence string) *action {
	return &action{b: b, verb: verb, ing: ing, did: did,
		when: func(it any) bool { return it.(*store.Webhook).Status != to },
		consequence: func(c *ctx, it any) []string {
			return []string{consequence}
		},
		run: func(ctx context.Context, c *ctx, it any) error {
			_, err := c.data.UpdateWebhook(ctx, c.app(), it.(*store.Webhook).ID, store.WebhookUpdate{Status: &to})
			return err
		},
	}
}

var webhooksSpec = &listSpec{
	name: "Webhooks", noun: "webhook",
	cols: []column{
		{title: "URL", min: 12, max: 60},
		{title: "EVENTS", priority: 2, min: 6, max: 40},
		{title: "STATUS", min: 8, max: 8},
		{title: "LAST TEST", priority: 2, min: 9, max: 52},
		{title: "CREATED", priority: 3, min: 7, max: 16},
	},
	cells: func(c *ctx, it any) []string {
		h := it.(*store.Webhook)
		test := c.pings[h.ID]
		if test == "" {
			test = c.g.dash
		}
		return []string{h.URL, strings.Join(h.Events, ","), h.Status, test, c.at(h.CreatedAt)}
	},
	id:      func(it any) string { return it.(*store.Webhook).ID },
	state:   func(it any) string { return it.(*store.Webhook).Status },
	primary: func(it any) string { return it.(*store.Webhook).URL },
	fetch: whole(func(ctx context.Context, c *ctx) ([]*store.Webhook, error) {
		return c.data.ListWebhooks(ctx, c.app())
	}),
	open:   func(c *ctx, it any) screen { return newList(c, deliveriesSpec(it.(*store.Webhook))) },
	create: createWebhook,
	actions: []*action{
		{b: keyPing, verb: "Ping", ing: "Pinging", did: "pinged", now: true,
			result: func(ctx context.Context, c *ctx, it any) (any, error) {
				p, ok := c.data.(pinger)
				if !ok {
					return nil, store.Errorf(store.ECodeUnavailable, "this connection cannot send test pings")
				}
				r, err := p.PingWebhook(ctx, c.app(), it.(*store.Webhook).ID)
				if err != nil {
					return nil, err
				}
				return pinged{id: it.(*store.Webhook).ID, r: r}, nil
			},
			onResult: func(c *ctx, l *list, val any) tea.Cmd {
				p := val.(pinged)
				c.pings[p.id] = p.text(c)
				return tea.Batch(status(p.text(c), !p.r.Success), l.reload(c))
			}},
		webhookStatusAction(keyDisableHook, "Disable", "Disabling", "disabled", store.WebhookDisabled,
			"Events stop queueing for it until it is enabled again (u)."),
		webhookStatusAction(keyEnableHook, "Enable", "Enabling", "enabled", store.WebhookActive,
			"Deliveries waiting for it resume, and its failure clock starts afresh."),
		deleteAction("Its deliveries, waiting or done, are dropped with it.", func(ctx context.Context, c *ctx, it any) error {
			return c.data.DeleteWebhook(ctx, c.app(), it.(*store.Webhook).ID)
		}),
	},
	empty: "No webhooks yet. n registers one (its signing secret is shown once).",
}

// deliveriesSpec is the paged list of one endpoint's deliveries, filtered
// by status (pending, delivered, failed).
func deliveriesSpec(h *store.Webhook) *listSpec {
	return &listSpec{
		name: "Deliveries", noun: "delivery", paged: true,
		cols: []column{
			{title: "CREATED", min: 7, max: 16},
			{title: "EVENT", min: 12, max: 28},
			{title: "STATUS", min: 9, max: 9},
			{title: "TRIES", min: 5, max: 5},
			{title: "HTTP", priority: 2, min: 4, max: 4},
			{title: "NEXT TRY", priority: 3, min: 8, max: 16},
			{title: "ID", priority: 4, min: 12, max: 12},
		},
		cells: func(c *ctx, it any) []string {
			d := it.(*store.Delivery)
			code := "—"
			if d.ResponseStatus != 0 {
				code = fmt.Sprint(d.ResponseStatus)
			}
			return []string{c.at(d.CreatedAt), d.Event, d.Status, fmt.Sprint(d.Attempts), code, c.when(d.NextAttemptAt), tail(d.ID)}
		},
		id:      func(it any) string { return it.(*store.Delivery).ID },
		primary: func(it any) string { return it.(*store.Delivery).ID },
		fetch: func(ctx context.Context, c *ctx, page store.PageRequest, q query) (fetched, error) {
			p, err := c.data.ListDeliveries(ctx, c.app(), h.ID, store.DeliveryFilter{Status: q.status, PageRequest: page})
			return pageItems(p, err)
		},
		statuses: deliveryStatuses,
		parse: func(c *ctx, text string) query {
			return parseQuery(text, deliveryStatuses, nil)
		},
		actions: []*action{{b: keyRetry, verb: "Retry", ing: "Retrying", did: "queued again", now: true,
			run: func(ctx context.Context, c *ctx, it any) error {
				return c.data.RetryDelivery(ctx, c.app(), h.ID, it.(*store.Delivery).ID)
			}}},
		empty: "No deliveries for " + store.Printable(h.URL) + " yet: t on Webhooks sends a test ping.",
	}
}

// runNow runs an action that asks nothing (a retry, a test ping) on the row
// under the cursor.
func (l *list) runNow(c *ctx, a *action, it any) tea.Cmd {
	name := c.label(l.spec.primary(it))
	if a.result != nil {
		return c.actThen(l.ctx, l.sid, "", func(ctx context.Context) (any, error) { return a.result(ctx, c, it) },
			func(val any) tea.Cmd { return a.onResult(c, l, val) })
	}
	return c.act(l.ctx, l.sid, fmt.Sprintf("%s %s", capitalize(a.did), name), func(ctx context.Context) (any, error) {
		return nil, a.run(ctx, c, it)
	})
}
