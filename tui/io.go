package tui

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// ctx is what every screen shares. It is touched only on the Update
// goroutine; store calls happen in tea.Cmds built by load and act.
type ctx struct {
	data     Data
	orgID    string
	orgName  string
	appID    string
	appName  string
	env      string
	remote   bool
	readOnly bool
	where    string
	cred     string
	now      func() time.Time
	timeout  time.Duration
	refresh  time.Duration
	g        glyphs
	st       styles
	absTimes bool
	clip     io.Writer // where OSC 52 goes; nil when the clipboard is off
	clipMode string    // tui.clipboard
	mouse    bool      // mouse reporting is on
	blurred  bool      // the terminal reported lost focus: polling pauses

	// sessions are the live session counts of the licenses and devices
	// whose detail was loaded, by id, for the consequences in dialogs.
	sessions map[string]int
	// pings are the outcomes of this session's test pings, by webhook id,
	// shown on the webhook's row (docs/tui.md §5.8).
	pings map[string]string
	// maxDevices are the device limits of the application's plans, by plan
	// id, as read with the last page of licenses (withDeviceLimits).
	maxDevices map[string]int

	// execProcess runs a program on the terminal (tea.ExecProcess when
	// nil); tests run it directly.
	execProcess func(*exec.Cmd, tea.ExecCallback) tea.Cmd

	noTicks bool // no polling (tests drive Update by hand)
	busy    int  // store calls in flight
	acting  int  // changes in flight (actions, bulk steps): q asks first
	// pollDelay stretches background polling after the server said
	// unavailable (doubling, 2 s to 30 s) or rate_limited (its Retry-After);
	// zero once an answer arrives.
	pollDelay   time.Duration
	backedOffAt time.Time // when pollDelay last grew
	nextID      uint64    // screen ids
	refreshedAt time.Time // the last answer that loaded something, shown after "ready"
}

// liveSessions names the sessions a change ends, with their count when the
// detail of id was loaded.
func (c *ctx) liveSessions(id string) string {
	if n, ok := c.sessions[id]; ok {
		return fmt.Sprintf("Its live sessions (%d)", n)
	}
	return "Its live sessions"
}

// scope is the environment the app screens act in.
func (c *ctx) scope() store.Scope { return store.Scope{OrgID: c.orgID, AppID: c.appID, Env: c.env} }

// app is the application the app screens act in.
func (c *ctx) app() store.AppRef { return store.AppRef{OrgID: c.orgID, AppID: c.appID} }

// loadedMsg carries the result of a store call back to the screen that
// asked. gen lets the screen drop answers to requests it has superseded.
type loadedMsg struct {
	screen uint64
	gen    uint64
	kind   string
	val    any
	err    error
}

// actionMsg is the result of a change: the status line shows done or err,
// and the screen reloads what it shows.
type actionMsg struct {
	screen uint64
	done   string
	val    any
	err    error
	// onResult, when set, is what a successful answer leads to in place of
	// the screen's reload: the request's starter says what its answer
	// shows (a secret once, the generated keys, a ping's outcome, the
	// editor), so the screen need not know every kind of answer.
	onResult func(val any) tea.Cmd
}

// load is the only way screens read: the busy count goes up before the
// command exists, so there is never a moment where work is pending but the
// status line says ready.
func (c *ctx) load(parent context.Context, screen, gen uint64, kind string, fn func(context.Context) (any, error)) tea.Cmd {
	c.busy++
	timeout := c.timeout
	return func() tea.Msg {
		cctx, cancel := context.WithTimeout(parent, timeout)
		defer cancel()
		v, err := fn(cctx)
		return loadedMsg{screen: screen, gen: gen, kind: kind, val: v, err: err}
	}
}

// act runs one change the same way; done is the status text on success.
func (c *ctx) act(parent context.Context, screen uint64, done string, fn func(context.Context) (any, error)) tea.Cmd {
	return c.actThen(parent, screen, done, fn, nil)
}

// actThen is act with what a successful answer leads to (actionMsg.onResult).
func (c *ctx) actThen(parent context.Context, screen uint64, done string, fn func(context.Context) (any, error), onResult func(any) tea.Cmd) tea.Cmd {
	c.busy++
	c.acting++
	timeout := c.timeout
	return func() tea.Msg {
		cctx, cancel := context.WithTimeout(parent, timeout)
		defer cancel()
		v, err := fn(cctx)
		return actionMsg{screen: screen, done: done, val: v, err: err, onResult: onResult}
	}
}

// errText is how an error reads on screen: the code, the caller-safe
// message, and a hint for codes that have one.
func errText(err error) string {
	code := store.ErrorCode(err)
	msg := code + ": " + store.ErrorMessage(err)
	if e := store.AsError(err); e != nil && e.Field != "" && code == store.ECodeValidation {
		msg += " (" + e.Field + ")"
	}
	if h, ok := errHints[code]; ok {
		msg += " — " + h
	}
	return msg
}

var errHints = map[string]string{
	store.ECodePlanInUse:       "revoke, ban or let expire its licenses first",
	store.ECodeLastOwner:       "an organization keeps at least one owner",
	store.ECodePlanLimit:       "tier limit; see :usage",
	store.ECodeEmailUnverified: "the owner's e-mail is not verified yet",
	store.ECodeForbidden:       "this credential's role cannot do that",
}

// fatalCode reports errors that mean the credential no longer works: reads stop.
func fatalCode(err error) bool {
	c := store.ErrorCode(err)
	return c == store.ECodeUnauthenticated || c == store.ECodeInvalidToken
}
