package store

import (
	"context"
	"fmt"
	"time"
)

// Counters are windowed event counters kept in the store, so that every
// server of one store counts into the same window: what guards accounts
// (the login-failure throttles, the mail cap per address) must not
// multiply with the number of servers (docs/design.md §12, "Shared
// counters"). A key's first event opens a fixed window of the length its
// caller gives; at most the limit's events are counted in it; when it has
// closed the next event opens a new one.
type Counters interface {
	// CountHit counts one event of key, or refuses it when limit events
	// were counted in key's live window already: a refused event is not
	// counted, so a client that waits is let in. A limit of Unlimited
	// counts the event whatever the count (an event let through on other
	// grounds, which must still weigh).
	CountHit(ctx context.Context, key string, limit int, window time.Duration) (CounterState, error)
	// CountUndo takes back one event counted in key's live window (one that
	// turned out not to count); a key without one is left alone.
	CountUndo(ctx context.Context, key string) error
	// CountReset forgets key.
	CountReset(ctx context.Context, key string) error
	// SweepCounters deletes up to limit windows that have closed and
	// returns how many it deleted.
	SweepCounters(ctx context.Context, limit int) (int, error)
}

// CounterState is a key's standing after CountHit.
type CounterState struct {
	// Allowed: the event was counted.
	Allowed bool
	// Count is the number of events counted in the live window.
	Count int
	// Reset is the time until the window closes.
	Reset time.Duration
}

// CheckCounterHit checks CountHit's arguments: a key, a limit of at least
// one (or Unlimited) and a window of at least a millisecond. They come from
// the server's code, not from a client, so a bad one is a bug.
func CheckCounterHit(key string, limit int, window time.Duration) error {
	if err := CheckCounterKey(key); err != nil {
		return err
	}
	if key == "" || (limit < 1 && limit != Unlimited) || window < time.Millisecond {
		return fmt.Errorf("counter %q: limit %d and window %v are not a counter's", key, limit, window)
	}
	return nil
}

// CheckCounterKey refuses a counter key no backend could store
// (CheckStorable). Returns validation_failed naming key.
func CheckCounterKey(key string) error {
	return CheckStorable("key", key)
}
