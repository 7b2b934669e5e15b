package tui

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"
)

// maxOSC52 is the largest encoded copy sent: terminals drop longer ones
// silently, so the TUI says so instead.
const maxOSC52 = 74994

// copiedMsg reports a copy, echoed in the status line so that the user can
// tell when the terminal dropped it.
type copiedMsg struct {
	value string
	err   error
}

// copy puts value on the clipboard with OSC 52, written in one write to the
// terminal from a command. Inside GNU screen ($STY) it is wrapped for
// screen; tmux passes plain OSC 52 on with set-clipboard on.
func (c *ctx) copy(value string) tea.Cmd {
	if value == "" {
		return nil
	}
	seq := osc52.New(value)
	if os.Getenv("STY") != "" {
		seq = seq.Screen()
	}
	out := c.clip
	return func() tea.Msg {
		s := seq.String()
		if len(s) > maxOSC52 {
			return copiedMsg{value: value, err: errTooLong}
		}
		if out == nil {
			return copiedMsg{value: value, err: errNoClipboard}
		}
		_, err := io.WriteString(out, s)
		return copiedMsg{value: value, err: err}
	}
}

var (
	errTooLong     = errors.New("too long for the terminal's clipboard (OSC 52 limit)")
	errNoClipboard = errors.New("clipboard is off")
)

// copiedStatus is the status line after a copy.
func (c *ctx) copiedStatus(m copiedMsg) (string, bool) {
	if m.err != nil {
		return c.g.fail + " copy: " + m.err.Error(), false
	}
	v := m.value
	if len(v) == 29 {
		v = c.shortKey(v)
	} else if n := strings.Count(v, "\n"); n > 0 {
		v = fmt.Sprintf("%d lines", n+1)
	}
	return c.g.ok + " Copied " + truncate(v, 40), true
}
