package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"licensectl/store"
)

// Runtime is the runtime API of the store (store.RuntimeBackend). It holds
// nothing another server could change: every answer comes from the
// database (docs/design.md §12), and only the last-seen times it has noted
// wait in memory for FlushSeen.
type Runtime struct {
	// RuntimeService is the orchestration of the runtime's changes, over
	// this runtime's transactions (orchestration.go).
	store.RuntimeService
	db *DB
	o  store.RuntimeOptions
}

// OpenRuntime implements store.Backend.
func (db *DB) OpenRuntime(o store.RuntimeOptions) store.RuntimeBackend {
	if o.SeenInterval == 0 {
		o.SeenInterval = 5 * time.Minute
	}
	r := &Runtime{db: db, o: o}
	r.RuntimeService = store.NewRuntimeService(runtimeStorage{r}, db.Hasher, o)
	return r
}

// rtQuerier runs one query: a transaction, or a pooled connection for the
// reads that are one statement.
type rtQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// rtEnvSQL finds the application environment of a runtime client: by its
// public key, or by the application id and the environment's name.
const (
	rtEnvByKey  = `e.public_key = $1`
	rtEnvByName = `a.id = $1 AND e.name = $2`
)

// rtEnvWhere returns the condition and arguments that find c's environment,
// or the refusal of c's environment name.
func rtEnvWhere(c store.RuntimeClient) (string, []any, error) {
	if err := c.Check(); err != nil {
		return "", nil, err
	}
	if c.PublicKey != "" {
		return rtEnvByKey, []any{c.PublicKey}, nil
	}
	name, err := c.EnvName()
	if err != nil {
		return "", nil, err
	}
	return rtEnvByName, []any{uuidOrNil(c.AppID), name}, nil
}

// rtEnvAfter renumbers the parameters of a condition of rtEnvWhere to
// follow n parameters of a statement (which are all typed by their use,
// whichever way the environment is found).
func rtEnvAfter(where string, n int) string {
	return strings.NewReplacer("$1", fmt.Sprintf("$%d", n+1), "$2", fmt.Sprintf("$%d", n+2)).Replace(where)
}

// rtApp builds the RuntimeApp of an application's doc and the id of the
// environment found with it.
func rtApp(raw []byte, envID string) (*store.RuntimeApp, error) {
	a, err := decode[store.Application](raw)
	if err != nil {
		return nil, err
	}
	env := a.EnvByID(envID)
	if env == nil {
		return nil, store.ErrUnknownApp()
	}
	return &store.RuntimeApp{App: a, Env: env}, nil
}

// ResolveApp implements store.Runtime: one query, app_envs by public key
// (or the application and the environment's name) joined to apps.
func (r *Runtime) ResolveApp(ctx context.Context, c store.RuntimeClient) (*store.RuntimeApp, error) {
	conn, err := r.db.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	return r.resolve(ctx, conn, c, false)
}

// resolve finds the application and environment of c. forWrite finds it
// only while it is active, with its row locked as every write under it
// locks it (appLockWrite).
func (r *Runtime) resolve(ctx context.Context, q rtQuerier, c store.RuntimeClient, forWrite bool) (*store.RuntimeApp, error) {
	where, args, err := rtEnvWhere(c)
	if err != nil {
		return nil, err
	}
	if forWrite {
		args = append(args, store.AppActive)
		where += fmt.Sprintf(" AND a.status = $%d %s OF a", len(args), appLockWrite)
	}
	var raw []byte
	var envID string
	err = q.QueryRow(ctx, `SELECT a.doc, e.id::text FROM app_envs e JOIN apps a ON a.id = e.app_id WHERE `+where, args...).Scan(&raw, &envID)
	if noRows(err) {
		return nil, store.ErrUnknownApp()
	}
	if err != nil {
		return nil, mapError(err)
	}
	return rtApp(raw, envID)
}

// activeApp resolves c in the write transaction t and refuses a disabled
// application. The row of an active application is locked as every write
// under it locks it (appLockWrite): a permanent deletion on another server
// either waits for this write and purges what it wrote, or commits first and
// this write finds no application, instead of leaving devices, sessions and
// audit entries under an application that is gone. A disabled application
// is not locked, so that a deletion, which disables it first
// (DeleteApplication), is not starved by a stream of runtime writes.
func (r *Runtime) activeApp(t *txn, c store.RuntimeClient) (*store.RuntimeApp, error) {
	ra, err := r.resolve(t.ctx, t.tx, c, true)
	if store.ErrorCode(err) != store.ECodeInvalidApp {
		return ra, err
	}
	// Not an active application: say whether it is disabled or unknown.
	if ra, err = r.resolve(t.ctx, t.tx, c, false); err != nil {
		return nil, err
	}
	if err := ra.App.CheckActive(); err != nil {
		return nil, err
	}
	// Active again since the locking read: run the transaction again.
	return nil, errConflict
}
