package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// Minimum terminal size; below it the screen says so instead of drawing.
const (
	minWidth  = 60
	minHeight = 16
)

// overlay is a modal on top of the current screen: it gets every key.
type overlay interface {
	// key handles a key press and reports whether the overlay is done.
	key(c *ctx, k tea.KeyMsg) (done bool, cmd tea.Cmd)
	// view is the overlay's lines, drawn at the bottom of the body.
	view(c *ctx, w, h int) []string
}

// model is the root: the screen stack, the open overlay, the status line
// and the keys that work anywhere.
type model struct {
	c        *ctx
	stack    []screen
	over     overlay
	w, h     int
	status   string
	statusOK bool
	stopped  bool // the credential was rejected: reads stop
	// readErr is the screen whose failed read the status line reports (0
	// when it reports something else): an answer clears it (clearRead).
	readErr uint64
	// said is the change the status line reports, while it does: a later
	// read of its screen showing the record in another state makes that
	// report stale (stale).
	said    *said
	history []string // of the palette
}

// said is the screen a change's success was reported for and the state its
// record showed on the first read after it ("" until then).
type said struct {
	screen uint64
	state  string
}

// stateShower is a screen showing one record whose state a change's
// status line speaks of (the license detail): what names the record.
type stateShower interface {
	shownState() (what, state string, ok bool)
}

func newModel(c *ctx, first []screen) *model {
	return &model{c: c, stack: first}
}

func (m *model) top() screen { return m.stack[len(m.stack)-1] }

// Init starts the loads of every screen on the initial stack.
func (m *model) Init() tea.Cmd {
	var cmds []tea.Cmd
	for _, s := range m.stack {
		cmds = append(cmds, s.init(m.c))
	}
	return tea.Batch(cmds...)
}

// Update never blocks: store calls run in the commands it returns.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		return m, nil
	case tea.KeyMsg:
		return m, m.onKey(msg)
	case tea.MouseMsg:
		// The wheel scrolls as the arrow keys do; clicks are left to the
		// terminal's own selection when the mouse is off.
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			return m, m.onKey(tea.KeyMsg{Type: tea.KeyUp})
		case tea.MouseButtonWheelDown:
			return m, m.onKey(tea.KeyMsg{Type: tea.KeyDown})
		case tea.MouseButtonLeft:
			if msg.Action != tea.MouseActionPress || m.over != nil {
				return m, nil
			}
			// Clicks select tabs and rows; the header line is above the body.
			switch s := m.top().(type) {
			case *tabs:
				return m, s.click(m.c, msg.X, msg.Y-1)
			case *list:
				s.click(msg.Y - 1)
			}
		}
		return m, nil
	case tea.BlurMsg:
		m.c.blurred = true
		return m, nil
	case tea.FocusMsg:
		m.c.blurred = false
		return m, nil
	case loadedMsg:
		m.c.busy--
		if msg.kind == "bulk" {
			m.c.acting--
		}
		if msg.err != nil && fatalCode(msg.err) {
			return m, m.reject(msg.err)
		}
		backingOff := m.c.pollDelay > 0
		if wait := m.c.backoff(msg.err); wait != "" {
			m.setStatus(m.c.g.fail+" "+wait, false)
			m.readErr = msg.screen
		}
		if msg.err == nil {
			m.c.refreshedAt = m.c.now()
			m.clearRead(msg.screen, backingOff)
		}
		if msg.screen == jumpScreen {
			return m, m.landed(msg)
		}
		cmd := m.route(msg.screen, msg)
		if msg.err == nil {
			m.stale(msg)
		}
		return m, cmd
	case actionMsg:
		m.c.busy--
		m.c.acting--
		if msg.err != nil {
			m.setStatus(m.c.g.fail+" "+errText(msg.err), false)
			if fatalCode(msg.err) {
				return m, m.reject(msg.err)
			}
		} else if msg.done != "" {
			m.setStatus(m.c.g.ok+" "+msg.done, true)
			m.said = &said{screen: msg.screen}
		}
		return m, m.route(msg.screen, msg)
	case copiedMsg:
		m.setStatus(m.c.copiedStatus(msg))
		return m, nil
	case statusMsg:
		m.setStatus(msg.text, !msg.err)
		m.readErr = msg.read
		return m, nil
	case pushMsg:
		m.stack = append(m.stack, msg.s)
		return m, msg.s.init(m.c)
	case replaceMsg:
		for _, s := range m.stack {
			closeScreen(s)
		}
		m.stack = msg.stack
		var cmds []tea.Cmd
		for _, s := range m.stack {
			cmds = append(cmds, s.init(m.c))
		}
		return m, tea.Batch(cmds...)
	case overlayMsg:
		m.over = msg.o
		return m, nil
	case addressed:
		return m, m.route(msg.screenID(), msg)
	case tickMsg:
		if m.stopped || m.over != nil || m.c.blurred {
			// Polling pauses under a modal and while the terminal is in the
			// background; the screen asks again later.
			return m, m.route(msg.screen, tickMsg{screen: msg.screen, skip: true})
		}
		return m, m.route(msg.screen, msg)
	}
	return m, nil
}

// addressed is a message for one screen (an editor that exited).
type addressed interface{ screenID() uint64 }

// route hands msg to the screen it is addressed to, wherever it is in the
// stack; answers for screens that are gone are dropped.
func (m *model) route(sid uint64, msg tea.Msg) tea.Cmd {
	for _, s := range m.stack {
		if s.base().sid == sid {
			return s.update(m.c, msg)
		}
		if t, ok := s.(*tabs); ok {
			if in := t.owns(sid); in != nil {
				return in.update(m.c, msg)
			}
		}
	}
	return nil
}

// closeScreen cancels what a screen leaving the stack started.
func closeScreen(s screen) {
	if t, ok := s.(*tabs); ok {
		for _, in := range t.tabs {
			closeScreen(in)
		}
	}
	s.base().close()
}

// appDashboard is the position of the app dashboard in the stack, -1 when
// none is open.
func (m *model) appDashboard() int {
	for i, s := range m.stack {
		if t, ok := s.(*tabs); ok && t.app {
			return i
		}
	}
	return -1
}

// popTo closes the screens above position i of the stack.
func (m *model) popTo(i int) {
	for _, gone := range m.stack[i+1:] {
		closeScreen(gone)
	}
	m.stack = m.stack[:i+1]
}

func (m *model) setStatus(text string, ok bool) {
	m.status, m.statusOK, m.readErr, m.said = text, ok, 0, nil
}

// find is the screen with id sid, wherever it is in the stack, or nil.
func (m *model) find(sid uint64) screen {
	for _, s := range m.stack {
		if s.base().sid == sid {
			return s
		}
		if t, ok := s.(*tabs); ok {
			if in := t.owns(sid); in != nil {
				return in
			}
		}
	}
	return nil
}

// stale replaces a change's "✓ Reinstated …" once a read of its screen (a
// poll, a reload) shows the record in another state than the first read
// after the change did: someone changed it elsewhere, and the line must not
// go on saying what no longer holds. Only answers the screen took count
// (its current generation), not superseded ones.
func (m *model) stale(msg loadedMsg) {
	if m.said == nil || msg.screen != m.said.screen {
		return
	}
	s := m.find(msg.screen)
	if s == nil || s.base().gen != msg.gen {
		return
	}
	sh, ok := s.(stateShower)
	if !ok {
		return
	}
	what, state, ok := sh.shownState()
	switch {
	case !ok:
	case m.said.state == "":
		m.said.state = state
	case state != m.said.state:
		m.setStatus(fmt.Sprintf("%s %s is %s now (changed elsewhere)", m.c.g.refresh, what, state), true)
	}
}

// clearRead empties a status line that reports a failed read once screen
// answered: the failure was that screen's, or the server answers again
// after a back-off (every screen failed with it). An error must not stay
// on screen while polls succeed.
func (m *model) clearRead(screen uint64, backedOff bool) {
	if m.readErr != 0 && (m.readErr == screen || backedOff) {
		m.setStatus("", true)
	}
}

// reject stops reading after the server refused the credential.
func (m *model) reject(err error) tea.Cmd {
	if m.stopped {
		return nil
	}
	m.stopped = true
	m.over = &notice{lines: []string{
		fmt.Sprintf("The server rejected the credential (%s).", store.ErrorCode(err)),
		"Quit and start again with a valid --api-key.",
		"q quit",
	}}
	return nil
}

// onKey applies the precedence of keys: overlay, focused input, the
// screen, then the global keys. A batch of runes that arrived as one event
// is split first, so "jj" moves twice.
func (m *model) onKey(k tea.KeyMsg) tea.Cmd {
	if k.Type == tea.KeyCtrlC {
		return m.quit()
	}
	if m.over != nil {
		if _, ok := m.over.(inputOverlay); !ok && splittable(k) {
			return m.split(k)
		}
		done, cmd := m.over.key(m.c, k)
		if done {
			m.over = nil
		}
		if m.stopped && k.String() == "q" {
			return tea.Quit
		}
		return cmd
	}
	s := m.top()
	if s.capturing() {
		_, cmd := s.key(m.c, k)
		return cmd
	}
	if k.Paste {
		if key := store.NormalizeLicenseKey(string(k.Runes)); key != "" && m.c.appID != "" {
			return m.openLicense(key)
		}
		return nil
	}
	if splittable(k) {
		return m.split(k)
	}
	if ok, cmd := s.key(m.c, k); ok {
		return cmd
	}
	return m.global(k)
}

// splittable is a batch of runes typed faster than the terminal reads them
// (bubbletea v1 delivers "jj" as one KeyMsg).
func splittable(k tea.KeyMsg) bool {
	return k.Type == tea.KeyRunes && !k.Paste && len(k.Runes) > 1
}

func (m *model) split(k tea.KeyMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, r := range k.Runes {
		cmds = append(cmds, m.onKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt}))
	}
	return tea.Batch(cmds...)
}

// global handles the keys that work anywhere.
func (m *model) global(k tea.KeyMsg) tea.Cmd {
	c, ks := m.c, k.String()
	switch {
	case c.matches(ks, keyBack):
		if ok, cmd := m.top().escape(c); ok {
			return cmd
		}
		if len(m.stack) > 1 {
			closeScreen(m.top())
			m.stack = m.stack[:len(m.stack)-1]
			// What the popped screen changed shows at once, the cursor
			// kept on the same row.
			return m.top().reload(c)
		}
		return nil
	case c.matches(ks, keyQuit):
		return m.askQuit()
	case c.matches(ks, keyHelp):
		m.over = newHelp(m.top().keys(c))
		return nil
	case c.matches(ks, keyPalette):
		m.over = newPalette(c, m)
		return nil
	case c.matches(ks, keyRefresh):
		return m.top().reload(c)
	case c.matches(ks, keyTabN), c.matches(ks, keyNextTab), c.matches(ks, keyPrevTab):
		return m.tabFromDetail(k)
	case c.matches(ks, keyTimes):
		c.absTimes = !c.absTimes
		return nil
	case c.matches(ks, keyEnv):
		if c.appID == "" {
			return nil
		}
		if c.env == store.EnvProduction {
			c.env = store.EnvDevelopment
		} else {
			c.env = store.EnvProduction
		}
		// Screens of the other environment's records make no sense now:
		// keep the stack up to the app dashboard, reloaded.
		if i := m.appDashboard(); i >= 0 {
			m.popTo(i)
		}
		m.setStatus("Environment: "+strings.ToUpper(c.env), true)
		return m.top().reload(c)
	}
	return nil
}

// tabFromDetail switches tab from a screen above a tabbed one (a detail):
// the tab keys work anywhere (docs/tui.md §7.1), so the stack pops to the
// nearest dashboard below and the key switches its tab there. A tab shown
// before is reloaded, as esc reloads the screen it returns to.
func (m *model) tabFromDetail(k tea.KeyMsg) tea.Cmd {
	for i := len(m.stack) - 2; i >= 0; i-- {
		t, ok := m.stack[i].(*tabs)
		if !ok {
			continue
		}
		m.popTo(i)
		if _, cmd := t.key(m.c, k); cmd != nil {
			return cmd
		}
		return t.cur().reload(m.c)
	}
	return nil
}

// askQuit quits, after asking when a change is still running: quitting
// would cancel it half done (a bulk change) or leave its outcome unseen.
func (m *model) askQuit() tea.Cmd {
	if m.c.acting > 0 {
		d := newConfirm(m.c, "An action is still running. Quit anyway? y/N", nil, "", m.quit)
		d.quiet = true
		m.over = d
		return nil
	}
	return m.quit()
}

// quit leaves at once (ctrl+c, and q when nothing is running).
func (m *model) quit() tea.Cmd {
	for _, s := range m.stack {
		closeScreen(s)
	}
	return tea.Quit
}
