package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// glyphs are the symbols the TUI draws; --ascii (or a locale that is not
// UTF-8) swaps them for plain characters.
type glyphs struct {
	cursor, mark, sep, ok, fail, dot, ellipsis, refresh, dash, vbar, to, from string
}

var (
	unicodeGlyphs = glyphs{cursor: "▶", mark: "*", sep: "▸", ok: "✓", fail: "✗", dot: "·", ellipsis: "…", refresh: "↻", dash: "—", vbar: "│", to: "→", from: "←"}
	asciiGlyphs   = glyphs{cursor: ">", mark: "*", sep: ">", ok: "+", fail: "x", dot: "-", ellipsis: "...", refresh: "~", dash: "-", vbar: "|", to: "->", from: "<-"}
)

// styles hold the few colours used; with colour off every style renders
// plain text, and meaning is always carried by a word or a marker too.
type styles struct {
	header, title, selected, dim, err, ok, prod lipgloss.Style
}

func newStyles(color bool) styles {
	if !color {
		p := lipgloss.NewStyle()
		return styles{p, p, p, p, p, p, p}
	}
	return styles{
		header:   lipgloss.NewStyle().Bold(true),
		title:    lipgloss.NewStyle().Bold(true),
		selected: lipgloss.NewStyle().Reverse(true),
		dim:      lipgloss.NewStyle().Faint(true),
		err:      lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
		ok:       lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		prod:     lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true),
	}
}

// width is the number of terminal cells s takes, escape sequences aside.
func width(s string) int { return ansi.StringWidth(s) }

// truncate cuts s to w cells, ending with the set's ellipsis when cut
// (docs/tui.md §6: "..." with --ascii).
func (g glyphs) truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if width(s) <= w {
		return s
	}
	if width(g.ellipsis) >= w {
		return ansi.Truncate(s, w, "")
	}
	return ansi.Truncate(s, w, g.ellipsis)
}

// middle cuts s to w cells in its middle, keeping its start and end (a
// URL's scheme and port, a path's file name).
func (g glyphs) middle(s string, w int) string {
	keep := w - width(g.ellipsis)
	if width(s) <= w || keep < 2 {
		return g.truncate(s, w)
	}
	head := keep / 2
	return ansi.Truncate(s, head, "") + g.ellipsis + ansi.TruncateLeft(s, width(s)-(keep-head), "")
}

// padRight pads s with spaces to w cells (cutting it when longer).
func (g glyphs) padRight(s string, w int) string {
	s = g.truncate(s, w)
	if n := w - width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// spread puts left and right on one line of w cells, the right side flush.
func (g glyphs) spread(left, right string, w int) string {
	gap := w - width(left) - width(right)
	if gap < 1 {
		return g.truncate(left+" "+right, w)
	}
	return left + strings.Repeat(" ", gap) + right
}
