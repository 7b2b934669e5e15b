package bolt

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"licensectl/store"
)

// dump is a whole database as reviewable text: every bucket's keys in hex
// and values as JSON when they are JSON, hex otherwise. testdata/v1.json.gz is
// one, written by the code of schema version 1 through the store (commit
// 67b0ecd, TestWriteV1Fixture in fixture_test.go, since removed: today's code
// writes version 2).
type dump struct {
	Schema  uint64                `json:"schema_version"`
	Buckets map[string][]dumpPair `json:"buckets"`
}

type dumpPair struct {
	K    string          `json:"k"`
	JSON json.RawMessage `json:"json,omitempty"`
	Hex  string          `json:"hex,omitempty"`
}

// value is the exact bytes of the pair's value.
func (p dumpPair) value() ([]byte, error) {
	if p.JSON != nil {
		var b bytes.Buffer
		if err := json.Compact(&b, p.JSON); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	return hex.DecodeString(p.Hex)
}

// writeDump creates a bbolt file at path holding exactly the pairs of d, put
// raw: no code of this package encodes them.
func writeDump(tb testing.TB, path string, d *dump) {
	tb.Helper()
	bdb, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer bdb.Close()
	err = bdb.Update(func(tx *bolt.Tx) error {
		for name, pairs := range d.Buckets {
			b, err := tx.CreateBucket([]byte(name))
			if err != nil {
				return err
			}
			for _, p := range pairs {
				k, err := hex.DecodeString(p.K)
				if err != nil {
					return err
				}
				v, err := p.value()
				if err != nil {
					return fmt.Errorf("%s/%s: %w", name, p.K, err)
				}
				if err := b.Put(k, v); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// testSigner makes access tokens "at.<session id>.<token id>": distinct,
// naming their session as a signed one does, and testSessionOf reads them.
func testSigner(_ *store.Environment, c store.AccessClaims) (string, error) {
	return "at." + c.SessionID + "." + c.ID, nil
}

func testSessionOf(tok string) string {
	if p := strings.Split(tok, "."); len(p) == 3 && p[0] == "at" {
		return p[1]
	}
	return ""
}

// reopen closes e's file and opens it again as e.db, as a restart would.
func (e *env) reopen(t *testing.T) *DB {
	t.Helper()
	path := e.db.bolt.Path()
	e.db.Close()
	db, err := Open(path, Options{Policies: store.Policies{Clock: e.clock.now, Hasher: fakeHasher{}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e.db = db
	return db
}
