package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"
)

// screen is one page of the navigation stack. Screens are pointers changed
// in place on the Update goroutine; they do I/O only through ctx.load and
// ctx.act.
type screen interface {
	base() *screenBase
	// init starts the screen's first loads.
	init(c *ctx) tea.Cmd
	// update takes results and ticks addressed to this screen.
	update(c *ctx, msg tea.Msg) tea.Cmd
	// key handles a key press; it reports whether the key was its own.
	key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd)
	view(c *ctx, w, h int) string
	// title is the breadcrumb segment.
	title() string
	// keys are the screen's own bindings, for the footer and help.
	keys(c *ctx) []*binding
	// capturing is true while a text input of the screen has focus.
	capturing() bool
	// escape undoes one layer inside the screen (a filter, marks) and
	// reports whether there was one.
	escape(c *ctx) (bool, tea.Cmd)
	// reload loads again what the screen shows (ctrl+r, environment switch).
	reload(c *ctx) tea.Cmd
}

// screenBase holds what every screen has: its id for addressing results, a
// context cancelled when it leaves the stack, and a generation counter.
type screenBase struct {
	sid    uint64
	gen    uint64
	ctx    context.Context
	cancel context.CancelFunc
	// reqCancel cancels the newest request, so that paging quickly costs
	// one round trip and not one per key.
	reqCancel context.CancelFunc
}

func (b *screenBase) base() *screenBase { return b }

func newBase(c *ctx) screenBase {
	c.nextID++
	cx, cancel := context.WithCancel(context.Background())
	return screenBase{sid: c.nextID, ctx: cx, cancel: cancel}
}

// next starts a new generation: answers to older requests become stale and
// the previous request is cancelled.
func (b *screenBase) next() (context.Context, uint64) {
	if b.reqCancel != nil {
		b.reqCancel()
	}
	b.gen++
	cx, cancel := context.WithCancel(b.ctx)
	b.reqCancel = cancel
	return cx, b.gen
}

// close cancels everything the screen started.
func (b *screenBase) close() {
	if b.cancel != nil {
		b.cancel()
	}
}

// pushMsg opens a screen on top of the stack.
type pushMsg struct{ s screen }

// replaceMsg replaces the whole stack (palette jumps).
type replaceMsg struct{ stack []screen }

// overlayMsg opens an overlay.
type overlayMsg struct{ o overlay }

// statusMsg sets the status line.
type statusMsg struct {
	text string
	err  bool
	// read is the screen whose read failed, when that is what text says:
	// the screen's next answer clears it.
	read uint64
}

func push(s screen) tea.Cmd { return func() tea.Msg { return pushMsg{s} } }

func openOverlay(o overlay) tea.Cmd { return func() tea.Msg { return overlayMsg{o} } }

func status(text string, isErr bool) tea.Cmd {
	return func() tea.Msg { return statusMsg{text: text, err: isErr} }
}

// readFailed reports in the status line that a read of screen sid failed;
// it stays until that screen reads successfully (or the server answers
// again after a back-off), not for the rest of the session. While polling
// backs off, the root's status already says how long it waits.
func readFailed(c *ctx, sid uint64, err error) tea.Cmd {
	if c.retryNote() != "" {
		return nil
	}
	text := c.g.fail + " " + errText(err)
	return func() tea.Msg { return statusMsg{text: text, err: true, read: sid} }
}

// loadFailed is the body of every screen whose first load failed, so that
// nothing is shown yet (docs/tui.md §12): the error, when polling tries
// again, and the keys that retry at once or quit.
func (c *ctx) loadFailed(err error) string {
	return c.g.fail + " " + errText(err) + c.retryNote() + " " + c.g.dot + " r retry now " + c.g.dot + " q quit"
}

// retriesNow reports whether k is the r that loadFailed offers, on a screen
// whose first load failed.
func retriesNow(k tea.KeyMsg, failed bool) bool { return failed && k.String() == "r" }
