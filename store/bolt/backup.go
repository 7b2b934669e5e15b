package bolt

import (
	"context"
	"encoding/binary"
	"errors"
	"io"

	bolt "go.etcd.io/bbolt"

	"licensectl/store"
)

// BackupSizer is implemented by writers that want to know the size of a
// backup before its first byte, such as an HTTP response that sets
// Content-Length so that a truncated transfer is detectable.
type BackupSizer interface {
	SetBackupSize(n int64)
}

var _ store.FileBackup = (*DB)(nil)

// Backup writes a consistent copy of the whole database to w from one read
// transaction, so writers keep working while it streams. The copy is a valid
// bbolt file. It returns the number of bytes written.
func (db *DB) Backup(ctx context.Context, w io.Writer) (int64, error) {
	var n int64
	err := db.bolt.View(func(tx *bolt.Tx) error {
		if s, ok := w.(BackupSizer); ok {
			s.SetBackupSize(tx.Size())
		}
		var err error
		n, err = tx.WriteTo(ctxWriter{ctx: ctx, w: w})
		return err
	})
	return n, err
}

// ctxWriter stops a long copy once its context is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// Check walks every page of the file in one read transaction and reports
// corruption (bbolt's consistency check), e.g. to verify a backup.
func (db *DB) Check() error {
	return db.bolt.View(func(tx *bolt.Tx) error {
		var errs []error
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	})
}

// StoredSchemaVersion is the schema version recorded in the file: 0 for a
// file this program never initialised, more than SchemaVersion for a file
// written by a newer binary.
func (db *DB) StoredSchemaVersion() (uint64, error) {
	var v uint64
	err := db.bolt.View(func(tx *bolt.Tx) error {
		if meta := tx.Bucket(bMeta); meta != nil {
			if b := meta.Get(metaSchemaVersion); len(b) == 8 {
				v = binary.BigEndian.Uint64(b)
			}
		}
		return nil
	})
	return v, err
}
