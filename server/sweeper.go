package server

import (
	"context"
	"time"
)

// sweepEvery is how often stored license statuses catch up with expiry.
const sweepEvery = time.Minute

// expireLicenses stores the expiry of lapsed licenses. Reads already derive
// "expired"; storing it makes status filters and counts agree. It runs as a
// worker at start and every sweepEvery.
func (s *Server) expireLicenses(ctx context.Context) {
	if n, err := s.db.ExpireLicenses(ctx); err != nil {
		s.logger.Error("license expiry sweep", "err", err)
	} else if n > 0 {
		s.logger.Info("license expiry sweep", "expired", n)
	}
}
