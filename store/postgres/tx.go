package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"licensectl/store"
)

// txn is one transaction with the request's context and one clock reading,
// so that every timestamp a change writes is the same.
type txn struct {
	tx  pgx.Tx
	ctx context.Context
	now time.Time
	db  *DB
	// hooks caches the endpoints per scope for the outbox (scopeHooks);
	// every change to an endpoint resets it.
	hooks map[string][]*store.Webhook
	// queued: an outbox event was written, and the commit notifies every
	// server's dispatcher.
	queued bool
	// write: a read-write transaction, whose reads of an application lock
	// its row (txn.app).
	write bool
}

// maxAttempts bounds how often a transaction that lost a serialization race
// or a deadlock is run again before the caller gets 503 unavailable
// (docs/design.md §12).
const maxAttempts = 5

// update runs fn in one read-write transaction: the change, its audit entry
// and its outbox rows commit together or not at all. A serialization failure
// or deadlock runs fn again, from scratch, with jitter.
func (db *DB) update(ctx context.Context, fn func(t *txn) error) error {
	return db.run(ctx, pgx.TxOptions{}, fn)
}

// view runs fn in a read-only transaction (one snapshot for its queries).
func (db *DB) view(ctx context.Context, fn func(t *txn) error) error {
	return db.run(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead}, fn)
}

func (db *DB) run(ctx context.Context, opts pgx.TxOptions, fn func(t *txn) error) error {
	for attempt := 1; ; attempt++ {
		err := db.attempt(ctx, opts, fn)
		if err == nil || !retryable(err) {
			return mapError(err)
		}
		if attempt == maxAttempts {
			return &store.Error{Code: store.ECodeUnavailable, Message: "the database kept refusing the change as conflicting; retry", Err: err, RetryAfter: 1}
		}
		// Full jitter over a doubling window: 2, 4, 8, 16 ms.
		select {
		case <-time.After(time.Duration(rand.Int64N(int64(time.Millisecond) << attempt))):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (db *DB) attempt(ctx context.Context, opts pgx.TxOptions, fn func(t *txn) error) error {
	acquire := db.acquireWrite
	if opts.AccessMode == pgx.ReadOnly {
		acquire = db.acquire
	}
	conn, err := acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	tx, err := conn.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	t := &txn{tx: tx, ctx: ctx, now: db.Clock(), db: db, write: opts.AccessMode != pgx.ReadOnly}
	if err := fn(t); err != nil {
		tx.Rollback(ctx)
		return err
	}
	if t.queued {
		// Delivered at commit, to every server listening, itself included.
		if _, err := tx.Exec(ctx, `SELECT pg_notify($1, '')`, outboxChannel); err != nil {
			tx.Rollback(ctx)
			return err
		}
	}
	start := time.Now()
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	if opts.AccessMode != pgx.ReadOnly {
		db.commits.Observe(1, time.Since(start))
	}
	if t.queued {
		db.wake()
	}
	return nil
}

// acquire takes a pooled connection for a read, waiting as long as the
// request may: reads are never refused as overloaded (docs/design.md §14).
func (db *DB) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	conn, err := db.pool.Acquire(ctx)
	return conn, mapError(err)
}

// acquireWrite takes a pooled connection for a write, waiting at most
// MaxQueueWait: past it the write is refused as overloaded, nothing done
// (docs/design.md §14).
func (db *DB) acquireWrite(ctx context.Context) (*pgxpool.Conn, error) {
	if db.MaxQueueWait <= 0 {
		return db.acquire(ctx)
	}
	// The wait counts from the request's admission, when the server
	// admitted it: a write whose budget is spent is refused.
	wctx, cancel := context.WithTimeout(ctx, db.MaxQueueWait-time.Since(store.WriteWaitSince(ctx)))
	defer cancel()
	conn, err := db.pool.Acquire(wctx)
	if err != nil && ctx.Err() == nil && errors.Is(wctx.Err(), context.DeadlineExceeded) {
		return nil, store.ErrOverloaded()
	}
	return conn, mapError(err)
}

// retryable reports a serialization failure or a deadlock.
func retryable(err error) bool {
	var pg *pgconn.PgError
	return errors.Is(err, errConflict) || errors.As(err, &pg) && (pg.Code == "40001" || pg.Code == "40P01")
}

// errConflict is a conflict the code detects itself, retried as a
// serialization failure is.
var errConflict = errors.New("a concurrent change; run the transaction again")

// conflicts maps the name of a unique constraint to the domain error its
// violation means; each file registers those of its tables.
var conflicts = map[string]func() error{}

// conflictOn registers the domain error of a unique constraint's violation.
func conflictOn(constraint string, err func() error) bool {
	conflicts[constraint] = err
	return true
}

// mapError turns a unique violation the code did not foresee into its
// domain error, and leaves every other error as it is.
func mapError(err error) error {
	if unreachable(err) {
		return &store.Error{Code: store.ECodeUnavailable, Message: "the database cannot be reached; retry", Err: err}
	}
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return err
	}
	if pg.Code == "23505" {
		if f, ok := conflicts[pg.ConstraintName]; ok {
			return f()
		}
		return &store.Error{Code: store.ECodeConflict, Message: "the change conflicts with an existing record", Err: err}
	}
	return err
}

// unreachable reports an error of reaching the database rather than of the
// request: a connection refused, cut or timed out, a server shutting down
// or starting up, no connection slot left. The request did not fail on its
// own account, so it is 503 unavailable (retry), not 500 internal.
func unreachable(err error) bool {
	if err == nil {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		// 08: connection exception; 57P01–57P03: admin or crash shutdown,
		// cannot connect now; 53300: too many connections.
		return strings.HasPrefix(pg.Code, "08") || pg.Code == "57P01" || pg.Code == "57P02" || pg.Code == "57P03" || pg.Code == "53300"
	}
	var connect *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connect) || errors.As(err, &netErr) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || pgconn.Timeout(err)
}

// isUnique reports whether err is the violation of the unique constraint
// named.
func isUnique(err error, constraint string) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23505" && pg.ConstraintName == constraint
}

// noRows reports a query that found nothing.
func noRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// exec runs a statement in the transaction.
func (t *txn) exec(sql string, args ...any) (int64, error) {
	tag, err := t.tx.Exec(t.ctx, sql, args...)
	return tag.RowsAffected(), err
}

// doc decodes the doc column read by sql into a new T; nil when no row.
func doc[T any](t *txn, sql string, args ...any) (*T, error) {
	var raw []byte
	if err := t.tx.QueryRow(t.ctx, sql, args...).Scan(&raw); err != nil {
		if noRows(err) {
			return nil, nil
		}
		return nil, err
	}
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("decode %T: %w", v, err)
	}
	return v, nil
}

// mustDoc is doc that turns absence into not_found for kind.
func mustDoc[T any](t *txn, kind, sql string, args ...any) (*T, error) {
	v, err := doc[T](t, sql, args...)
	if err == nil && v == nil {
		return nil, store.NotFound(kind)
	}
	return v, err
}

// docs decodes the doc column of every row sql returns.
func docs[T any](t *txn, sql string, args ...any) ([]*T, error) {
	rows, err := t.tx.Query(t.ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*T
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, err
		}
		v := new(T)
		if err := json.Unmarshal(raw, v); err != nil {
			return nil, fmt.Errorf("decode %T: %w", v, err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// count runs a SELECT count(*) (or any single integer).
func (t *txn) count(sql string, args ...any) (int, error) {
	var n int64
	err := t.tx.QueryRow(t.ctx, sql, args...).Scan(&n)
	return int(n), err
}

// js encodes v for a jsonb column.
func js(v any) []byte {
	raw, err := json.Marshal(v)
	if err != nil {
		// Only the domain's own types are stored; they always encode.
		panic(fmt.Sprintf("encode %T: %v", v, err))
	}
	return raw
}

// uuidOrNil is id when it is a well-formed UUID, else nil: a malformed id
// finds nothing instead of failing the query on the uuid cast.
func uuidOrNil(id string) any {
	if !store.ValidID(id) {
		return nil
	}
	return id
}

// decode reads a doc into a new T.
func decode[T any](raw []byte) (*T, error) {
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("decode %T: %w", v, err)
	}
	return v, nil
}

// passLockKey is the advisory lock key of the pass named $1.
const passLockKey = `hashtext('licensectl pass ' || current_schema() || ' ' || $1)`

// passLock takes the transaction-scoped advisory lock of a background pass
// (expiry, billing, retention, nonce purge, usage flush…): every server runs
// every pass, and one that finds the lock held by another server skips
// this round (docs/design.md §12). It reports whether the lock was taken.
// Advisory locks belong to the whole database: the key names the schema
// too, so that stores in two schemas of one database never skip each
// other's passes.
func (t *txn) passLock(pass string) (bool, error) {
	var ok bool
	err := t.tx.QueryRow(t.ctx, `SELECT pg_try_advisory_xact_lock(`+passLockKey+`)`, pass).Scan(&ok)
	return ok, err
}

// nullID is id, or SQL NULL for "".
func nullID(id string) any {
	if id == "" {
		return nil
	}
	return id
}
