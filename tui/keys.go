package tui

import (
	"slices"
	"strings"
)

// binding is one row of the key table: the keys that trigger it, how the
// footer and help name it, and whether it changes data (such bindings do not
// exist in a read-only session: they match nothing and are never listed).
type binding struct {
	keys    []string
	label   string // the key as shown
	help    string
	group   string
	mutates bool
	final   bool // irreversible: marked in help
}

// Key groups, in the order help lists them.
const (
	groupScreen   = "this screen"
	groupList     = "lists"
	groupAnywhere = "anywhere"
)

func bind(group, label, help string, keys ...string) *binding {
	return &binding{keys: keys, label: label, help: help, group: group}
}

// shown is the key as the glyph set writes it: "1…0" is "1...0" with
// --ascii (docs/tui.md §6).
func (b *binding) shown(g glyphs) string {
	return strings.ReplaceAll(b.label, unicodeGlyphs.ellipsis, g.ellipsis)
}

func mutating(b *binding) *binding { b.mutates = true; return b }

func irreversible(b *binding) *binding { b.mutates, b.final = true, true; return b }

// The key table: every key the TUI answers, once. Help and footers are
// generated from it.
var (
	keyHelp    = bind(groupAnywhere, "?", "help", "?")
	keyPalette = bind(groupAnywhere, ":", "jump", ":")
	keyFilter  = bind(groupAnywhere, "/", "filter", "/")
	keyBack    = bind(groupAnywhere, "esc", "back", "esc")
	keyQuit    = bind(groupAnywhere, "q", "quit", "q")
	keyCancel  = bind(groupAnywhere, "ctrl+c", "quit now", "ctrl+c")
	keyRefresh = bind(groupAnywhere, "ctrl+r", "refresh", "ctrl+r")
	keyEnv     = bind(groupAnywhere, "E", "switch environment", "E")
	keyCopy    = bind(groupAnywhere, "y", "copy", "y")
	keyCopyID  = bind(groupAnywhere, "Y", "copy id", "Y")
	keyShow    = bind(groupAnywhere, "v", "show the value alone, to select with the mouse", "v")
	keyTimes   = bind(groupAnywhere, "T", "relative/absolute times", "T")
	keyNextTab = bind(groupAnywhere, "tab", "next tab", "tab")
	keyPrevTab = bind(groupAnywhere, "shift+tab", "previous tab", "shift+tab")
	keyTabN    = bind(groupAnywhere, "1…0", "tab by number", "1", "2", "3", "4", "5", "6", "7", "8", "9", "0")

	keyDown     = bind(groupList, "j/↓", "down", "j", "down")
	keyUp       = bind(groupList, "k/↑", "up", "k", "up")
	keyHalfDown = bind(groupList, "ctrl+d", "half window down", "ctrl+d")
	keyHalfUp   = bind(groupList, "ctrl+u", "half window up", "ctrl+u")
	keyPageDown = bind(groupList, "pgdn", "one window down", "pgdown")
	keyPageUp   = bind(groupList, "pgup", "one window up", "pgup")
	keyTop      = bind(groupList, "g", "first row", "g", "home")
	keyBottom   = bind(groupList, "G", "last row of the whole list", "G", "end")
	keyNextPage = bind(groupList, "]", "next page", "]")
	keyPrevPage = bind(groupList, "[", "previous page", "[")
	keyLastPage = bind(groupList, "}", "last page", "}")
	keyFirstPg  = bind(groupList, "{", "first page", "{")
	keyOpen     = bind(groupList, "enter", "open", "enter")
	keyMark     = bind(groupList, "space", "mark", " ", "space")
	keyMarkAll  = bind(groupList, "ctrl+a", "mark all loaded", "ctrl+a")
	keyNewItem  = mutating(bind(groupScreen, "n", "new", "n"))
)

// matches reports whether the key k triggers b in this session.
func (c *ctx) matches(k string, b *binding) bool {
	if b.mutates && c.readOnly {
		return false
	}
	return slices.Contains(b.keys, k)
}

// visible drops the bindings a read-only session does not have.
func (c *ctx) visible(bs []*binding) []*binding {
	out := make([]*binding, 0, len(bs))
	for _, b := range bs {
		if b.mutates && c.readOnly {
			continue
		}
		out = append(out, b)
	}
	return out
}

// footer is the short help: the screen's keys, then the global ones, cut to
// width with "? more" when they do not fit.
func footer(g glyphs, bs []*binding, width int) string {
	var parts []string
	for _, b := range bs {
		parts = append(parts, b.shown(g)+" "+b.help)
	}
	parts = append(parts, "/ filter", ": jump", "? help", "q quit")
	line := ""
	for i, p := range parts {
		next := line
		if next != "" {
			next += "  "
		}
		next += p
		if len([]rune(next)) > width-8 && i < len(parts)-1 {
			return line + "  ? more"
		}
		line = next
	}
	return line
}

// globalKeys are listed by help under "anywhere" and "lists".
var globalKeys = []*binding{
	keyHelp, keyPalette, keyFilter, keyBack, keyQuit, keyCancel, keyRefresh, keyEnv,
	keyCopy, keyCopyID, keyShow, keyTimes, keyNextTab, keyPrevTab, keyTabN,
	keyDown, keyUp, keyHalfDown, keyHalfUp, keyPageDown, keyPageUp, keyTop, keyBottom, keyNextPage, keyPrevPage,
	keyLastPage, keyFirstPg, keyOpen, keyMark, keyMarkAll,
}

// helpRow is one line of help before layout: a group's name (key empty)
// or a key and what it does.
type helpRow struct{ key, text string }

// helpKeyW is the width of help's key column.
const helpKeyW = 10

// helpRows is the key table for help: the screen's keys first, then the
// global groups, filtered by q.
func helpRows(g glyphs, screenKeys []*binding, q string) []helpRow {
	q = strings.ToLower(q)
	var out []helpRow
	groups := []struct {
		name string
		bs   []*binding
	}{{groupScreen, screenKeys}}
	for _, g := range []string{groupList, groupAnywhere} {
		var bs []*binding
		for _, b := range globalKeys {
			if b.group == g {
				bs = append(bs, b)
			}
		}
		groups = append(groups, struct {
			name string
			bs   []*binding
		}{g, bs})
	}
	for _, grp := range groups {
		var rows []helpRow
		for _, b := range grp.bs {
			text := b.help
			if b.final {
				text += "  (irreversible)"
			}
			if q != "" && !strings.Contains(strings.ToLower(g.padRight(b.shown(g), helpKeyW)+text), q) {
				continue
			}
			rows = append(rows, helpRow{key: b.shown(g), text: text})
		}
		if len(rows) > 0 {
			out = append(out, helpRow{text: grp.name})
			out = append(out, rows...)
		}
	}
	return out
}

// lines lays a help row out in w cells: the text wraps at spaces under
// itself, so that no word is cut in two.
func (r helpRow) lines(g glyphs, w int) []string {
	if r.key == "" {
		return []string{g.truncate(r.text, w)}
	}
	indent := strings.Repeat(" ", 2+helpKeyW)
	wrapped := wrapWords(r.text, w-width(indent))
	if len(wrapped) == 0 {
		wrapped = []string{""}
	}
	out := []string{"  " + g.padRight(r.key, helpKeyW) + wrapped[0]}
	for _, l := range wrapped[1:] {
		out = append(out, indent+l)
	}
	return out
}
