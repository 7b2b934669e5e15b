package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
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
	return tea.Tick(d, func(time.Time) tea.Msg { return tickMsg{screen: screen} })
}
