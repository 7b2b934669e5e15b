package bolt

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"

	"licensectl/store"
)

// noSpace are the errors of a write the volume cannot take: a full disk,
// an exhausted quota, a file-size limit.
var noSpace = []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG}

// isNoSpace reports whether err is a write refused for lack of space.
// bbolt formats some of its I/O errors with %s (the file resize of a
// growing database), so the message is looked at too.
func isNoSpace(err error) bool {
	for _, e := range noSpace {
		if errors.Is(err, e) || strings.Contains(err.Error(), e.Error()) {
			return true
		}
	}
	return false
}

// committed looks at the outcome of a write transaction. A commit that
// failed for lack of space becomes 503 unavailable — the service cannot
// take writes, the request was fine — and marks the store not ready until
// a write succeeds again; see Ping.
func (db *DB) committed(err error) error {
	if err == nil {
		db.full.Store(false)
		return nil
	}
	if store.AsError(err) != nil || !isNoSpace(err) {
		return err
	}
	db.full.Store(true)
	return &store.Error{Code: store.ECodeUnavailable, Message: "the server cannot save changes: its disk is full; retry later", RetryAfter: 30, Err: err}
}

// errNotReadyFull is Ping's answer while writes fail for lack of space.
var errNotReadyFull = errors.New("writes fail: the data volume is full")

// pingWrite is Ping's probe while the disk is full. A small write may well
// succeed on a full volume (bbolt reuses freed pages) while the next one
// that grows the file fails, so the probe asks what a growth needs: it
// writes one byte, in a file of its own beside the database, at the offset
// the database's next growth would reach (sparse: it costs one block).
func (db *DB) pingWrite(context.Context) error {
	st, err := os.Stat(db.bolt.Path())
	if err != nil {
		return err
	}
	probe := db.bolt.Path() + ".space-probe"
	f, err := os.OpenFile(probe, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return errors.Join(errNotReadyFull, err)
	}
	_, werr := f.WriteAt([]byte{1}, st.Size()+int64(db.bolt.AllocSize))
	cerr := f.Close()
	_ = os.Remove(probe)
	if err := errors.Join(werr, cerr); err != nil {
		return errors.Join(errNotReadyFull, err)
	}
	db.full.Store(false)
	return nil
}
