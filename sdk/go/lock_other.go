//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package licensing

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"
)

// staleLock is how old a lock file must be to be taken as left by a
// crashed process: far longer than any refresh holds it.
const staleLock = 2 * time.Minute

// lockFile creates path exclusively (the standard library has no portable
// file lock here) and removes it on unlock; a lock file older than
// staleLock is broken.
func lockFile(ctx context.Context, path string) (func(), error) {
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) > staleLock {
			os.Remove(path)
			continue
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func syncDir(string) {}
