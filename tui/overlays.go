package tui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// inputOverlay is an overlay with a text input: a batch of runes is typed
// text there, not several key presses.
type inputOverlay interface {
	overlay
	takesText()
}

// notice is a message that only q (quit) or esc closes.
type notice struct{ lines []string }

func (n *notice) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) { return false, nil }

func (n *notice) view(c *ctx, w, h int) []string { return box(c, "", n.lines, w) }

// listing shows lines (the failures of a bulk change) until esc or enter.
type listing struct {
	title string
	lines []string
}

func (l *listing) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	return k.Type == tea.KeyEsc || k.Type == tea.KeyEnter, nil
}

func (l *listing) view(c *ctx, w, h int) []string {
	lines := l.lines
	if max := h - 3; len(lines) > max && max > 0 {
		lines = append(lines[:max-1:max-1], fmt.Sprintf("%s and %d more", c.g.ellipsis, len(l.lines)-max+1))
	}
	return box(c, l.title, append(lines, "esc/enter close"), w)
}

// showValue shows value alone on the screen, for a terminal that dropped
// an OSC 52 copy: with the mouse off the user selects it by hand, and no
// border, header or other text shares its lines (docs/tui.md §11).
func showValue(value string) tea.Cmd {
	return openOverlay(&alone{lines: printableLines(value)})
}

// alone is an overlay that replaces the whole screen: the value from its
// first line, wrapped at the terminal's width only, and on the last line
// how to leave. Any key leaves (bar ctrl+c, which quits).
type alone struct{ lines []string }

func (a *alone) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) { return true, nil }

func (a *alone) view(c *ctx, w, h int) []string {
	var out []string
	for _, l := range a.lines {
		r := []rune(l)
		for len(r) > w {
			out = append(out, string(r[:w]))
			r = r[w:]
		}
		out = append(out, string(r))
	}
	out = out[:min(len(out), max(1, h-1))]
	for len(out) < h-1 {
		out = append(out, "")
	}
	return append(out, "select it with the mouse "+c.g.dot+" any key returns")
}

// help lists the key table for this screen and everywhere; typing filters it.
type help struct {
	keys   []*binding
	filter input
}

func newHelp(keys []*binding) *help { return &help{keys: keys, filter: input{prompt: "filter: "}} }

func (*help) takesText() {}

func (h *help) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	if k.Type == tea.KeyEsc || k.String() == "?" && len(h.filter.value) == 0 {
		return true, nil
	}
	h.filter.key(k)
	return false, nil
}

func (h *help) view(c *ctx, w, ht int) []string {
	rows := helpRows(c.g, c.visible(h.keys), h.filter.text())
	inner := w - 4
	var lines []string
	for _, r := range rows {
		lines = append(lines, r.lines(c.g, inner)...)
	}
	if len(lines)+1 > ht-2 {
		// Two columns when the list is longer than the screen; a row stays
		// whole in its column.
		colW := (inner - 2) / 2
		var laid [][]string
		total := 0
		for _, r := range rows {
			l := r.lines(c.g, colW)
			laid = append(laid, l)
			total += len(l)
		}
		var left, right []string
		for _, l := range laid {
			if len(left) < (total+1)/2 {
				left = append(left, l...)
			} else {
				right = append(right, l...)
			}
		}
		lines = lines[:0]
		for i := range max(len(left), len(right)) {
			l := ""
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				l = c.g.padRight(l, colW) + "  " + right[i]
			}
			lines = append(lines, l)
		}
	}
	return box(c, "Keys — esc closes", append([]string{h.filter.view(true)}, lines...), w)
}

// confirm asks before a change. Reversible changes are confirmed with y and
// nothing else (not enter, not the trigger key again); irreversible ones
// with a typed word and enter, and keys in the first 150 ms are ignored so
// that a held key cannot fill the word.
type confirm struct {
	question    string
	consequence []string
	word        string // "" for the y tier
	typed       input
	opened      time.Time
	bad         bool
	run         func() tea.Cmd
	// quiet cancels without a word: the quit question must not replace
	// what the status line says (a bulk run's summary).
	quiet bool
}

// guard is how long a typed confirmation ignores keys after opening.
const guard = 150 * time.Millisecond

func newConfirm(c *ctx, question string, consequence []string, word string, run func() tea.Cmd) *confirm {
	return &confirm{question: question, consequence: consequence, word: word, opened: c.now(), run: run, typed: input{prompt: "> "}}
}

func (*confirm) takesText() {}

func (d *confirm) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	if k.Type == tea.KeyEsc {
		return true, d.cancelled()
	}
	if d.word == "" {
		if k.String() == "y" || k.String() == "Y" {
			return true, d.run()
		}
		if k.String() == "n" || k.String() == "N" {
			return true, d.cancelled()
		}
		return false, nil
	}
	if c.now().Sub(d.opened) < guard {
		return false, nil
	}
	if k.Type == tea.KeyEnter {
		if d.typed.text() == d.word {
			return true, d.run()
		}
		d.bad = true
		return false, nil
	}
	d.typed.key(k)
	d.bad = false
	return false, nil
}

// cancelled is what closing without confirming says.
func (d *confirm) cancelled() tea.Cmd {
	if d.quiet {
		return nil
	}
	return status("Cancelled", false)
}

func (d *confirm) view(c *ctx, w, h int) []string {
	lines := append([]string{d.question}, d.consequence...)
	if d.word == "" {
		lines = append(lines, "y confirm "+c.g.dot+" n/esc cancel")
	} else {
		lines = append(lines, "This cannot be undone. Type \""+d.word+"\" and press enter "+c.g.dot+" esc cancel", d.typed.view(true))
		if d.bad {
			lines = append(lines, c.g.fail+" type \""+d.word+"\" to confirm")
		}
	}
	return box(c, "Confirm", lines, w)
}

// secretOnce shows a plaintext that is never shown again. Only enter
// closes it (esc asks first when it was not copied); on close the
// plaintext is dropped.
type secretOnce struct {
	title  string
	secret string
	copied bool
	asking bool
	clip   func(string) tea.Cmd
}

func (s *secretOnce) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	switch {
	case s.asking && k.String() == "y":
		s.secret = ""
		return true, nil
	case s.asking:
		s.asking = false
		return false, nil
	case k.Type == tea.KeyEnter:
		s.secret = ""
		return true, nil
	case k.String() == "y":
		s.copied = true
		return false, s.clip(s.secret)
	case k.Type == tea.KeyEsc:
		if s.copied {
			s.secret = ""
			return true, nil
		}
		s.asking = true
	}
	return false, nil
}

func (s *secretOnce) view(c *ctx, w, h int) []string {
	lines := []string{s.secret, "This is the only time it is shown. Store it now."}
	if s.asking {
		lines = append(lines, "Close without copying? y/N")
	} else {
		lines = append(lines, "y copy "+c.g.dot+" enter I have stored it")
	}
	return box(c, s.title, lines, w)
}

// box frames lines with a title, in plain characters when --ascii.
func box(c *ctx, title string, lines []string, w int) []string {
	inner := w - 4
	h, v, tl, tr, bl, br := "─", "│", "┌", "┐", "└", "┘"
	if c.g == asciiGlyphs {
		h, v, tl, tr, bl, br = "-", "|", "+", "+", "+", "+"
	}
	top := tl + " " + title + " "
	if title == "" {
		top = tl
	}
	out := []string{c.g.truncate(top+strings.Repeat(h, max(0, w-width(top)-1))+tr, w)}
	for _, l := range lines {
		// Long values (a secret, a key list) wrap rather than lose a part.
		for width(l) > inner {
			r := []rune(l)
			cut := min(len(r), inner)
			out = append(out, v+" "+c.g.padRight(string(r[:cut]), inner)+" "+v)
			l = string(r[cut:])
		}
		out = append(out, v+" "+c.g.padRight(l, inner)+" "+v)
	}
	return append(out, bl+strings.Repeat(h, max(0, w-2))+br)
}
