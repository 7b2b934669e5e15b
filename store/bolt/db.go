// Package bolt implements the store interfaces on an embedded bbolt file.
// No bbolt type, bucket name or byte slice owned by bbolt leaves this package.
package bolt

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"licensectl/store"
	"licensectl/store/password"
)

// Options configure a DB.
type Options struct {
	// Policies are the knobs of the domain, the same for either store.
	Policies store.Policies
	// LockTimeout is how long Open waits for the file lock; 0 means 2 s.
	LockTimeout time.Duration
	// ReadOnly opens the file for reading only.
	ReadOnly bool
}

// initialMmapSize is address space, not memory: pages are only read in as
// they are touched.
const initialMmapSize = 1 << 30

// ErrLocked is returned by Open when another process holds the file.
var ErrLocked = errors.New("the database file is locked by another process (is `licensectl serve` running? use --server to talk to it)")

// DB is the bbolt-backed store. It implements store.Admin.
type DB struct {
	// Service is the orchestration of the changes, over the file's
	// transactions (orchestration.go).
	store.Service
	bolt *bolt.DB
	// stale is why a read-only handle on a file of another schema version
	// reads no records; nil otherwise.
	stale error
	// migrated lists the migrations applied at open.
	migrated []string

	commits  *store.CommitStats
	sessions store.SessionCount
	disk     diskState     // the last commit failed for want of space
	enqueued chan struct{} // signalled after a commit that queued webhook deliveries
	writer   *writerGate   // every write after Open goes through it
	leases   leaseTable    // the outbox claims in flight (outbox_lease.go)
	// counts shares commits among the shared counters' hits (counters.go).
	counts *groupCommit
}

var (
	_ store.Admin       = (*DB)(nil)
	_ store.Credentials = (*DB)(nil)
)

// rebuildFreelist is whether Open leaves the freelist out of every commit
// and rebuilds it from the pages instead. Off: the rebuild walks every page
// of the file, 2.7-4.5 s warm and 26-29 s cold at a million licenses, while
// writing the map freelist costs a commit no measurable time (BenchmarkFreelist,
// docs/performance.md). A file written either way opens the other way: the
// first commit writes, or drops, the stored freelist.
var rebuildFreelist = false

// Open opens (creating if needed) the database file at path and applies
// migrations.
func Open(path string, opts Options) (_ *DB, err error) {
	var bdb *bolt.DB
	defer func() {
		if p := recover(); p != nil {
			if bdb != nil {
				bdb.Close()
			}
			err = pageFault(path, p)
		}
	}()
	if opts.LockTimeout == 0 {
		opts.LockTimeout = 2 * time.Second
	}
	if err := checkFile(path); err != nil {
		return nil, err
	}
	bdb, err = bolt.Open(path, 0o600, &bolt.Options{
		Timeout:        opts.LockTimeout,
		ReadOnly:       opts.ReadOnly,
		NoFreelistSync: rebuildFreelist,
		FreelistType:   bolt.FreelistMapType,
		// Reserving address space up front means the file can grow without
		// remapping, and a remap blocks every reader until it is done.
		InitialMmapSize: initialMmapSize,
	})
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, ErrLocked
		}
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db := &DB{bolt: bdb, commits: store.NewCommitStats(), enqueued: make(chan struct{}, 1),
		leases: leaseTable{byID: map[string]lease{}}, writer: newWriterGate(opts.Policies.MaxQueueWait)}
	db.Service = store.NewService(password.WithCommonList(opts.Policies), storage{db})
	db.counts = &groupCommit{db: db}
	if !opts.ReadOnly {
		if err := db.migrate(); err != nil {
			bdb.Close()
			return nil, err
		}
		if err := db.countOrgLicenses(); err != nil {
			bdb.Close()
			return nil, err
		}
		return db, nil
	}
	// A read-only handle cannot migrate: it still backs up, checks and
	// reports the version of any file (restore inspects files with it), but
	// reads no records of another version.
	v, err := db.StoredSchemaVersion()
	if err != nil {
		bdb.Close()
		return nil, err
	}
	switch {
	case v > SchemaVersion:
		db.stale = &ErrSchemaTooNew{File: v, Binary: SchemaVersion}
	case v != 0 && v < SchemaVersion:
		db.stale = fmt.Errorf("database schema version %d is older than this binary's %d: open it read-write once (e.g. licensectl serve) to migrate it", v, SchemaVersion)
	}
	return db, nil
}

// Close closes the file.
func (db *DB) Close() error { return db.bolt.Close() }

// Path is the file's path.
func (db *DB) Path() string { return db.bolt.Path() }

// Ping reports whether the store can serve a read.
func (db *DB) Ping(ctx context.Context) error {
	err := db.bolt.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bMeta) == nil {
			return errors.New("meta bucket missing")
		}
		return nil
	})
	if err == nil && db.disk.full.Load() {
		err = db.probeWrite()
	}
	return err
}

// MetaSecret returns the value kept under name in the meta bucket, creating it
// with gen on first use. It holds keys that must survive restarts (the
// dashboard token signing key, the ALTCHA HMAC key).
func (db *DB) MetaSecret(name string, gen func() ([]byte, error)) ([]byte, error) {
	if err := store.CheckStorable("name", name); err != nil {
		return nil, err
	}
	key := []byte("secret:" + name)
	var out []byte
	err := db.bolt.View(func(tx *bolt.Tx) error {
		out = clone(tx.Bucket(bMeta).Get(key))
		return nil
	})
	if err != nil || out != nil {
		return out, err
	}
	if err := db.writer.acquire(time.Now()); err != nil {
		return nil, err
	}
	defer db.writer.release()
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bMeta)
		if v := meta.Get(key); v != nil {
			out = clone(v)
			return nil
		}
		v, err := gen()
		if err != nil {
			return err
		}
		out = v
		return meta.Put(key, v)
	})
	return out, err
}

func u64(v uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, v)
	return b
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}
