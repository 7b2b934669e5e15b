package postgres

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"licensectl/store"
)

// TestRetriesSerializationFailures: a transaction that loses a
// serialization race or a deadlock is run again from scratch, up to 5
// times, then answered 503 unavailable (docs/design.md §12); other errors
// are answered at once.
func TestRetriesSerializationFailures(t *testing.T) {
	db := openTest(t, Options{})
	cases := []struct {
		name     string
		failures int    // attempts that fail before one succeeds
		code     string // SQLSTATE of the failures
		runs     int
		want     string // error code, "" for success
	}{
		{"SerializationThenSuccess", 2, "40001", 3, ""},
		{"DeadlockThenSuccess", 4, "40P01", 5, ""},
		{"SerializationEveryTime", 100, "40001", maxAttempts, store.ECodeUnavailable},
		{"OtherErrorOnce", 100, "23502", 1, "not a domain error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runs := 0
			err := db.update(context.Background(), func(tx *txn) error {
				runs++
				if _, err := tx.exec(`INSERT INTO meta (name, value) VALUES ($1, 'x') ON CONFLICT (name) DO UPDATE SET value = 'x'`, "retry "+c.name); err != nil {
					return err
				}
				if runs <= c.failures {
					return &pgconn.PgError{Code: c.code}
				}
				return nil
			})
			if runs != c.runs {
				t.Fatalf("ran %d times, want %d", runs, c.runs)
			}
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("err = %v, want success", err)
			case c.want == store.ECodeUnavailable && store.ErrorCode(err) != c.want:
				t.Fatalf("err = %v, want %s", err, c.want)
			case c.want == "not a domain error" && (err == nil || store.AsError(err) != nil || !errors.As(err, new(*pgconn.PgError))):
				t.Fatalf("err = %v, want the database's error as it is", err)
			}
			var n int
			if err := db.pool.QueryRow(context.Background(), `SELECT count(*) FROM meta WHERE name = $1`, "retry "+c.name).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 1, false: 0}[c.want == ""]; n != want {
				t.Fatalf("%d rows committed, want %d: a failed attempt's writes must roll back", n, want)
			}
		})
	}
}
