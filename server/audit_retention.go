package server

import (
	"context"
	"time"
)

// retentionEvery is how often old audit entries and finished deliveries are
// pruned; retentionBatch bounds one write transaction of it.
const (
	retentionEvery = time.Hour
	retentionBatch = 500
)

// pruneAudit removes what the retention allows, batch by batch, so the
// writer is never held for long.
func (s *Server) pruneAudit(ctx context.Context) {
	total := 0
	for ctx.Err() == nil {
		n, err := s.db.PruneAudit(ctx, retentionBatch)
		if err != nil {
			s.logger.Error("audit retention sweep", "err", err)
			return
		}
		total += n
		if n == 0 {
			break
		}
	}
	if total > 0 {
		s.logger.Info("audit retention sweep", "removed", total)
	}
}
