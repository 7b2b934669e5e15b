package server

import (
	"context"
	"sync"
	"time"
)

// sweepEvery is how often stored license statuses catch up with expiry.
const sweepEvery = time.Minute

// startSweepers starts the background work that keeps stored state in step
// with time: the license expiry sweep, at start and every sweepEvery. Reads
// already derive "expired"; the sweep stores it so that status filters and
// counts agree. Close stops it (through s.bg) before the store closes.
func (s *Server) startSweepers() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(sweepEvery)
		defer tick.Stop()
		for {
			if n, err := s.db.ExpireLicenses(ctx); err != nil {
				s.logger.Error("license expiry sweep", "err", err)
			} else if n > 0 {
				s.logger.Info("license expiry sweep", "expired", n)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	s.bg = append(s.bg, func() { cancel(); wg.Wait() })
}
