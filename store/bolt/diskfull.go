package bolt

import (
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"syscall"

	"licensectl/store"
)

// A full disk (or a file that may not grow: a quota, a file-size limit)
// fails every commit. That is not the caller's fault nor a bug: each such
// write answers unavailable (503, retry later), and Ping reports the state
// so that readiness takes the instance out of rotation until a write
// succeeds again.

// noSpace reports an error of a disk or file that cannot grow. bbolt
// formats the error of growing the file with %s ("file resize error: file
// too large"), so the text is looked at too.
func noSpace(err error) bool {
	for _, e := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG} {
		if errors.Is(err, e) || strings.Contains(err.Error(), e.Error()) {
			return true
		}
	}
	return false
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

// probeWrite learns whether space came back. A small commit proves little:
// bbolt reuses freed pages, so one may succeed on a full volume while the
// next write that grows the file fails, and readiness would flap. The probe
// asks what growth needs: it writes one byte, in a file of its own beside
// the database, at the offset the database's next growth would reach
// (sparse: it costs one block), then removes it.
func (db *DB) probeWrite() error {
	st, err := os.Stat(db.bolt.Path())
	if err != nil {
		return errDiskFull
	}
	probe := db.bolt.Path() + ".space-probe"
	f, err := os.OpenFile(probe, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return errDiskFull
	}
	_, werr := f.WriteAt([]byte{1}, st.Size()+int64(db.bolt.AllocSize))
	cerr := f.Close()
	_ = os.Remove(probe)
	if werr != nil || cerr != nil {
		return errDiskFull
	}
	db.disk.full.Store(false)
	return nil
}
