package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// tabs is a screen made of tabs (org home, app dashboard): number keys and
// tab/shift+tab switch, everything else goes to the active tab. Tabs load
// when first shown.
type tabs struct {
	screenBase
	name    string
	tabs    []screen
	active  int
	started []bool
	app     bool // the app dashboard: the environment belongs in the breadcrumb
	org     bool
	spans   []int // where each tab's label starts in the bar last drawn, for clicks
}

func newTabs(c *ctx, name string, ts ...screen) *tabs {
	return &tabs{screenBase: newBase(c), name: name, tabs: ts, started: make([]bool, len(ts))}
}

func (t *tabs) title() string { return t.name }

func (t *tabs) cur() screen { return t.tabs[t.active] }

// number is the number key of the tab titled title ("" when there is none):
// 1 to 9, then 0 for the tenth, as the bar shows them.
func (t *tabs) number(title string) string {
	for i, s := range t.tabs {
		if s.title() == title && i < 10 {
			return fmt.Sprint((i + 1) % 10)
		}
	}
	return ""
}

func (t *tabs) init(c *ctx) tea.Cmd { return t.show(c, t.active) }

func (t *tabs) show(c *ctx, i int) tea.Cmd {
	t.active = i
	if t.started[i] {
		return nil
	}
	t.started[i] = true
	return t.tabs[i].init(c)
}

// tab switches to the tab titled name (palette jumps).
func (t *tabs) tab(c *ctx, name string) tea.Cmd {
	for i, s := range t.tabs {
		if strings.EqualFold(s.title(), name) {
			return t.show(c, i)
		}
	}
	return nil
}

// update routes results to the tab screens, which have ids of their own;
// the root finds only the tabs screen in the stack.
func (t *tabs) update(c *ctx, msg tea.Msg) tea.Cmd { return nil }

// owns reports the tab that has the id sid.
func (t *tabs) owns(sid uint64) screen {
	for _, s := range t.tabs {
		if s.base().sid == sid {
			return s
		}
	}
	return nil
}

func (t *tabs) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	if t.cur().capturing() {
		return t.cur().key(c, k)
	}
	ks := k.String()
	switch {
	case c.matches(ks, keyTabN):
		n := int(ks[0] - '1')
		if ks == "0" {
			n = 9
		}
		if n < len(t.tabs) {
			return true, t.show(c, n)
		}
		return true, nil
	case c.matches(ks, keyNextTab):
		return true, t.show(c, (t.active+1)%len(t.tabs))
	case c.matches(ks, keyPrevTab):
		return true, t.show(c, (t.active+len(t.tabs)-1)%len(t.tabs))
	}
	return t.cur().key(c, k)
}

func (t *tabs) view(c *ctx, w, h int) string {
	bar, spans := t.bar(false)
	if width(bar) > w {
		bar, spans = t.bar(true)
	}
	t.spans = spans
	if width(bar) > w {
		// Narrow: only the active tab and its neighbours' numbers; no
		// label to click.
		t.spans = nil
		bar = fmt.Sprintf("[%d %s]  (%d tabs: 1%s0, tab)", (t.active+1)%10, t.cur().title(), len(t.tabs), c.g.ellipsis)
	}
	return c.g.truncate(bar, w) + "\n" + t.cur().view(c, w, h-1)
}

// bar is the tab bar and the column where each tab's label starts; short
// uses the palette's short names of long titles so that all ten app tabs
// fit in 100 columns.
func (t *tabs) bar(short bool) (string, []int) {
	parts := make([]string, 0, len(t.tabs))
	starts := make([]int, 0, len(t.tabs))
	x := 0
	for i, s := range t.tabs {
		title := s.title()
		if short && shortTitles[title] != "" {
			title = shortTitles[title]
		}
		label := fmt.Sprintf("%d %s", (i+1)%10, title)
		if i == t.active {
			label = "[" + label + "]"
		}
		parts = append(parts, label)
		starts = append(starts, x)
		x += width(label) + 1
	}
	return strings.Join(parts, " "), starts
}

var shortTitles = map[string]string{"Entitlements": "Ents"}

func (t *tabs) keys(c *ctx) []*binding { return t.cur().keys(c) }

func (t *tabs) capturing() bool { return t.cur().capturing() }

func (t *tabs) escape(c *ctx) (bool, tea.Cmd) { return t.cur().escape(c) }

func (t *tabs) reload(c *ctx) tea.Cmd {
	for i := range t.started {
		t.started[i] = i == t.active
	}
	return t.cur().reload(c)
}

// click handles a click at x, y of the tabs' view: the bar switches tabs,
// a list row is selected.
func (t *tabs) click(c *ctx, x, y int) tea.Cmd {
	if y == 0 {
		for i := len(t.spans) - 1; i >= 0; i-- {
			if x >= t.spans[i] {
				return t.show(c, i)
			}
		}
		return nil
	}
	if l, ok := t.cur().(*list); ok {
		l.click(y - 1)
	}
	return nil
}
