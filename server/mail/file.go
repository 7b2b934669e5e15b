package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"os"
	"path/filepath"
	"time"
)

// fileSender writes each message as <Dir>/<UTC time>-<random>.eml. Names
// sort by time, so `ls` lists mails in the order they were sent, and the
// random part keeps two mails of the same nanosecond apart.
type fileSender struct {
	dir    string
	from   *netmail.Address
	logger *slog.Logger
}

// fileTimeFormat is RFC 3339 without separators, which are awkward in file
// names on some systems, and with fixed-width nanoseconds so names sort.
const fileTimeFormat = "20060102T150405.000000000Z"

func newFileSender(dir string, from *netmail.Address, logger *slog.Logger) (*fileSender, error) {
	if dir == "" {
		return nil, errors.New("mail: file driver needs a directory")
	}
	// 0700: the mails carry live verification and reset tokens.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("mail: create mail directory: %w", err)
	}
	return &fileSender{dir: dir, from: from, logger: logger}, nil
}

// Send writes m to a new file. The file appears complete or not at all: it
// is written under a temporary name and renamed, so a reader polling the
// directory (a test, a developer's mail viewer) never sees half a mail.
func (s *fileSender) Send(ctx context.Context, m Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := time.Now().UTC()
	msg, err := build(s.from, m, now)
	if err != nil {
		return err
	}
	suffix, err := randomHex(8)
	if err != nil {
		return err
	}
	name := filepath.Join(s.dir, now.Format(fileTimeFormat)+"-"+suffix+".eml")

	// CreateTemp opens with mode 0600, the mode the final file keeps.
	tmp, err := os.CreateTemp(s.dir, ".tmp-*.eml")
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op once renamed
	if _, err := msg.WriteTo(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("mail: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("mail: sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("mail: close %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	s.logger.InfoContext(ctx, "mail written", "to", m.To, "subject", m.Subject, "file", name)
	return nil
}
