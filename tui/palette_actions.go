package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// selectionAction is a palette entry for a key of the current screen:
// "suspend license 7KQ2M-…-C5VYE". Choosing it presses the key, so it opens
// the very confirmation the key opens.
type selectionAction struct {
	name    string // what is typed: the key's help, e.g. "suspend"
	label   string // what the palette shows
	key     string
	mutates bool
}

// selected is the item the current screen acts on, named for messages.
type selected interface {
	selection(c *ctx) (noun, name string, ok bool)
}

func (l *list) selection(c *ctx) (string, string, bool) {
	it := l.current()
	if it == nil {
		return "", "", false
	}
	return l.spec.noun, c.label(l.spec.primary(it)), true
}

func (l *license) selection(c *ctx) (string, string, bool) {
	if l.v == nil {
		return "", "", false
	}
	return "license", c.label(l.v.d.Key), true
}

// focused is the screen whose keys apply: the active tab of a tabs screen.
func focused(s screen) screen {
	for {
		t, ok := s.(*tabs)
		if !ok {
			return s
		}
		s = t.cur()
	}
}

// selectionActions are the current screen's own keys, applied to what is
// selected; a read-only session lists none that change anything.
func (m *model) selectionActions() []selectionAction {
	var out []selectionAction
	for _, a := range m.screenActions() {
		if !a.mutates || !m.c.readOnly {
			out = append(out, a)
		}
	}
	return out
}

// screenActions are selectionActions, read-only or not.
func (m *model) screenActions() []selectionAction {
	top := m.top()
	sel, ok := focused(top).(selected)
	if !ok {
		return nil
	}
	noun, name, ok := sel.selection(m.c)
	if !ok {
		return nil
	}
	var out []selectionAction
	for _, b := range top.keys(m.c) {
		if b.group != groupScreen && b != keyCopy && b != keyCopyID {
			continue
		}
		out = append(out, selectionAction{name: b.help, label: b.help + " " + noun + " " + name, key: b.keys[0], mutates: b.mutates})
	}
	return out
}

// runSelection presses the key of the action named line, when there is
// one; a change in a read-only session is refused with the reason.
func (m *model) runSelection(line string) (cmd tea.Cmd, refusal string, ok bool) {
	for _, a := range m.screenActions() {
		if strings.EqualFold(line, a.name) || strings.EqualFold(line, a.label) {
			if a.mutates && m.c.readOnly {
				return nil, "read-only session", true
			}
			k := keyMsg(a.key)
			return func() tea.Msg { return k }, "", true
		}
	}
	return nil, "", false
}

// keyMsg is the key message of a key name as the key table writes it.
func keyMsg(k string) tea.KeyMsg {
	if t, ok := namedKeys[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// namedKeys are the key names of the key table that are not runes.
var namedKeys = map[string]tea.KeyType{
	"enter": tea.KeyEnter, "esc": tea.KeyEsc, "up": tea.KeyUp, "down": tea.KeyDown, "tab": tea.KeyTab,
	"backspace": tea.KeyBackspace, "ctrl+r": tea.KeyCtrlR, "ctrl+c": tea.KeyCtrlC, "ctrl+a": tea.KeyCtrlA,
	"space": tea.KeySpace, "shift+tab": tea.KeyShiftTab, "left": tea.KeyLeft, "right": tea.KeyRight,
	"ctrl+s": tea.KeyCtrlS, "ctrl+u": tea.KeyCtrlU, "ctrl+d": tea.KeyCtrlD, "pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp,
}
