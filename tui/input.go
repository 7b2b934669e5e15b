package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// input is a one-line text field. It is ours rather than bubbles' textinput
// so that it has no blinking cursor (views stay deterministic for goldens
// and tmux captures) and takes a batch of runes as typed text.
type input struct {
	prompt string
	value  []rune
	mask   bool
	err    string // shown under the field
}

// key applies a key press; it reports whether the key was consumed.
func (in *input) key(k tea.KeyMsg) bool {
	switch k.Type {
	case tea.KeyRunes, tea.KeySpace:
		in.value = append(in.value, k.Runes...)
		in.err = ""
		return true
	case tea.KeyBackspace:
		if len(in.value) > 0 {
			in.value = in.value[:len(in.value)-1]
		}
		in.err = ""
		return true
	case tea.KeyCtrlU:
		in.value = nil
		return true
	case tea.KeyCtrlW:
		s := strings.TrimRight(string(in.value), " ")
		if i := strings.LastIndexByte(s, ' '); i >= 0 {
			in.value = []rune(s[:i+1])
		} else {
			in.value = nil
		}
		return true
	}
	return false
}

func (in *input) text() string { return strings.TrimSpace(string(in.value)) }

func (in *input) set(s string) { in.value = []rune(s) }

// view draws the field with a text cursor marker, visible without colour.
func (in *input) view(focused bool) string {
	v := string(in.value)
	if in.mask {
		v = strings.Repeat("*", len(in.value))
	}
	if focused {
		v += "_"
	}
	return in.prompt + v
}
