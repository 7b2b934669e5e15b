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
// environment is always a word, and READ-ONLY is said.
func (m *model) header() string {
	c := m.c
	crumbs := []string{"licensectl"}
	for _, s := range m.stack {
		crumbs = append(crumbs, s.title())
		if t, ok := s.(*tabs); ok && t.app {
			env := strings.ToUpper(c.env)
			if c.env == store.EnvProduction {
				env = c.st.prod.Render(env)
			}
			crumbs = append(crumbs, env, t.cur().title())
		}
	}
	left := strings.Join(crumbs, " "+c.g.sep+" ")
	right := "local " + c.where
	if c.remote {
		right = "remote " + c.where
		if c.cred != "" {
			right += " " + c.g.dot + " key " + c.g.ellipsis + c.cred
		}
	}
	if c.readOnly {
		// First, so that a long data path never cuts it.
		right = "READ-ONLY " + c.g.dot + " " + right
	}
	if width(left)+width(right)+1 > m.w {
		left = strings.Join(crumbs[1:], " "+c.g.sep+" ")
	}
	if width(left)+width(right)+1 > m.w {
		// The mode keeps up to half the line: where the TUI acts is as
		// important as what it shows.
		right = c.g.truncate(right, max(m.w/2, m.w-width(left)-1))
		left = c.g.truncate(left, m.w-width(right)-1)
	}
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
