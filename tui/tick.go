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

// every schedules one tick for screen after d.
func every(d time.Duration, screen uint64) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return tickMsg{screen: screen} })
}
