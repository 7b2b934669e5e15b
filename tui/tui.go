// Package tui is licensectl's terminal UI: an interactive console over the
// same admin interface the CLI uses, local (the data file) or remote (the
// HTTP API). It knows only package store; cmd/licensectl wires it.
package tui

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"licensectl/store"
	"licensectl/tui/terminit"
)

// bubbletea's init has run (this package imports it): TERM can be what the
// user set again.
func init() { terminit.Restore() }

// Options configure a TUI session.
type Options struct {
	Data       Data
	Remote     bool
	Where      string // data file or server URL
	Credential string // the last characters of the API key, shown in the header
	OrgID      string // "" to start on the organizations (or the key's own)
	AppID      string // set to start on the app dashboard
	Env        string
	ReadOnly   bool
	Color      bool
	ASCII      bool
	Refresh    time.Duration // remote polling of the Overview
	Now        func() time.Time
	Input      io.Reader
	Output     io.Writer
	// Clipboard receives OSC 52 copies; nil turns copying off.
	Clipboard io.Writer
	// ClipboardMode is tui.clipboard: auto, osc52, osc52-tmux, native or
	// off ("" is auto).
	ClipboardMode string
	// Mouse turns mouse reporting on (the wheel scrolls); :mouse toggles it.
	Mouse bool
}

// Run shows the TUI until the user quits. Errors that prevent starting
// (an unknown app or organization) are returned before the screen is taken.
func Run(parent context.Context, o Options) error {
	restore := redirectLogs()
	defer restore()
	if !o.Color {
		lipgloss.SetColorProfile(termenv.Ascii)
	}
	m, err := build(parent, o)
	if err != nil {
		return err
	}
	opts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(parent), tea.WithReportFocus()}
	if o.Mouse {
		opts = append(opts, tea.WithMouseCellMotion())
	}
	if o.Input != nil {
		opts = append(opts, tea.WithInput(o.Input))
	}
	if o.Output != nil {
		opts = append(opts, tea.WithOutput(o.Output))
	}
	_, err = tea.NewProgram(m, opts...).Run()
	if err == tea.ErrProgramKilled && parent.Err() != nil {
		return nil
	}
	return err
}

// newCtx makes the shared state of a session.
func newCtx(o Options) *ctx {
	c := &ctx{data: o.Data, sessions: map[string]int{}, pings: map[string]string{}, orgID: o.OrgID, appID: o.AppID, env: o.Env, remote: o.Remote, readOnly: o.ReadOnly,
		where: o.Where, cred: o.Credential, now: o.Now, refresh: o.Refresh, clip: o.Clipboard, clipMode: o.ClipboardMode,
		mouse: o.Mouse, g: unicodeGlyphs, st: newStyles(o.Color), timeout: 5 * time.Second}
	if c.clipMode == "" {
		c.clipMode = ClipAuto
	}
	if o.ASCII || !utf8Locale() {
		c.g = asciiGlyphs
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.env == "" {
		c.env = store.EnvProduction
	}
	if c.refresh <= 0 {
		c.refresh = 5 * time.Second
	}
	if o.Remote {
		c.timeout = 15 * time.Second
	}
	return c
}

// build resolves where the session starts: the app dashboard with an app,
// the org home with one organization, else the organizations.
func build(parent context.Context, o Options) (*model, error) {
	c := newCtx(o)
	cx, cancel := context.WithTimeout(parent, c.timeout)
	defer cancel()
	if c.orgID == "" && o.Remote {
		// An API key acts in its own organization; the operator token has
		// none and starts on the list.
		if org, err := c.data.FindOrganization(cx, ""); err == nil {
			c.orgID = org.ID
		}
	}
	if c.orgID == "" {
		return newModel(c, []screen{newList(c, orgsSpec)}), nil
	}
	org, err := c.data.FindOrganization(cx, c.orgID)
	if err != nil {
		return nil, err
	}
	c.orgID, c.orgName = org.ID, org.Slug
	stack := []screen{newOrgHome(c)}
	if c.appID != "" {
		app, err := c.data.FindApplication(cx, store.AppRef{OrgID: c.orgID, AppID: c.appID})
		if err != nil {
			return nil, err
		}
		stack = append(stack, newAppDashboard(c, app))
	}
	return newModel(c, stack), nil
}

// utf8Locale reports whether the locale can draw ▶ ✓ ✗.
func utf8Locale() bool {
	for _, v := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if s := os.Getenv(v); s != "" {
			s = strings.ToLower(s)
			return strings.Contains(s, "utf-8") || strings.Contains(s, "utf8")
		}
	}
	return false
}

// redirectLogs keeps log lines off the screen: they go to
// LICENSECTL_TUI_LOG when set, else nowhere.
func redirectLogs() func() {
	prev := slog.Default()
	var w io.Writer = io.Discard
	var f *os.File
	if path := os.Getenv("LICENSECTL_TUI_LOG"); path != "" {
		if lf, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			f, w = lf, lf
		}
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(w, nil)))
	return func() {
		slog.SetDefault(prev)
		if f != nil {
			_ = f.Close()
		}
	}
}
