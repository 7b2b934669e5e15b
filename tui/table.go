package tui

import (
	"strings"

	"licensectl/store"
)

// column is one column of a table. Priority 0 always shows; higher numbers
// are hidden first when the terminal is narrow. min is the width the
// column needs; it grows to its widest visible cell up to max.
type column struct {
	title    string
	priority int
	min, max int
}

// table draws rows of cells with a text marker on the cursor row ("▶" or
// ">") and "*" on marked rows, so the selection reads without colour and in
// a plain tmux capture. It has no key bindings: screens move its cursor.
type table struct {
	cols   []column
	rows   [][]string
	marked []bool
	cursor int
	offset int // first visible row
}

// fit picks the columns that fit in w cells, dropping the lowest priority
// first, and their widths.
func (t *table) fit(w int) ([]int, []int) {
	idx := make([]int, len(t.cols))
	for i := range idx {
		idx[i] = i
	}
	widths := make([]int, len(t.cols))
	for i, c := range t.cols {
		widths[i] = max(c.min, width(c.title))
		for _, r := range t.rows {
			if i < len(r) {
				widths[i] = max(widths[i], min(width(r[i]), c.max))
			}
		}
	}
	total := func(ix []int) int {
		n := 2
		for _, i := range ix {
			n += widths[i] + 2
		}
		return n
	}
	for total(idx) > w && len(idx) > 1 {
		worst := 0
		for j, i := range idx {
			if t.cols[i].priority > t.cols[idx[worst]].priority {
				worst = j
			}
		}
		if t.cols[idx[worst]].priority == 0 {
			break
		}
		idx = append(idx[:worst:worst], idx[worst+1:]...)
	}
	return idx, widths
}

// view renders the header and as many rows as fit in h lines, keeping the
// cursor row visible.
func (t *table) view(c *ctx, w, h int) string {
	if h < 2 {
		return ""
	}
	// Stored text may hold controls from before the input rules (docs/design.md
	// §8): every cell is escaped before it is measured or drawn.
	for _, r := range t.rows {
		for i := range r {
			r[i] = store.Printable(r[i])
		}
	}
	idx, widths := t.fit(w)
	line := func(marker string, cells []string) string {
		var l strings.Builder
		l.WriteString(c.g.padRight(marker, 2))
		for _, i := range idx {
			cell := ""
			if i < len(cells) {
				cell = cells[i]
			}
			l.WriteString(c.g.padRight(cell, widths[i]))
			l.WriteString("  ")
		}
		return c.g.truncate(strings.TrimRight(l.String(), " "), w)
	}
	titles := make([]string, len(t.cols))
	for i, col := range t.cols {
		titles[i] = col.title
	}
	var b strings.Builder
	b.WriteString(line("", titles))
	rowsH := h - 1
	if t.cursor < t.offset {
		t.offset = t.cursor
	}
	if t.cursor >= t.offset+rowsH {
		t.offset = t.cursor - rowsH + 1
	}
	t.offset = max(0, min(t.offset, len(t.rows)-rowsH))
	for i := t.offset; i < len(t.rows) && i < t.offset+rowsH; i++ {
		b.WriteByte('\n')
		marker := " "
		if i < len(t.marked) && t.marked[i] {
			marker = c.g.mark
		}
		if i == t.cursor {
			b.WriteString(c.st.selected.Render(line(c.g.cursor, t.rows[i])))
			continue
		}
		b.WriteString(line(marker, t.rows[i]))
	}
	return b.String()
}
