package postgres

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"licensectl/store"
	"licensectl/store/storedoc"
)

var _ store.CopyTarget = (*DB)(nil)

// copyTable is where one kind of a copy goes: its table, its columns in
// the order copyRow returns values, and how to count what it holds (a
// kind's records, not the rows of another kind sharing the table).
type copyTable struct {
	table string
	cols  []string
	count string
}

// copyTables lists, for each kind of store.CopyKinds, the table of
// migrations/0001_schema.sql it fills.
var copyTables = map[store.CopyKind]copyTable{
	store.CopyMeta:                {"meta", []string{"name", "value"}, ""},
	store.CopyOrganizations:       {"orgs", []string{"id", "slug", "doc"}, ""},
	store.CopyMembers:             {"members", []string{"id", "org_id", "email", "role", "doc"}, ""},
	store.CopyDashboardSessions:   {"dashboard_sessions", []string{"id", "member_id", "expires_at", "doc"}, ""},
	store.CopyMailTokens:          {"mail_tokens", []string{"hash", "member_id", "purpose", "expires_at", "doc"}, ""},
	store.CopyUsedChallenges:      {"used_challenges", []string{"hash", "expires_at"}, ""},
	store.CopyOnboarding:          {"onboarding", []string{"member_id", "doc"}, ""},
	store.CopyPartnerAttempts:     {"partner_attempts", []string{"hash", "expires_at"}, ""},
	store.CopyPartnerIdentities:   {"partner_identities", []string{"issuer", "subject", "member_id", "doc"}, ""},
	store.CopySubscriptions:       {"subscriptions", []string{"org_id", "doc"}, ""},
	store.CopyBillingTransactions: {"billing_transactions", []string{"id", "org_id", "status", "expires_at", "doc"}, ""},
	store.CopyApplications:        {"apps", []string{"id", "org_id", "slug", "status", "doc"}, ""},
	store.CopyAPIKeys:             {"api_keys", []string{"id", "org_id", "hash", "doc"}, ""},
	store.CopyAppSecrets:          {"app_secrets", []string{"id", "org_id", "app_id", "hash", "doc"}, ""},
	store.CopyEntitlements:        {"entitlements", []string{"id", "app_id", "key", "doc"}, ""},
	store.CopyPlans:               {"plans", []string{"id", "app_id", "doc"}, ""},
	store.CopyLicenses: {"licenses", []string{"id", "org_id", "app_id", "env_id", "key", "plan_id", "status", "user_id",
		"expires_at", "doc"}, ""},
	store.CopyEndUsers:       {"end_users", []string{"id", "app_id", "env_id", "email", "status", "doc"}, ""},
	store.CopyDevices:        {"devices", []string{"id", "app_id", "env_id", "fingerprint", "status", "doc"}, ""},
	store.CopyLicenseDevices: {"license_devices", []string{"license_id", "device_id", "bound_at"}, ""},
	store.CopySessions: {"sessions", []string{"id", "app_id", "env_id", "license_id", "user_id", "device_id", "access_hash",
		"refresh_hash", "retired_refresh", "access_expires_at", "refresh_expires_at", "absolute_expires_at", "revoked_at",
		"revoke_reason", "created_at", "last_seen_at", "rotated_at"}, ""},
	store.CopyLeases: {"leases", []string{"id", "org_id", "app_id", "env_id", "license_id", "device_id", "fingerprint",
		"expires_at", "created_at"}, ""},
	store.CopyNonces: {"nonces", []string{"env_id", "nonce", "expires_at"}, ""},
	store.CopyUsage:  {"runtime_usage", []string{"org_id", "month", "requests"}, ""},
	store.CopyAudit: {"audit", []string{"id", "org_id", "app_id", "env_ids", "event", "target_id", "created_at", "ip",
		"user_agent", "doc"}, ""},
	store.CopyWebhooks:     {"webhooks", []string{"id", "org_id", "app_id", "status", "doc"}, ""},
	store.CopyOutboxEvents: {"outbox_events", []string{"id", "org_id", "app_id", "event", "created_at", "body"}, ""},
	store.CopyOutboxBodies: {"outbox_bodies", []string{"event_id", "body"}, ""},
	store.CopyDeliveries: {"webhook_deliveries", []string{"id", "org_id", "app_id", "webhook_id", "status", "next_attempt_at",
		"done_at", "leased_until", "leased_by", "body_of", "body", "doc"}, ""},
}

// countSQL is the query that counts what a kind's table holds.
func (c copyTable) countSQL() string {
	if c.count != "" {
		return c.count
	}
	return `SELECT count(*) FROM ` + c.table
}

// copyBatch is how many rows one COPY sends: large enough that the round
// trips do not dominate, small enough that a big store is not held in
// memory. A variable, so that a test sends every table in several.
var copyBatch = 2000

// ImportRecords implements store.CopyTarget (docs/design.md §12, "Moving
// from the file"): in one transaction it refuses a database holding any
// record, writes every record src exports, sets each license's device
// count to its bindings, and reads back the count of every kind: the copy
// commits only when they equal the source's. It returns those counts.
func (db *DB) ImportRecords(ctx context.Context, src store.CopySource) (store.CopyCounts, error) {
	var out store.CopyCounts
	err := db.update(ctx, func(t *txn) error {
		if err := t.copyRefuseNonEmpty(); err != nil {
			return err
		}
		w := &copyWriter{t: t, rows: map[store.CopyKind][][]any{}}
		sent, err := src.ExportRecords(ctx, w.add)
		if err != nil {
			return err
		}
		if err := w.flushAll(); err != nil {
			return err
		}
		if err := w.laterColumns(); err != nil {
			return err
		}
		if _, err := t.exec(`UPDATE licenses l SET devices_count = d.n
			FROM (SELECT license_id, count(*) AS n FROM license_devices GROUP BY license_id) d WHERE d.license_id = l.id`); err != nil {
			return err
		}
		got, err := t.copyCounts()
		if err != nil {
			return err
		}
		if diff := sent.Diff(got); diff != "" {
			return fmt.Errorf("the copy does not count as the source (source ≠ PostgreSQL): %s; nothing was written", diff)
		}
		if diff := sent.Diff(w.seen); diff != "" {
			return fmt.Errorf("the source counted other records than it sent (counted ≠ sent): %s; nothing was written", diff)
		}
		out = got
		return nil
	})
	var pg *pgconn.PgError
	if breaksConstraint(err) && errors.As(err, &pg) {
		// The schema's rules (migration 0070) are checked at commit: a
		// source whose records name records it lacks is refused whole.
		return out, fmt.Errorf("the source breaks a rule of the schema (%s on %s: %s); nothing was written", pg.ConstraintName, pg.TableName, pg.Detail)
	}
	return out, err
}

// copyCounts counts what the database holds of each kind.
func (t *txn) copyCounts() (store.CopyCounts, error) {
	out := store.CopyCounts{}
	for _, k := range store.CopyKinds() {
		n, err := t.count(copyTables[k].countSQL())
		if err != nil {
			return nil, fmt.Errorf("count %s: %w", k, err)
		}
		out[k] = n
	}
	return out, nil
}

// copyRefuseNonEmpty refuses a database that holds any record, naming the
// first kind it found: a copy merged into live data would mix two stores'
// ids, keys and counts. The environments of applications are checked
// too, though they belong to the applications' kind.
func (t *txn) copyRefuseNonEmpty() error {
	for _, k := range store.CopyKinds() {
		n, err := t.count(copyTables[k].countSQL())
		if err != nil {
			return err
		}
		if n > 0 {
			return &store.ErrCopyTargetNotEmpty{Kind: k, N: n}
		}
	}
	n, err := t.count(`SELECT count(*) FROM app_envs`)
	if err == nil && n > 0 {
		return &store.ErrCopyTargetNotEmpty{Kind: "application environments", N: n}
	}
	return err
}

// copyWriter gathers rows per table and sends them with COPY.
type copyWriter struct {
	t    *txn
	rows map[store.CopyKind][][]any
	// envs are the app_envs rows of the applications.
	envs [][]any
	seen store.CopyCounts
	// spent are the hashes of mail tokens spent, and usedAt when; unqueued
	// the pending deliveries out of the queue (laterColumns).
	spent    [][]byte
	usedAt   []time.Time
	unqueued []string
}

// laterColumns writes what the parts' own migrations added to the tables
// of 0001 (mail_tokens.used_at of 0010, webhook_deliveries.queued of
// 0050), after the rows: each statement runs only for records that need
// it, a spent mail token or a pending delivery not in the queue.
func (w *copyWriter) laterColumns() error {
	if len(w.spent) > 0 {
		if _, err := w.t.exec(`UPDATE mail_tokens k SET used_at = u.at FROM unnest($1::bytea[], $2::timestamptz[]) AS u(hash, at)
			WHERE k.hash = u.hash`, w.spent, w.usedAt); err != nil {
			return fmt.Errorf("copy mail tokens: %w", err)
		}
	}
	if len(w.unqueued) > 0 {
		if _, err := w.t.exec(`UPDATE webhook_deliveries SET queued = false WHERE id = ANY($1::uuid[])`, w.unqueued); err != nil {
			return fmt.Errorf("copy webhook deliveries: %w", err)
		}
	}
	return nil
}

func (w *copyWriter) add(rec store.CopyRecord) error {
	if w.seen == nil {
		w.seen = store.CopyCounts{}
	}
	row, err := w.row(rec)
	if err != nil {
		return fmt.Errorf("copy %s: %w", rec.Kind, err)
	}
	w.seen[rec.Kind]++
	if row == nil {
		return nil // written through the table's saver
	}
	w.rows[rec.Kind] = append(w.rows[rec.Kind], row)
	if len(w.rows[rec.Kind]) >= copyBatch {
		return w.flush(rec.Kind)
	}
	if len(w.envs) >= copyBatch {
		return w.flushEnvs()
	}
	return nil
}

func (w *copyWriter) flush(k store.CopyKind) error {
	rows := w.rows[k]
	if len(rows) == 0 {
		return nil
	}
	c := copyTables[k]
	if _, err := w.t.tx.CopyFrom(w.t.ctx, pgx.Identifier{c.table}, c.cols, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("copy %s into %s: %w", k, c.table, err)
	}
	w.rows[k] = rows[:0]
	return nil
}

func (w *copyWriter) flushEnvs() error {
	if len(w.envs) == 0 {
		return nil
	}
	if _, err := w.t.tx.CopyFrom(w.t.ctx, pgx.Identifier{"app_envs"}, []string{"id", "app_id", "name", "public_key"},
		pgx.CopyFromRows(w.envs)); err != nil {
		return fmt.Errorf("copy application environments: %w", err)
	}
	w.envs = w.envs[:0]
	return nil
}

func (w *copyWriter) flushAll() error {
	for _, k := range store.CopyKinds() {
		if err := w.flush(k); err != nil {
			return err
		}
	}
	return w.flushEnvs()
}

// row turns a record into the values of its table's columns, each written
// as the loaders of this package read it back; nil when it wrote the record
// itself through its saver (savePlan, saveLicense…), as for plans (whose doc
// keeps the policies byte for byte).
func (w *copyWriter) row(rec store.CopyRecord) ([]any, error) {
	if _, ok := copyTables[rec.Kind]; !ok {
		return nil, fmt.Errorf("no table for this kind")
	}
	bad := func() ([]any, error) { return nil, fmt.Errorf("a value of type %T", rec.Value) }
	switch v := rec.Value.(type) {
	case *store.CopyMetaValue:
		if rec.Kind != store.CopyMeta {
			return bad()
		}
		return []any{v.Name, v.Value}, nil
	case *store.Organization:
		return []any{v.ID, v.Slug, js(v)}, nil
	case *store.Member:
		return []any{v.ID, nullID(v.OrgID), v.Email, v.Role, js(v)}, nil
	case *store.DashboardSession:
		return []any{v.ID, v.MemberID, v.ExpiresAt, js(v)}, nil
	case *store.CopyMailToken:
		h, err := copySum(v.Hash)
		if err != nil {
			return nil, err
		}
		if !v.UsedAt.IsZero() {
			w.spent, w.usedAt = append(w.spent, h), append(w.usedAt, v.UsedAt)
		}
		return []any{h, v.MemberID, v.Purpose, v.ExpiresAt, js(mailTokenDoc{CreatedAt: v.CreatedAt})}, nil
	case *store.CopyExpiring:
		if rec.Kind != store.CopyUsedChallenges && rec.Kind != store.CopyPartnerAttempts {
			return bad()
		}
		h, err := copySum(v.Hash)
		if err != nil {
			return nil, err
		}
		return []any{h, v.ExpiresAt}, nil
	case *store.CopyOnboardingState:
		return []any{v.MemberID, js(storedoc.Onboarding(v.Progress))}, nil
	case *store.CopyPartnerIdentity:
		return []any{v.Issuer, v.Subject, v.MemberID, js(storedoc.PartnerIdentity{MemberID: v.MemberID, LinkedAt: v.LinkedAt,
			AccountVerified: v.AccountVerified})}, nil
	case *store.CopySubscription:
		rec := storedoc.Subscription(v.State)
		return []any{v.OrgID, js(&rec)}, nil
	case *store.CopyBillingTransaction:
		return []any{v.ID, v.OrgID, v.Status, v.ExpiresAt, js(storedoc.BillingTransaction(*v))}, nil
	case *store.Application:
		for _, e := range v.Environments {
			w.envs = append(w.envs, []any{e.ID, v.ID, e.Name, e.PublicKey})
		}
		return []any{v.ID, v.OrgID, v.Slug, v.Status, js(v)}, nil
	case *store.APIKey:
		return []any{v.ID, v.OrgID, v.Hash, js(v)}, nil
	case *store.AppSecret:
		return []any{v.ID, v.OrgID, v.AppID, v.Hash, js(v)}, nil
	case *store.Entitlement:
		return []any{v.ID, v.AppID, v.Key, js(v)}, nil
	case *store.Plan:
		return nil, w.t.savePlan(v, true)
	case *store.CopyLicense:
		l := v.License
		// The column keeps the count (set from the bindings after the
		// copy); the doc's field is never read.
		l.DevicesCount = 0
		return []any{l.ID, v.OrgID, l.AppID, l.EnvID, l.Key, l.PlanID, l.Status, nullID(l.UserID), l.ExpiresAt, js(&l)}, nil
	case *store.EndUser:
		return []any{v.ID, v.AppID, v.EnvID, v.Email, v.Status, js(v)}, nil
	case *store.Device:
		return []any{v.ID, v.AppID, v.EnvID, v.Fingerprint, v.Status, js(v)}, nil
	case *store.CopyLicenseDevice:
		return []any{v.LicenseID, v.DeviceID, v.BoundAt}, nil
	case *store.CopySession:
		retired := v.RetiredRefresh
		if retired == nil {
			retired = []string{}
		}
		return []any{v.ID, v.AppID, v.EnvID, nullID(v.LicenseID), nullID(v.UserID), v.DeviceID, v.AccessHash, v.RefreshHash,
			retired, v.AccessExpiresAt, v.RefreshExpiresAt, v.AbsoluteExpiresAt, v.RevokedAt, v.RevokeReason, v.CreatedAt,
			v.LastSeenAt, v.RotatedAt}, nil
	case *store.CopyLease:
		return []any{v.ID, v.OrgID, v.AppID, v.EnvID, v.LicenseID, v.DeviceID, v.Fingerprint, v.ExpiresAt, v.CreatedAt}, nil
	case *store.CopyNonce:
		return []any{v.EnvID, v.Nonce, v.ExpiresAt}, nil
	case *store.CopyUsageMonth:
		return []any{v.OrgID, v.Month, v.Requests}, nil
	case *store.CopyAuditEntry:
		e := v.Entry
		envs := v.EnvIDs
		if envs == nil {
			envs = []string{}
		}
		return []any{e.ID, nullID(e.OrgID), nullID(e.AppID), envs, e.Event, e.Target.ID, e.CreatedAt, e.IP, e.UserAgent, js(&e)}, nil
	case *store.CopyWebhook:
		h := v.Webhook
		r := &storedoc.Webhook{ID: h.ID, OrgID: h.OrgID, AppID: h.AppID, URL: h.URL, Events: h.Events, Status: h.Status,
			Secret: h.Secret, FailingSince: h.FailingSince, TimedOut: v.TimedOut, CreatedAt: h.CreatedAt, UpdatedAt: h.UpdatedAt}
		return []any{r.ID, r.OrgID, r.AppID, r.Status, js(r)}, nil
	case *store.CopyOutboxEvent:
		return []any{v.ID, v.OrgID, nullID(v.AppID), v.Event, v.CreatedAt, v.Body}, nil
	case *store.CopyOutboxBody:
		return []any{v.EventID, v.Body}, nil
	case *store.CopyDelivery:
		d := v.Delivery
		var body []byte
		if v.BodyOf == "" {
			body = d.Body
		}
		if d.Status == store.DeliveryPending && !v.Queued {
			w.unqueued = append(w.unqueued, d.ID)
		}
		// A lease is a live sender's claim: no sender of the file's server
		// is alive after it stopped, so every pending delivery is free.
		return []any{d.ID, d.OrgID, d.AppID, d.WebhookID, d.Status, d.NextAttemptAt, v.DoneAt, nil, "", nullID(v.BodyOf),
			body, js(deliveryRecord{ID: d.ID, OrgID: d.OrgID, AppID: d.AppID, WebhookID: d.WebhookID, Event: d.Event,
				Attempts: d.Attempts, ResponseStatus: d.ResponseStatus, LastError: d.LastError, LastLatency: d.LastLatency,
				LastAttemptAt: d.LastAttemptAt, CreatedAt: d.CreatedAt})}, nil
	}
	return bad()
}

// copySum is the 32 bytes of a HashSecret: how this store keys what it
// keeps by the hash of a secret (mail tokens, spent solutions, partner
// attempts).
func copySum(hash string) ([]byte, error) {
	b, err := hex.DecodeString(hash)
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("a hash %q that is not a HashSecret", hash)
	}
	return b, nil
}

// The docs of the records that only a store keeps are written with the
// types the parts of this store read them with (mailTokenDoc,
// storedoc.Onboarding, storedoc.PartnerIdentity, storedoc.BillingTransaction, deliveryRecord): each
// holds what its row's columns leave out.
