package licensing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// The files of a state directory, each 0600 and replaced atomically (a
// temporary file renamed over the old), so that a reader in another process
// sees the old content or the new, never half.
const (
	sessionFile   = "session.json" // the session pair and what it was opened with
	machineFile   = "machine.lic"  // the machine file, as the server issued it
	clockFile     = "clock"        // the watermark: the latest trusted time seen
	refreshLock   = "session.lock" // held while the pair is read, refreshed and stored
	watermarkLock = "clock.lock"   // held while the watermark is raised
)

// session is the runtime session this device holds.
type session struct {
	// Kind is "activation" (a license key on this device: machine files and
	// leases work) or "login" (an end-user's account).
	Kind             string    `json:"kind"`
	LicenseKey       string    `json:"license_key,omitempty"` // canonical form
	Fingerprint      string    `json:"fingerprint"`
	AccessToken      string    `json:"access_token"`
	RefreshToken     string    `json:"refresh_token"`
	AccessExpiresAt  time.Time `json:"access_expires_at"`
	RefreshExpiresAt time.Time `json:"refresh_expires_at"`
}

type stateDir struct{ dir string }

func openState(dir string) (*stateDir, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("licensing: state directory: %w", err)
	}
	return &stateDir{dir: dir}, nil
}

func (s *stateDir) path(name string) string { return filepath.Join(s.dir, name) }

// write replaces name with data atomically, mode 0600.
func (s *stateDir) write(name string, data []byte) error {
	f, err := os.CreateTemp(s.dir, "."+name+".*")
	if err != nil {
		return fmt.Errorf("licensing: state: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // gone after the rename; cleans up on failure
	if err := f.Chmod(0o600); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		f.Close()
		return fmt.Errorf("licensing: state: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("licensing: state: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("licensing: state: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("licensing: state: %w", err)
	}
	if err := os.Rename(tmp, s.path(name)); err != nil {
		return fmt.Errorf("licensing: state: %w", err)
	}
	syncDir(s.dir)
	return nil
}

// read is name's content, nil when it does not exist.
func (s *stateDir) read(name string) ([]byte, error) {
	b, err := os.ReadFile(s.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("licensing: state: %w", err)
	}
	return b, nil
}

func (s *stateDir) remove(name string) error {
	if err := os.Remove(s.path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("licensing: state: %w", err)
	}
	return nil
}

func (s *stateDir) session() (*session, error) {
	b, err := s.read(sessionFile)
	if b == nil || err != nil {
		return nil, err
	}
	var sess session
	if err := json.Unmarshal(b, &sess); err != nil {
		return nil, fmt.Errorf("licensing: state: %s is damaged: %w", sessionFile, err)
	}
	return &sess, nil
}

func (s *stateDir) putSession(sess *session) error {
	b, err := json.Marshal(sess)
	if err != nil {
		return err
	}
	return s.write(sessionFile, b)
}

// clear forgets the session and its machine file: the server said the
// session, or the license, can no longer be used.
func (s *stateDir) clear() error {
	if err := s.remove(sessionFile); err != nil {
		return err
	}
	return s.remove(machineFile)
}

func (s *stateDir) watermark() (time.Time, error) {
	b, err := s.read(clockFile)
	if b == nil || err != nil {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return time.Time{}, fmt.Errorf("licensing: state: %s is damaged", clockFile)
	}
	return t, nil
}

// raiseWatermark moves the watermark to t when t is later; it never goes
// back, whatever another process writes at the same moment.
func (s *stateDir) raiseWatermark(t time.Time) error {
	return s.locked(context.Background(), watermarkLock, func() error {
		wm, err := s.watermark()
		if err != nil || !t.After(wm) {
			return err
		}
		return s.write(clockFile, []byte(t.UTC().Format(time.RFC3339Nano)))
	})
}

// locked runs fn holding the lock file name, across processes.
func (s *stateDir) locked(ctx context.Context, name string, fn func() error) error {
	unlock, err := lockFile(ctx, s.path(name))
	if err != nil {
		return fmt.Errorf("licensing: lock %s: %w", name, err)
	}
	defer unlock()
	return fn()
}
