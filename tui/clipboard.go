package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"
)

// maxOSC52 is the largest encoded copy sent: terminals drop longer ones
// silently, so the TUI says so instead.
const maxOSC52 = 74994

// copiedMsg reports a copy, echoed in the status line so that the user can
// tell when the terminal dropped it. echo is what the line says was
// copied: never a secret's plaintext (docs/tui.md §8.3).
type copiedMsg struct {
	echo string
	err  error
}

// Clipboard modes (tui.clipboard).
const (
	ClipAuto      = "auto"       // OSC 52, plus the desktop's tool when there is a local display
	ClipOSC52     = "osc52"      // OSC 52 only
	ClipOSC52Tmux = "osc52-tmux" // OSC 52 wrapped for tmux's allow-passthrough
	ClipNative    = "native"     // the desktop's clipboard tool only
	ClipOff       = "off"
)

// copy puts value on the clipboard, from a command. OSC 52 is written in
// one write to the terminal, so it reaches the user's own terminal over SSH
// and through tmux (set-clipboard on); inside GNU screen ($STY) it is
// wrapped for screen. The desktop's tool (wl-copy, xclip, xsel, pbcopy) is
// added only where it would reach the user: a local display, no SSH.
func (c *ctx) copy(value string) tea.Cmd {
	return c.copyAs(value, c.echo(value))
}

// copySecret copies a plaintext shown once; the status line names what
// was copied (noun) and its length, none of its characters.
func (c *ctx) copySecret(noun string) func(string) tea.Cmd {
	return func(value string) tea.Cmd {
		return c.copyAs(value, fmt.Sprintf("the %s (%d characters)", noun, len([]rune(value))))
	}
}

// copyAs copies value and reports echo as what was copied.
func (c *ctx) copyAs(value, echo string) tea.Cmd {
	if value == "" {
		return nil
	}
	mode, out := c.clipMode, c.clip
	native := mode == ClipNative || mode == ClipAuto && localDisplay()
	seq := osc52.New(value)
	switch {
	case mode == ClipOSC52Tmux:
		seq = seq.Tmux()
	case os.Getenv("STY") != "":
		seq = seq.Screen()
	}
	return func() tea.Msg {
		if mode == ClipOff {
			return copiedMsg{echo: echo, err: errNoClipboard}
		}
		var nativeErr error
		if native {
			nativeErr = copyNative(value)
		}
		if mode == ClipNative {
			return copiedMsg{echo: echo, err: nativeErr}
		}
		s := seq.String()
		switch {
		case len(s) > maxOSC52 && native && nativeErr == nil:
			return copiedMsg{echo: echo}
		case len(s) > maxOSC52:
			return copiedMsg{echo: echo, err: errTooLong}
		case out == nil:
			return copiedMsg{echo: echo, err: errNoClipboard}
		}
		_, err := io.WriteString(out, s)
		return copiedMsg{echo: echo, err: err}
	}
}

// localDisplay reports a desktop session on this machine: over SSH a
// native copy would land on the remote machine.
func localDisplay() bool {
	if os.Getenv("SSH_TTY") != "" || os.Getenv("SSH_CONNECTION") != "" {
		return false
	}
	return runtime.GOOS == "darwin" || os.Getenv("WAYLAND_DISPLAY") != "" || os.Getenv("DISPLAY") != ""
}

// copyNative pipes value into the first clipboard tool found.
func copyNative(value string) error {
	var tools [][]string
	switch {
	case runtime.GOOS == "darwin":
		tools = [][]string{{"pbcopy"}}
	case os.Getenv("WAYLAND_DISPLAY") != "":
		tools = [][]string{{"wl-copy"}}
	}
	tools = append(tools, []string{"xclip", "-selection", "clipboard"}, []string{"xsel", "--clipboard", "--input"})
	for _, t := range tools {
		path, err := exec.LookPath(t[0])
		if err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		cmd := exec.CommandContext(ctx, path, t[1:]...)
		cmd.Stdin = strings.NewReader(value)
		err = cmd.Run()
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %v", t[0], err)
		}
		return nil
	}
	return errNoTool
}

var (
	errTooLong     = errors.New("too long for the terminal's clipboard (OSC 52 limit)")
	errNoClipboard = errors.New("clipboard is off")
	errNoTool      = errors.New("no clipboard tool found (wl-copy, xclip, xsel, pbcopy)")
)

// copiedStatus is the status line after a copy.
func (c *ctx) copiedStatus(m copiedMsg) (string, bool) {
	if m.err != nil {
		return c.g.fail + " copy: " + m.err.Error(), false
	}
	return c.g.ok + " Copied " + m.echo, true
}

// echo is how the status line names a copied value: a license key
// shortened, a block by its line count, anything else up to 40 cells.
func (c *ctx) echo(v string) string {
	if len(v) == 29 {
		return c.shortKey(v)
	} else if n := strings.Count(v, "\n"); n > 0 {
		return fmt.Sprintf("%d lines", n+1)
	}
	return c.g.truncate(v, 40)
}
