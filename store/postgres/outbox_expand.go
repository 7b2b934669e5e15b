package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"licensectl/store"
)

// The outbox (docs/design.md §12): t.audit writes one outbox_events row per
// event that some active endpoint hears, in the change's transaction;
// ExpandEvents turns each into one delivery per endpoint that hears it.
// Every server expands: each takes the events it expands with FOR UPDATE
// SKIP LOCKED and deletes them in the same transaction, so an event is
// expanded once whoever runs at the same time. The endpoints an event goes
// to are those of its time: an endpoint change first expands the pending
// events it could concern (settle), and holds its organization's endpoint
// lock (lockHooks), which an expansion takes shared.

// outboxEvent is an outbox event waiting to be expanded.
type outboxEvent struct {
	ID        string
	OrgID     string
	AppID     string // "" for an organization-level event
	Event     string
	CreatedAt time.Time
	Body      []byte
}

// outboxCols are the columns scanOutbox reads.
const outboxCols = `id::text, org_id::text, coalesce(app_id::text, ''), event, created_at, body`

func (t *txn) outboxEvents(sql string, args ...any) ([]*outboxEvent, error) {
	rows, err := t.tx.Query(t.ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	var out []*outboxEvent
	_, err = hookRows(rows, func(r pgx.CollectableRow) error {
		e := new(outboxEvent)
		out = append(out, e)
		return r.Scan(&e.ID, &e.OrgID, &e.AppID, &e.Event, &e.CreatedAt, &e.Body)
	})
	return out, err
}

// expansion gathers what expanding events writes, so that a transaction
// inserts its deliveries and payloads in one statement each.
type expansion struct {
	ids, orgs, apps, hooks, bodyOf, docs []string
	at                                   []time.Time
	bodyIDs                              []string
	bodies                               [][]byte
	expanded                             []string // the events to delete
}

// expandEvent adds the deliveries of e to x, one per active endpoint of its
// scope subscribed to it, due since the event, and reports how many.
func (t *txn) expandEvent(x *expansion, e *outboxEvent) (int, error) {
	hooks, err := t.activeHooks(e.OrgID, e.AppID)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, w := range hooks {
		if !store.MatchAny(w.Events, e.Event) {
			continue
		}
		d := &deliveryRecord{ID: store.NewID(), OrgID: w.OrgID, AppID: w.AppID, WebhookID: w.ID, Event: e.Event, CreatedAt: e.CreatedAt}
		x.ids, x.orgs, x.apps, x.hooks = append(x.ids, d.ID), append(x.orgs, d.OrgID), append(x.apps, d.AppID), append(x.hooks, d.WebhookID)
		x.bodyOf, x.docs, x.at = append(x.bodyOf, e.ID), append(x.docs, string(js(d))), append(x.at, e.CreatedAt)
		n++
	}
	if n > 0 {
		// One copy of the payload for all the event's deliveries.
		x.bodyIDs, x.bodies = append(x.bodyIDs, e.ID), append(x.bodies, e.Body)
	}
	x.expanded = append(x.expanded, e.ID)
	return n, nil
}

// writeExpansion inserts what x gathered and deletes the events it expanded.
func (t *txn) writeExpansion(x *expansion) error {
	if len(x.ids) > 0 {
		if _, err := t.exec(`INSERT INTO webhook_deliveries (id, org_id, app_id, webhook_id, status, next_attempt_at, queued, body_of, doc)
			SELECT u.id, u.org, u.app, u.hook, 'pending', u.at, true, u.body_of, u.doc
			FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::timestamptz[], $6::uuid[], $7::json[]) AS u(id, org, app, hook, at, body_of, doc)`,
			x.ids, x.orgs, x.apps, x.hooks, x.at, x.bodyOf, x.docs); err != nil {
			return err
		}
	}
	if len(x.bodyIDs) > 0 {
		if _, err := t.exec(`INSERT INTO outbox_bodies (event_id, body) SELECT * FROM unnest($1::uuid[], $2::bytea[])`, x.bodyIDs, x.bodies); err != nil {
			return err
		}
	}
	if len(x.expanded) > 0 {
		if _, err := t.exec(`DELETE FROM outbox_events WHERE id = ANY($1::uuid[])`, x.expanded); err != nil {
			return err
		}
	}
	return nil
}

// settle expands the pending events an endpoint of (org, app) hears,
// before the endpoint changes, so that expansion always sees the endpoints
// as they were when each event happened; it then forgets the endpoints
// read so far in this transaction. The caller holds lockHooks(orgID), and
// the events are locked without SKIP LOCKED: one another server is
// expanding is waited for (it waits for nothing), and is gone after.
func (t *txn) settle(orgID, appID string) error {
	events, err := t.outboxEvents(`SELECT `+outboxCols+` FROM outbox_events
		WHERE org_id = $1 AND (app_id = $2 OR app_id IS NULL) ORDER BY id FOR UPDATE`, orgID, uuidOrNil(appID))
	if err != nil {
		return err
	}
	x := &expansion{}
	for _, e := range events {
		if _, err := t.expandEvent(x, e); err != nil {
			return err
		}
	}
	t.hooks = nil
	return t.writeExpansion(x)
}

// expandBatch bounds the deliveries one expansion transaction writes, so
// that a large fan-out never makes one long transaction.
const expandBatch = 1000

// ExpandEvents implements store.Outbox.
func (db *DB) ExpandEvents(ctx context.Context, limit int) (int, error) {
	n := 0
	err := db.update(ctx, func(t *txn) error {
		n = 0
		events, err := t.outboxEvents(`SELECT `+outboxCols+` FROM outbox_events ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, max(limit, 0))
		if err == nil && len(events) == 0 {
			// Every waiting event may be locked by another server's
			// expansion: wait for it rather than answer 0 while its
			// deliveries are not committed yet, so that 0 means that
			// nothing waits (as on bbolt, whose expansions are serial).
			// Rows it deleted meanwhile are skipped by the lock.
			events, err = t.outboxEvents(`SELECT `+outboxCols+` FROM outbox_events ORDER BY id LIMIT $1 FOR UPDATE`, max(limit, 0))
		}
		if err != nil || len(events) == 0 {
			return err
		}
		x := &expansion{}
		shared := map[string]bool{}
		written := 0
		for _, e := range events {
			if written >= expandBatch {
				break
			}
			ok, seen := shared[e.OrgID]
			if !seen {
				// An organization whose endpoints are changing is left to
				// the change, which expands its events itself (settle).
				if err := t.tx.QueryRow(t.ctx, `SELECT pg_try_advisory_xact_lock_shared(`+hooksLockKey+`)`,
					e.OrgID).Scan(&ok); err != nil {
					return err
				}
				shared[e.OrgID] = ok
			}
			if !ok {
				continue
			}
			d, err := t.expandEvent(x, e)
			if err != nil {
				return err
			}
			written += d
			n++
		}
		return t.writeExpansion(x)
	})
	return n, err
}
