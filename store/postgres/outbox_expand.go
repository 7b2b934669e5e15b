package postgres

import (
	"time"

	"github.com/jackc/pgx/v5"

	"licensectl/store"
	"licensectl/store/storedoc"
)

// The outbox (docs/design.md §12): t.audit writes one outbox_events row per
// event that some active endpoint hears, in the change's transaction;
// store.Service expands each into one delivery per endpoint that hears it
// (store/service_outbox_expand.go) over the primitives below. Every server
// expands: each takes the events it expands with FOR UPDATE SKIP LOCKED
// and deletes them in the same transaction, so an event is expanded once
// whoever runs at the same time. An endpoint change holds its
// organization's endpoint lock (LockWebhookSet), which an expansion takes
// shared, and expands the pending events it could concern first.

// outboxCols are the columns outboxEvents reads.
const outboxCols = `id::text, org_id::text, coalesce(app_id::text, ''), event, created_at, body`

func (t *txn) outboxEvents(sql string, args ...any) ([]*store.OutboxEvent, error) {
	rows, err := t.tx.Query(t.ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	var out []*store.OutboxEvent
	_, err = hookRows(rows, func(r pgx.CollectableRow) error {
		e := new(store.OutboxEvent)
		out = append(out, e)
		return r.Scan(&e.ID, &e.OrgID, &e.AppID, &e.Event, &e.CreatedAt, &e.Body)
	})
	return out, err
}

// AppWebhooks implements store.Tx, read once per transaction.
func (t *txn) AppWebhooks(appID string) ([]*store.Webhook, error) {
	return t.scopeHooks("a"+appID, `SELECT doc FROM webhooks WHERE app_id = $1 ORDER BY id`, appID)
}

// OrgWebhooks implements store.Tx, read once per transaction.
func (t *txn) OrgWebhooks(orgID string) ([]*store.Webhook, error) {
	return t.scopeHooks("o"+orgID, `SELECT doc FROM webhooks WHERE org_id = $1 ORDER BY id`, orgID)
}

// scopeHooks loads the endpoints sql selects by arg, cached under k until
// an endpoint changes in this transaction.
func (t *txn) scopeHooks(k, sql, arg string) ([]*store.Webhook, error) {
	if hooks, ok := t.hooks[k]; ok {
		return hooks, nil
	}
	recs, err := docs[storedoc.Webhook](t, sql, uuidOrNil(arg))
	if err != nil {
		return nil, err
	}
	hooks := make([]*store.Webhook, len(recs))
	for i, w := range recs {
		hooks[i] = w.Domain()
	}
	if t.hooks == nil {
		t.hooks = map[string][]*store.Webhook{}
	}
	t.hooks[k] = hooks
	return hooks, nil
}

// ShareWebhookSet implements store.Tx: the endpoint lock shared, tried.
func (t *txn) ShareWebhookSet(orgID string) (bool, error) {
	var ok bool
	err := t.tx.QueryRow(t.ctx, `SELECT pg_try_advisory_xact_lock_shared(`+hooksLockKey+`)`, orgID).Scan(&ok)
	return ok, err
}

// PendingEvents implements store.Tx.
func (t *txn) PendingEvents(limit int) ([]*store.OutboxEvent, error) {
	events, err := t.outboxEvents(`SELECT `+outboxCols+` FROM outbox_events ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, limit)
	if err == nil && len(events) == 0 {
		// Every waiting event may be locked by another server's expansion:
		// wait for it rather than answer none while its deliveries are not
		// committed yet, so that none means that nothing waits (as on
		// bbolt, whose expansions are serial). Rows it deleted meanwhile
		// are skipped by the lock.
		events, err = t.outboxEvents(`SELECT `+outboxCols+` FROM outbox_events ORDER BY id LIMIT $1 FOR UPDATE`, limit)
	}
	return events, err
}

// ScopeEvents implements store.Tx. The events are locked without SKIP
// LOCKED: one another server is expanding is waited for (it waits for
// nothing, the caller holding LockWebhookSet), and is gone after.
func (t *txn) ScopeEvents(orgID, appID string) ([]*store.OutboxEvent, error) {
	return t.outboxEvents(`SELECT `+outboxCols+` FROM outbox_events
		WHERE org_id = $1 AND (app_id = $2 OR app_id IS NULL) ORDER BY id FOR UPDATE`, orgID, uuidOrNil(appID))
}

// WriteExpansion implements store.Tx: the deliveries, the payloads and the
// deletion of the events in one statement each.
func (t *txn) WriteExpansion(x []store.Expansion) error {
	var ids, orgs, apps, hooks, bodyOf, docs, bodyIDs, expanded []string
	var at []time.Time
	var bodies [][]byte
	for _, ex := range x {
		for _, d := range ex.Deliveries {
			ids, orgs, apps, hooks = append(ids, d.ID), append(orgs, d.OrgID), append(apps, d.AppID), append(hooks, d.WebhookID)
			bodyOf, docs, at = append(bodyOf, ex.Event.ID), append(docs, string(js(deliveryRecordOf(d)))), append(at, *d.NextAttemptAt)
		}
		if len(ex.Deliveries) > 0 {
			bodyIDs, bodies = append(bodyIDs, ex.Event.ID), append(bodies, ex.Event.Body)
		}
		expanded = append(expanded, ex.Event.ID)
	}
	if len(ids) > 0 {
		if _, err := t.exec(`INSERT INTO webhook_deliveries (id, org_id, app_id, webhook_id, status, next_attempt_at, queued, body_of, doc)
			SELECT u.id, u.org, u.app, u.hook, 'pending', u.at, true, u.body_of, u.doc
			FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::timestamptz[], $6::uuid[], $7::json[]) AS u(id, org, app, hook, at, body_of, doc)`,
			ids, orgs, apps, hooks, at, bodyOf, docs); err != nil {
			return err
		}
	}
	if len(bodyIDs) > 0 {
		if _, err := t.exec(`INSERT INTO outbox_bodies (event_id, body) SELECT * FROM unnest($1::uuid[], $2::bytea[])`, bodyIDs, bodies); err != nil {
			return err
		}
	}
	if len(expanded) > 0 {
		if _, err := t.exec(`DELETE FROM outbox_events WHERE id = ANY($1::uuid[])`, expanded); err != nil {
			return err
		}
	}
	return nil
}
