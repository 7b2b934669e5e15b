package mail

import (
	"context"
	"log/slog"
)

// logSender only logs: for development and for deployments that deliver
// mail some other way. The body is logged in full because reading the link
// from the log is this driver's whole purpose.
type logSender struct {
	logger *slog.Logger
}

// Send logs m at info level.
func (s *logSender) Send(ctx context.Context, m Message) error {
	if err := m.validate(); err != nil {
		return err
	}
	s.logger.InfoContext(ctx, "mail", "to", m.To, "subject", m.Subject, "body", m.Text)
	return nil
}
