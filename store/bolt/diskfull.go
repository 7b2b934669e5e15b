package bolt

import (
	"errors"
	"sync/atomic"
	"syscall"

	bolt "go.etcd.io/bbolt"

	"licensectl/store"
)

// A full disk (or a file that may not grow: a quota, a file-size limit)
// fails every commit. That is not the caller's fault nor a bug: each such
// write answers unavailable (503, retry later), and Ping reports the state
// so that readiness takes the instance out of rotation until a write
// succeeds again.

// noSpace reports an error of a disk or file that cannot grow.
func noSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EFBIG)
}

// diskState remembers whether the last commit failed for want of space.
type diskState struct{ full atomic.Bool }

// commitErr turns a failed commit into unavailable when the disk is full
// and keeps the state for Ping; nil (or any other error) after a commit
// means the disk took a write.
func (db *DB) commitErr(err error) error {
	if err != nil && noSpace(err) {
		db.disk.full.Store(true)
		return &store.Error{Code: store.ECodeUnavailable, Message: "the disk is full: changes are refused until space is freed", Err: err}
	}
	if err == nil {
		db.disk.full.Store(false)
	}
	return err
}

// errDiskFull is Ping's answer while the last write failed for space and a
// probe write fails too.
var errDiskFull = errors.New("the disk is full: writes fail")

// probeWrite tries a small write, to learn whether space came back.
func (db *DB) probeWrite() error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bMeta).Put([]byte("disk_probe"), u64(uint64(db.now().UnixNano())))
	})
	if db.commitErr(err) != nil {
		return errDiskFull
	}
	return nil
}
