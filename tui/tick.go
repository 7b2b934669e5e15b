package tui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// tickMsg asks a screen to poll. skip is set when polling is paused (a
// modal is open): the screen only schedules the next tick.
type tickMsg struct {
	screen uint64
	skip   bool
}

// every schedules one tick for screen after d; tests that drive Update
// synchronously turn ticks off.
func (c *ctx) every(d time.Duration, screen uint64) tea.Cmd {
	if c.noTicks {
		return nil
	}
	return tea.Tick(max(d, c.pollDelay), func(time.Time) tea.Msg { return tickMsg{screen: screen} })
}

// Bounds of the back-off after unavailable.
const (
	minBackoff = 2 * time.Second
	maxBackoff = 30 * time.Second
)

// backoff adjusts the polling delay to an answer, and says what the status
// line should tell while it waits ("" for nothing).
func (c *ctx) backoff(err error) string {
	switch store.ErrorCode(err) {
	case "":
		c.pollDelay = 0
	case store.ECodeUnavailable, store.ECodeInternal:
		// The answers of one round (a screen loads several things) fail
		// together: the delay doubles once per round, not per answer.
		if now := c.now(); c.pollDelay == 0 || now.Sub(c.backedOffAt) >= c.pollDelay {
			c.pollDelay = min(max(minBackoff, 2*c.pollDelay), maxBackoff)
			c.backedOffAt = now
		}
		return fmt.Sprintf("%s: retrying in %s", store.ErrorCode(err), c.pollDelay)
	case store.ECodeRateLimited:
		wait := minBackoff
		if e := store.AsError(err); e != nil && e.RetryAfter > 0 {
			wait = time.Duration(e.RetryAfter) * time.Second
		}
		c.pollDelay = wait
		return fmt.Sprintf("rate limited: retrying in %s", wait)
	}
	return ""
}

// retryNote says when polling tries again, in remote mode after a failure.
func (c *ctx) retryNote() string {
	if !c.remote || c.pollDelay == 0 {
		return ""
	}
	return fmt.Sprintf("  retrying in %s", c.pollDelay)
}
