package tui

import (
	"fmt"
	"strings"

	"licensectl/store"
)

// How a list draws itself: the title line with its chips and position,
// the body (an error, loading, an empty state or the table) and, on wide
// terminals, the preview pane; and where a click lands.

func (l *list) view(c *ctx, w, h int) string {
	var b strings.Builder
	titleLeft := l.spec.name
	for _, ch := range l.q.chips {
		titleLeft += " [" + ch + "]"
	}
	if l.q.note != "" {
		titleLeft += " " + l.q.note
	}
	if l.err != nil && l.loaded {
		titleLeft += fmt.Sprintf(" (stale %s)", span(c.now().Sub(l.loadedAt)))
	}
	rows := l.rows()
	right := ""
	switch {
	case !l.loaded:
	case l.q.local != "" && !l.spec.paged:
		right = fmt.Sprintf("matching %d of %d (fuzzy, every row)", len(rows), len(l.pages[l.page]))
	case l.q.local != "":
		search := l.spec.searchAll
		if search == "" {
			search = "use status:, plan: or a full key to search all"
		}
		right = fmt.Sprintf("matching %d of %d loaded rows (page-local; %s)", len(rows), len(l.pages[l.page]), search)
	case l.spec.paged:
		pos := 0
		if len(rows) > 0 {
			pos = (l.page-1)*perPage + l.cursor + 1
		}
		right = fmt.Sprintf("%s matching %s row %s of %s %s page %d/%d", count(l.total), c.g.dot, count(pos), count(l.total), c.g.dot, l.page, l.lastPage())
	default:
		right = fmt.Sprintf("%s %s", count(len(rows)), c.g.dot+" row "+count(min(l.cursor+1, len(rows))))
	}
	if l.newer > 0 {
		right = fmt.Sprintf("%s %d new since loaded (ctrl+r) %s %s", c.g.refresh, l.newer, c.g.dot, right)
	}
	if len(l.marked) > 0 {
		titleLeft += fmt.Sprintf(" %s %d marked", c.g.dot, len(l.marked))
	}
	b.WriteString(c.st.title.Render(c.g.spread(titleLeft, right, w)))
	b.WriteByte('\n')
	bodyH := h - 1
	l.rowsTop = 2 // the title and the table's header
	if l.editing != nil {
		l.rowsTop++
		hint := "status:WORD plan:NAME, a key, an e-mail, fp:" + c.g.ellipsis
		if l.spec.syntax != "" {
			hint = l.spec.syntax
		}
		if !l.spec.paged {
			hint = "fuzzy, over every row"
		}
		b.WriteString(l.editing.view(true) + "   (" + hint + " ; enter apply " + c.g.dot + " esc cancel)\n")
		bodyH--
	}
	switch {
	case !l.loaded && l.err != nil:
		b.WriteString(c.loadFailed(l.err))
		return b.String()
	case !l.loaded:
		b.WriteString("  loading" + c.g.ellipsis)
		return b.String()
	case len(rows) == 0 && l.total == 0 && len(l.q.chips) == 0 && l.q.local == "":
		other := store.EnvDevelopment
		if c.env == store.EnvDevelopment {
			other = store.EnvProduction
		}
		b.WriteString("  " + strings.NewReplacer("ENV", strings.ToUpper(c.env), "OTHER", other).Replace(l.spec.empty))
		return b.String()
	case len(rows) == 0:
		b.WriteString("  Nothing matches. esc clears the filter.")
		return b.String()
	}
	l.tbl.cols = l.spec.cols
	l.tbl.rows = l.tbl.rows[:0]
	l.tbl.marked = l.tbl.marked[:0]
	for _, it := range rows {
		l.tbl.rows = append(l.tbl.rows, l.spec.cells(c, it))
		_, m := l.marked[l.spec.id(it)]
		l.tbl.marked = append(l.tbl.marked, m)
	}
	l.tbl.cursor = l.cursor
	l.height = bodyH - 1
	if it := l.current(); it != nil && l.spec.preview != nil && w >= previewMinWidth {
		// Wide terminals get the selected row's summary on the right, from
		// the row itself: moving the cursor sends no request.
		paneW := min(46, w/3)
		b.WriteString(beside(c.g, l.tbl.view(c, w-paneW-1, bodyH), l.spec.preview(c, it), w-paneW-1, paneW))
		return b.String()
	}
	b.WriteString(l.tbl.view(c, w, bodyH))
	return b.String()
}

// previewMinWidth is where lists get a preview pane (docs/tui.md §6).
const previewMinWidth = 120

// beside puts the lines of right next to those of left (cut to lw cells),
// with a bar between them.
func beside(g glyphs, left string, right []string, lw, rw int) string {
	ls := strings.Split(left, "\n")
	out := make([]string, len(ls))
	for i, l := range ls {
		r := ""
		if i < len(right) {
			r = g.truncate(right[i], rw)
		}
		out[i] = g.padRight(l, lw) + g.vbar + r
	}
	return strings.Join(out, "\n")
}

// click selects the row drawn y lines below the top of the list's view.
func (l *list) click(y int) {
	i := l.tbl.offset + y - l.rowsTop
	if y >= l.rowsTop && i >= 0 && i < len(l.rows()) {
		l.cursor = i
	}
}
