package main

import (
	"time"

	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"licensectl/server/api"
	"licensectl/server/webhook"
	"licensectl/store"
)

func newWebhookCmd(e *env) *cobra.Command {
	return noun("webhook", "Manage an application's webhook endpoints and their deliveries",
		newWebhookCreateCmd(e), newWebhookListCmd(e), newWebhookUpdateCmd(e), newWebhookDeleteCmd(e),
		newWebhookTestCmd(e), newWebhookDeliveriesCmd(e), newWebhookRetryCmd(e), newWebhookEventsCmd(e))
}

// splitEvents reads --events: comma-separated names, families or *.
func splitEvents(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// checkURL applies the server's URL rules in local mode; remotely the
// server applies them.
func (s *session) checkURL(ctx context.Context, u string) error {
	if s.remote {
		return nil
	}
	return webhook.NewGuard(s.cfg.Webhooks.AllowHTTP, s.cfg.Webhooks.AllowPrivateTargets).CheckURL(ctx, u)
}

func webhookFields(t *table, w *store.Webhook) {
	t.field("ID", w.ID)
	t.field("URL", w.URL)
	t.field("Events", strings.Join(w.Events, ","))
	t.field("Status", w.Status)
	t.field("Created", stamp(w.CreatedAt))
}

func newWebhookCreateCmd(e *env) *cobra.Command {
	var app, u, events string
	c := &cobra.Command{
		Use:   "create",
		Short: "Register an endpoint; prints its signing secret, shown this once",
		Example: "  licensectl webhook create --app studio --url https://shop.example.com/hooks --events 'license.*,user.login'\n" +
			"  licensectl webhook create --app studio --url https://crm.example.com/in --events '*' -o json",
		Args: exactArgs(),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			evs := splitEvents(events)
			if err := store.CheckEventPatterns(evs); err != nil {
				return err
			}
			w, err := s.svc.RegisterWebhook(ctx, ref, u, evs)
			if err != nil {
				return err
			}
			v := api.WebhookCreated{ID: w.ID, ApplicationID: w.AppID, URL: w.URL, Events: w.Events, Status: w.Status, Secret: w.Secret, CreatedAt: w.CreatedAt}
			return out.emit(v, func(t *table) {
				webhookFields(t, w)
				t.field("Secret", w.Secret)
				t.row("")
				t.row("The secret signs every delivery and is shown only now: store it with the receiver.")
			})
		}),
	}
	bindApp(c, &app)
	c.Flags().StringVar(&u, "url", "", "the endpoint's https URL (required)")
	c.Flags().StringVar(&events, "events", "", "comma-separated event names, families such as license.*, or * (required)")
	_ = c.MarkFlagRequired("url")
	_ = c.MarkFlagRequired("events")
	return c
}

func newWebhookListCmd(e *env) *cobra.Command {
	var app string
	c := &cobra.Command{
		Use:     "list",
		Short:   "List an application's endpoints (never their secrets)",
		Example: "  licensectl webhook list --app studio\n  licensectl webhook list --app studio -o json",
		Args:    exactArgs(),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			list, err := s.svc.ListWebhooks(ctx, ref)
			if err != nil {
				return err
			}
			return out.emit(mapSlice(list, api.WebhookOf), func(t *table) {
				t.row("ID", "STATUS", "EVENTS", "URL")
				for _, w := range list {
					t.row(w.ID, w.Status, t.text(strings.Join(w.Events, ","), 30), w.URL)
				}
			})
		}),
	}
	bindApp(c, &app)
	return csvList(c)
}

func newWebhookUpdateCmd(e *env) *cobra.Command {
	var app, u, events, status string
	c := &cobra.Command{
		Use:   "update ID",
		Short: "Change an endpoint's URL, events or status (re-enabling resumes its waiting deliveries)",
		Example: "  licensectl webhook update --app studio 0190c0de-… --status active\n" +
			"  licensectl webhook update --app studio 0190c0de-… --events 'license.*' --url https://new.example.com/in",
		Args: exactArgs("ID"),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			var upd store.WebhookUpdate
			f := cmd.Flags()
			if !f.Changed("url") && !f.Changed("events") && !f.Changed("status") {
				return usageErrorf("nothing to change: pass --url, --events or --status")
			}
			if f.Changed("url") {
				if err := s.checkURL(ctx, u); err != nil {
					return err
				}
				upd.URL = &u
			}
			if f.Changed("events") {
				upd.Events = splitEvents(events)
				if err := store.CheckEventPatterns(upd.Events); err != nil {
					return err
				}
			}
			if f.Changed("status") {
				upd.Status = &status
			}
			w, err := s.svc.UpdateWebhook(ctx, ref, args[0], upd)
			if err != nil {
				return err
			}
			return out.emit(api.WebhookOf(w), func(t *table) { webhookFields(t, w) })
		}),
	}
	bindApp(c, &app)
	c.Flags().StringVar(&u, "url", "", "new https URL")
	c.Flags().StringVar(&events, "events", "", "new comma-separated event names, families or *")
	c.Flags().StringVar(&status, "status", "", "active or disabled")
	return c
}

func newWebhookDeleteCmd(e *env) *cobra.Command {
	var app string
	var yes bool
	c := &cobra.Command{
		Use:     "delete ID",
		Short:   "Delete an endpoint and drop its deliveries",
		Example: "  licensectl webhook delete --app studio 0190c0de-… --yes",
		Args:    exactArgs("ID"),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			if err := e.confirm(yes, "deleting webhook "+args[0]); err != nil {
				return err
			}
			if err := s.svc.DeleteWebhook(ctx, ref, args[0]); err != nil {
				return err
			}
			return out.emit(api.Success{Success: true}, func(t *table) { t.row("deleted webhook " + args[0]) })
		}),
	}
	bindApp(c, &app)
	c.Flags().BoolVar(&yes, "yes", false, "confirm the deletion (asked on a terminal)")
	return c
}

func newWebhookTestCmd(e *env) *cobra.Command {
	var app string
	c := &cobra.Command{
		Use:     "test ID",
		Short:   "Send the endpoint a webhook.test ping now and show the answer's status (0: no answer)",
		Example: "  licensectl webhook test --app studio 0190c0de-…",
		Args:    exactArgs("ID"),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			r, err := s.svc.PingWebhook(ctx, ref, args[0])
			if err != nil {
				return err
			}
			return out.emit(r, func(t *table) {
				t.field("Delivery", r.DeliveryID)
				t.field("Status", r.Status)
				t.field("Response status", fmt.Sprint(r.ResponseStatus))
			})
		}),
	}
	bindApp(c, &app)
	return c
}

func newWebhookDeliveriesCmd(e *env) *cobra.Command {
	var app, status string
	var pf pageFlags
	c := &cobra.Command{
		Use:   "deliveries ID",
		Short: "List an endpoint's deliveries, newest first",
		Long: "Lists an endpoint's deliveries, newest first. A delivery that fails stays\n" +
			"pending while retries remain: ATTEMPTS counts its failures, HTTP is the last\n" +
			"answer (0: none) and NEXT ATTEMPT when it goes again. It is failed only after\n" +
			"its last retry (webhooks.retry_schedule).",
		Example: "  licensectl webhook deliveries --app studio 0190c0de-…\n" +
			"  licensectl webhook deliveries --app studio 0190c0de-… --status pending   # failing ones being retried too\n" +
			"  licensectl webhook deliveries --app studio 0190c0de-… --status failed -o json",
		Args: exactArgs("ID"),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			page, err := collect(pf, func(pr store.PageRequest) (*store.Page[*store.Delivery], error) {
				return s.svc.ListDeliveries(ctx, ref, args[0], store.DeliveryFilter{Status: status, PageRequest: pr})
			})
			if err != nil {
				return err
			}
			return out.emit(api.PageOf(page, api.DeliveryOf), func(t *table) {
				t.row("ID", "EVENT", "STATUS", "ATTEMPTS", "HTTP", "LATENCY", "LAST ATTEMPT", "NEXT ATTEMPT", "ERROR")
				for _, d := range page.Data {
					latency := ""
					if d.LastAttemptAt != nil {
						latency = d.LastLatency.Round(time.Millisecond).String()
						if d.LastLatency < time.Millisecond {
							// Rounded, a receiver on the same machine read "0s",
							// as if it had not been timed.
							latency = "<1ms"
						}
					}
					t.row(d.ID, d.Event, d.Status, fmt.Sprint(d.Attempts), fmt.Sprint(d.ResponseStatus), latency, stampp(d.LastAttemptAt),
						stampp(d.NextAttemptAt), d.LastError)
				}
				footer(t, page)
			})
		}),
	}
	bindApp(c, &app)
	c.Flags().StringVar(&status, "status", "", "only pending (waiting, failing ones being retried included), delivered or failed (no retry left)")
	pf.bind(c)
	return csvList(c)
}

func newWebhookRetryCmd(e *env) *cobra.Command {
	var app string
	c := &cobra.Command{
		Use:     "retry ID DELIVERY",
		Short:   "Queue a delivery again at once (the server sends it within a second)",
		Example: "  licensectl webhook retry --app studio 0190c0de-… 0190c0df-…",
		Args:    exactArgs("ID", "DELIVERY"),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			if err := s.svc.RetryDelivery(ctx, ref, args[0], args[1]); err != nil {
				return err
			}
			return out.emit(api.Success{Success: true}, func(t *table) { t.row("queued delivery " + args[1] + " again") })
		}),
	}
	bindApp(c, &app)
	return c
}

func newWebhookEventsCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "events",
		Short:   "List every event name an endpoint can subscribe to",
		Example: "  licensectl webhook events\n  licensectl webhook events -o json",
		Args:    exactArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := outputFor(cmd, fmtTable, fmtJSON)
			if err != nil {
				return err
			}
			// The registry needs no store; remotely the server's own list is
			// asked for, as it may be another release.
			if url := e.flagOrEnv(cmd, flagServer, envServer); url == "" {
				return emitEvents(out, store.Events())
			}
			return e.withSession(cmd, openOpts{}, func(ctx context.Context, s *session) error {
				names, err := s.svc.WebhookEvents(ctx)
				if err != nil {
					return err
				}
				return emitEvents(out, names)
			})
		},
	}
}

func emitEvents(out *output, names []string) error {
	return out.emit(names, func(t *table) {
		for _, n := range names {
			t.row(n)
		}
	})
}
