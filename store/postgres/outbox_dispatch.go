package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"licensectl/store"
	"licensectl/store/storedoc"
)

var _ store.Outbox = (*DB)(nil)

// Claims across servers (docs/design.md §12). A claim leases deliveries in
// their rows: leased_until and leased_by, taken with FOR UPDATE SKIP LOCKED
// so that two servers claiming at once never take the same one, and a
// delivery whose lease ran out (its server died) is due again for any
// server, under the same id (the webhook-id of every attempt). The bounds
// count the live leases in the table, whoever holds them: a claim locks the
// endpoints it serves (FOR UPDATE SKIP LOCKED; another server's claim of
// the same endpoint skips it) and counts their leases after the lock, so
// two servers never both see room for one endpoint. The claims of one
// owner run one at a time (ownerLock), as the application's share is the
// owner's. The round-robin's position is the endpoints' claimed_seq, shared
// by every server: a claim serves the endpoints least recently served first.

// ownerLock serializes the claims and pings of one dispatcher.
func (t *txn) ownerLock(owner string) error {
	_, err := t.exec(`SELECT pg_advisory_xact_lock(hashtextextended('licensectl claim ' || $1, 0))`, owner)
	return err
}

// hookLoads is what the live leases at one time weigh: per endpoint (every
// owner) and per application (one owner's).
type hookLoads struct {
	perHook, perApp map[string]int
	// timedOut: the endpoints with leases whose last attempt timed out.
	timedOut map[string]bool
}

// hookLoadsAt reads the live leases at now.
func (t *txn) hookLoadsAt(now time.Time, owner string) (*hookLoads, error) {
	l := &hookLoads{perHook: map[string]int{}, perApp: map[string]int{}, timedOut: map[string]bool{}}
	rows, err := t.tx.Query(t.ctx, `SELECT d.webhook_id::text, d.app_id::text, d.leased_by, coalesce((w.doc->>'to')::boolean, false)
		FROM webhook_deliveries d LEFT JOIN webhooks w ON w.id = d.webhook_id WHERE d.leased_until > $1`, now)
	if err != nil {
		return nil, err
	}
	_, err = hookRows(rows, func(r pgx.CollectableRow) error {
		var hook, app, by string
		var to bool
		if err := r.Scan(&hook, &app, &by, &to); err != nil {
			return err
		}
		l.perHook[hook]++
		l.timedOut[hook] = to
		if by == owner {
			l.perApp[app]++
		}
		return nil
	})
	return l, err
}

// full lists the endpoints at their bound under c and the applications at
// the owner's share.
func (l *hookLoads) full(c store.Claim) (hooks, apps []string) {
	hooks, apps = []string{}, []string{}
	for h, n := range l.perHook {
		if n >= c.EndpointCap(l.timedOut[h]) {
			hooks = append(hooks, h)
		}
	}
	for a, n := range l.perApp {
		if n >= c.PerApp {
			apps = append(apps, a)
		}
	}
	return hooks, apps
}

// dueWhere is the condition of a delivery due at $n and not under a live
// lease, d being webhook_deliveries.
func dueWhere(n string) string {
	return `d.status = 'pending' AND d.queued AND d.next_attempt_at <= ` + n + ` AND (d.leased_until IS NULL OR d.leased_until <= ` + n + `)`
}

// maxClaimHooks bounds the endpoints one claim serves; claimed_seq keeps
// the order of one claim's endpoints below it.
const maxClaimHooks = 1 << 20

// ClaimDue implements store.Outbox.
func (db *DB) ClaimDue(ctx context.Context, now time.Time, c store.Claim) ([]*store.DeliveryJob, error) {
	if err := store.CheckStorable("owner", c.Owner); err != nil {
		return nil, err
	}
	var out []*store.DeliveryJob
	err := db.update(ctx, func(t *txn) error {
		out = nil
		if c.Limit <= 0 {
			return nil
		}
		if err := t.ownerLock(c.Owner); err != nil {
			return err
		}
		// The endpoints with due work and room by the leases read now, in
		// round-robin order, locked.
		pre, err := t.hookLoadsAt(now, c.Owner)
		if err != nil {
			return err
		}
		fullHooks, fullApps := pre.full(c)
		hooks, err := docs[storedoc.Webhook](t, `SELECT w.doc FROM webhooks w
			WHERE w.status = 'active' AND NOT (w.id = ANY($2::uuid[])) AND NOT (w.app_id = ANY($3::uuid[]))
			AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND `+dueWhere("$1")+`)
			ORDER BY w.claimed_seq, w.id LIMIT $4 FOR UPDATE OF w SKIP LOCKED`, now, fullHooks, fullApps, min(c.Limit, maxClaimHooks))
		if err != nil || len(hooks) == 0 {
			return err
		}
		// The leases again, after the lock, in a statement of its own (under
		// READ COMMITTED a new snapshot): a claim of these endpoints that
		// committed meanwhile is counted.
		l, err := t.hookLoadsAt(now, c.Owner)
		if err != nil {
			return err
		}
		var ids []string
		var rooms []int32
		for _, w := range hooks {
			if !c.Full(w.TimedOut, l.perHook[w.ID], l.perApp[w.AppID]) {
				ids, rooms = append(ids, w.ID), append(rooms, int32(min(c.EndpointCap(w.TimedOut)-l.perHook[w.ID], c.Limit)))
			}
		}
		queue, err := t.dueDeliveries(now, ids, rooms)
		if err != nil {
			return err
		}
		domains := make([]*store.Webhook, len(hooks))
		for i, w := range hooks {
			domains[i] = w.Domain()
		}
		picks, err := c.Rounds(domains, l.perHook, l.perApp, func(w *store.Webhook) (string, error) {
			if len(queue[w.ID]) == 0 {
				return "", nil
			}
			id := queue[w.ID][0]
			queue[w.ID] = queue[w.ID][1:]
			return id, nil
		})
		if err != nil || len(picks) == 0 {
			return err
		}
		chosen := make([]string, len(picks))
		lastServed := map[string]int{}
		for i, p := range picks {
			chosen[i] = p.DeliveryID
			lastServed[p.Webhook.ID] = i + 1
		}
		jobs, err := t.leaseDeliveries(chosen, now.Add(c.Lease), c.Owner)
		if err != nil {
			return err
		}
		for _, p := range picks {
			out = append(out, &store.DeliveryJob{Delivery: jobs[p.DeliveryID], URL: p.Webhook.URL, Secret: p.Webhook.Secret})
		}
		// The endpoints served go behind the others, the last served last.
		served := make([]string, 0, len(lastServed))
		for h := range lastServed {
			served = append(served, h)
		}
		slices.SortFunc(served, func(a, b string) int { return lastServed[a] - lastServed[b] })
		_, err = t.exec(`UPDATE webhooks w SET claimed_seq = (SELECT nextval('webhook_claim_seq')) * $2 + u.ord
			FROM unnest($1::uuid[]) WITH ORDINALITY AS u(id, ord) WHERE w.id = u.id`, served, int64(maxClaimHooks))
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// dueDeliveries lists, per endpoint of ids, up to rooms[i] of its due deliveries,
// oldest first, locked (FOR UPDATE SKIP LOCKED).
func (t *txn) dueDeliveries(now time.Time, ids []string, rooms []int32) (map[string][]string, error) {
	queue := map[string][]string{}
	if len(ids) == 0 {
		return queue, nil
	}
	rows, err := t.tx.Query(t.ctx, `SELECT x.id::text, x.webhook_id::text FROM unnest($1::uuid[], $2::int[]) AS h(id, n)
		CROSS JOIN LATERAL (SELECT d.id, d.webhook_id, d.next_attempt_at FROM webhook_deliveries d
			WHERE d.webhook_id = h.id AND `+dueWhere("$3")+`
			ORDER BY d.next_attempt_at, d.id LIMIT h.n FOR UPDATE SKIP LOCKED) x
		ORDER BY x.webhook_id, x.next_attempt_at, x.id`, ids, rooms, now)
	if err != nil {
		return nil, err
	}
	_, err = hookRows(rows, func(r pgx.CollectableRow) error {
		var id, hook string
		err := r.Scan(&id, &hook)
		queue[hook] = append(queue[hook], id)
		return err
	})
	return queue, err
}

// leaseDeliveries leases the deliveries ids to owner until until and returns them
// with their payloads.
func (t *txn) leaseDeliveries(ids []string, until time.Time, owner string) (map[string]*store.Delivery, error) {
	rows, err := t.tx.Query(t.ctx, `UPDATE webhook_deliveries d SET leased_until = $2, leased_by = $3 WHERE d.id = ANY($1::uuid[])
		RETURNING d.doc, d.status, d.next_attempt_at, coalesce(d.body_of::text, ''),
		coalesce(d.body, (SELECT b.body FROM outbox_bodies b WHERE b.event_id = d.body_of))`, ids, until, owner)
	if err != nil {
		return nil, err
	}
	out := map[string]*store.Delivery{}
	_, err = hookRows(rows, func(r pgx.CollectableRow) error {
		var raw []byte
		var bodyOf string
		var c deliveryCols
		if err := r.Scan(&raw, &c.Status, &c.NextAttemptAt, &bodyOf, &c.Body); err != nil {
			return err
		}
		d, err := decode[deliveryRecord](raw)
		if err != nil {
			return err
		}
		if c.Body == nil {
			return fmt.Errorf("delivery %s: the payload of event %s is missing", d.ID, bodyOf)
		}
		out[d.ID] = d.domain(c)
		return nil
	})
	return out, err
}

// ReleaseClaim implements store.Outbox. The commit wakes every server's
// dispatcher: the delivery is due at once.
func (db *DB) ReleaseClaim(ctx context.Context, deliveryID, owner string) error {
	if err := store.CheckStorable("owner", owner); err != nil {
		return err
	}
	return db.update(ctx, func(t *txn) error {
		n, err := t.exec(`UPDATE webhook_deliveries SET leased_until = NULL, leased_by = '' WHERE id = $1 AND leased_by = $2 AND leased_until IS NOT NULL`,
			uuidOrNil(deliveryID), owner)
		t.queued = n > 0
		return err
	})
}

// QueuedDeliveries implements store.Tx.
func (t *txn) QueuedDeliveries() (int, time.Time, error) {
	return t.countSince(`SELECT count(*), min(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending' AND queued`)
}

// UnexpandedEvents implements store.Tx.
func (t *txn) UnexpandedEvents() (int, time.Time, error) {
	return t.countSince(`SELECT count(*), min(created_at) FROM outbox_events`)
}

// countSince runs a query of a count and a minimum time; the zero time
// when it counted nothing.
func (t *txn) countSince(query string) (int, time.Time, error) {
	var n int64
	var first *time.Time
	if err := t.tx.QueryRow(t.ctx, query).Scan(&n, &first); err != nil || first == nil {
		return int(n), time.Time{}, err
	}
	return int(n), *first, nil
}
