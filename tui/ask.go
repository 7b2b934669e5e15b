package tui

import tea "github.com/charmbracelet/bubbletea"

// ask is a one-field prompt; enter with a value runs then.
type ask struct {
	title string
	in    input
	then  func(string) tea.Cmd
}

func newAsk(c *ctx, title, prompt string, then func(string) tea.Cmd) *ask {
	return &ask{title: title, in: input{prompt: prompt}, then: then}
}

func (*ask) takesText() {}

func (a *ask) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	switch k.Type {
	case tea.KeyEsc:
		return true, nil
	case tea.KeyEnter:
		if a.in.text() == "" {
			a.in.err = "required"
			return false, nil
		}
		return true, a.then(a.in.text())
	}
	a.in.key(k)
	return false, nil
}

func (a *ask) view(c *ctx, w, h int) []string {
	lines := []string{a.in.view(true)}
	if a.in.err != "" {
		lines = append(lines, c.g.fail+" "+a.in.err)
	}
	return box(c, a.title, append(lines, "enter create "+c.g.dot+" esc cancel"), w)
}
