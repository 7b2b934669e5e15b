package tui

import (
	"fmt"
	"strings"

	"licensectl/store"
)

// View draws header, body, status line and footer at the terminal's size.
func (m *model) View() string {
	c := m.c
	if m.w == 0 {
		return ""
	}
	if m.w < minWidth || m.h < minHeight {
		// Wrapped to the width: a terminal that cuts long lines would
		// otherwise lose the very size the user needs to read.
		lines := wrapWords(fmt.Sprintf("Terminal too small: %d×%d. licensectl tui needs at least %d×%d.", m.w, m.h, minWidth, minHeight), m.w)
		return strings.Join(lines[:min(len(lines), max(1, m.h))], "\n")
	}
	if a, ok := m.over.(*alone); ok {
		return strings.Join(a.view(c, m.w, m.h), "\n")
	}
	bodyH := m.h - 3
	body := strings.Split(m.top().view(c, m.w, bodyH), "\n")
	if m.over != nil {
		ov := m.over.view(c, m.w, bodyH)
		if len(ov) > bodyH {
			ov = ov[len(ov)-bodyH:]
		}
		for len(body) < bodyH {
			body = append(body, "")
		}
		body = body[:bodyH-len(ov)]
		body = append(body, ov...)
	}
	for len(body) < bodyH {
		body = append(body, "")
	}
	lines := make([]string, 0, m.h)
	lines = append(lines, m.header())
	for _, l := range body[:bodyH] {
		lines = append(lines, c.g.truncate(l, m.w))
	}
	lines = append(lines, m.statusLine(), c.g.truncate(footer(c.g, c.visible(m.top().keys(c)), m.w), m.w))
	return strings.Join(lines, "\n")
}

// header is the breadcrumb on the left and the mode on the right; the
// environment is always a word, and READ-ONLY is said. On a narrow
// terminal "licensectl" goes first; then the location (URL or data file,
// elided in its middle) and the other breadcrumb parts are shortened, the
// widest first, then the crumbs left of the environment go, so that the
// environment, READ-ONLY and the key's last four stay whole
// (docs/tui.md §4, principle 5, and §6).
func (m *model) header() string {
	c := m.c
	crumbs := []string{"licensectl"}
	env := -1 // the environment's crumb, never shortened
	for _, s := range m.stack {
		crumbs = append(crumbs, s.title())
		if t, ok := s.(*tabs); ok && t.app {
			word := strings.ToUpper(c.env)
			if c.env == store.EnvProduction {
				word = c.st.prod.Render(word)
			}
			env = len(crumbs)
			crumbs = append(crumbs, word, t.cur().title())
		}
	}
	mode, tailText := "local ", ""
	if c.remote {
		mode = "remote "
		if c.cred != "" {
			tailText = " " + c.g.dot + " key " + c.g.ellipsis + c.cred
		}
	}
	if c.readOnly {
		// First, so that it is read before a long location.
		mode = "READ-ONLY " + c.g.dot + " " + mode
	}
	// The shortened parts: the location, then every crumb but the
	// environment, each with the width it may take.
	full := append([]string{c.where}, crumbs...)
	room := make([]int, len(full))
	for i, s := range full {
		room[i] = width(s)
	}
	first := 0 // the first crumb shown
	draw := func() (string, string) {
		parts := make([]string, 0, len(crumbs))
		for i := first; i < len(crumbs); i++ {
			if i == env {
				parts = append(parts, crumbs[i])
			} else {
				parts = append(parts, c.g.truncate(crumbs[i], room[i+1]))
			}
		}
		return strings.Join(parts, " "+c.g.sep+" "), mode + c.g.middle(c.where, room[0]) + tailText
	}
	fits := func() bool {
		left, right := draw()
		return width(left)+1+width(right) <= m.w
	}
	// shrink takes a cell at a time from the widest part still above its
	// floor, until the line fits or every part is at its floor.
	shrink := func(whereFloor, crumbFloor int) {
		for !fits() {
			widest := -1
			for i := range room {
				floor := crumbFloor
				if i == 0 {
					floor = whereFloor
				}
				if env >= 0 && i == env+1 || i > 0 && i-1 < first || room[i] <= floor {
					continue
				}
				if widest < 0 || room[i] > room[widest] {
					widest = i
				}
			}
			if widest < 0 {
				return
			}
			room[widest]--
		}
	}
	fit := func() {
		for i, s := range full {
			room[i] = width(s)
		}
		shrink(16, 8)
		shrink(12, 4)
	}
	if !fits() {
		first = 1 // "licensectl" goes first
		fit()
	}
	// Then the crumbs left of the environment, the organization first:
	// what the TUI acts in and where stays readable.
	for !fits() && first < len(crumbs)-1 && (env < 0 || first < env) {
		first++
		fit()
	}
	shrink(1, 1)
	left, right := draw()
	return c.st.header.Render(c.g.spread(left, right, m.w))
}

// statusLine shows the last result and, on the right, "loading…" while any
// store call is in flight or "ready": both words are a contract for tests.
func (m *model) statusLine() string {
	c := m.c
	right := "ready"
	if !c.refreshedAt.IsZero() {
		right += " " + c.refreshedAt.Local().Format("15:04:05")
	}
	if c.busy > 0 {
		right = "loading" + c.g.ellipsis
	}
	left := m.status
	if left != "" {
		if m.statusOK {
			left = c.st.ok.Render(left)
		} else {
			left = c.st.err.Render(left)
		}
	}
	return c.g.spread(c.g.truncate(left, m.w-width(right)-1), right, m.w)
}
