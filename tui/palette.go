package tui

import (
	"slices"
	"sort"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// paletteCmd is one ':' command: its names and what it does with its
// argument.
type paletteCmd struct {
	names []string
	arg   string // how the argument is shown in help
	app   bool   // needs an open application
	run   func(m *model, arg string) tea.Cmd
}

// tabCmd switches the app dashboard to a tab, with an optional filter.
func tabCmd(tab string) func(m *model, arg string) tea.Cmd {
	return func(m *model, arg string) tea.Cmd { return m.jumpTab(tab, arg) }
}

var paletteCmds = []paletteCmd{
	{names: []string{"orgs"}, run: func(m *model, _ string) tea.Cmd {
		return func() tea.Msg { return replaceMsg{[]screen{newList(m.c, orgsSpec)}} }
	}},
	{names: []string{"org"}, arg: "SLUG", run: func(m *model, arg string) tea.Cmd { return m.jumpOrg(arg) }},
	{names: []string{"apps"}, run: func(m *model, _ string) tea.Cmd { return m.jumpOrgTab("Apps") }},
	{names: []string{"app"}, arg: "SLUG", run: func(m *model, arg string) tea.Cmd { return m.jumpApp(arg) }},
	{names: []string{"members"}, run: func(m *model, _ string) tea.Cmd { return m.jumpOrgTab("Members") }},
	{names: []string{"apikeys"}, run: func(m *model, _ string) tea.Cmd { return m.jumpOrgTab("API keys") }},
	{names: []string{"usage", "billing"}, run: func(m *model, _ string) tea.Cmd { return m.jumpOrgTab("Usage") }},
	{names: []string{"orgaudit"}, run: func(m *model, _ string) tea.Cmd { return m.jumpOrgTab("Org audit") }},
	{names: []string{"env"}, arg: "prod|dev", app: true, run: func(m *model, arg string) tea.Cmd {
		want := store.EnvProduction
		if strings.HasPrefix(arg, "dev") {
			want = store.EnvDevelopment
		}
		if m.c.env == want {
			return nil
		}
		return m.global(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("E")})
	}},
	{names: []string{"overview"}, app: true, run: tabCmd("Overview")},
	{names: []string{"licenses", "lic", "l"}, arg: "[STATUS] [plan=NAME]", app: true, run: tabCmd("Licenses")},
	{names: []string{"license"}, arg: "KEY|ID", app: true, run: func(m *model, arg string) tea.Cmd { return m.openLicense(arg) }},
	{names: []string{"users"}, arg: "[STATUS|EMAIL]", app: true, run: tabCmd("Users")},
	{names: []string{"user"}, arg: "EMAIL", app: true, run: tabCmd("Users")},
	{names: []string{"devices"}, arg: "[STATUS|fp:FP]", app: true, run: tabCmd("Devices")},
	{names: []string{"device"}, arg: "FP", app: true, run: func(m *model, arg string) tea.Cmd {
		if arg != "" && !strings.HasPrefix(arg, "fp:") {
			arg = "fp:" + arg
		}
		return m.jumpTab("Devices", arg)
	}},
	{names: []string{"audit"}, arg: "[EVENT] [since=24h]", app: true, run: tabCmd("Audit")},
	{names: []string{"activity"}, app: true, run: tabCmd("Activity")},
	{names: []string{"webhooks"}, app: true, run: tabCmd("Webhooks")},
	{names: []string{"plans"}, app: true, run: tabCmd("Plans")},
	{names: []string{"entitlements", "ents"}, app: true, run: tabCmd("Entitlements")},
	{names: []string{"secrets"}, app: true, run: tabCmd("Secrets")},
	{names: []string{"generate"}, app: true, run: func(m *model, _ string) tea.Cmd {
		if m.c.readOnly {
			return status(m.c.g.fail+" read-only session", true)
		}
		cmd := m.jumpTab("Licenses", "")
		if l, ok := focused(m.top()).(*list); ok && l.spec == licensesSpec {
			return tea.Batch(cmd, openGenerate(m.c, l))
		}
		return cmd
	}},
	{names: []string{"mouse"}, run: func(m *model, _ string) tea.Cmd {
		m.c.mouse = !m.c.mouse
		if m.c.mouse {
			m.setStatus("Mouse on: the wheel scrolls (:mouse turns it off for the terminal's selection)", true)
			return tea.EnableMouseCellMotion
		}
		m.setStatus("Mouse off: the terminal selects and copies", true)
		return tea.DisableMouse
	}},
	{names: []string{"refresh"}, run: func(m *model, _ string) tea.Cmd { return m.top().reload(m.c) }},
	{names: []string{"help"}, run: func(m *model, _ string) tea.Cmd {
		return openOverlay(newHelp(m.top().keys(m.c)))
	}},
	{names: []string{"q", "quit"}, run: func(m *model, _ string) tea.Cmd { return m.askQuit() }},
}

// palette is the ':' command line: tab completes, ↑/↓ walk the history,
// enter runs.
type palette struct {
	m       *model
	in      input
	hist    *[]string
	histPos int
	err     string
}

// paletteHistory lives as long as the program (per model).
func newPalette(c *ctx, m *model) *palette {
	return &palette{m: m, in: input{prompt: ":"}, hist: &m.history, histPos: len(m.history)}
}

func (*palette) takesText() {}

// completions are the command names that start with what is typed.
func (p *palette) completions() []string {
	typed := string(p.in.value)
	var out []string
	for _, pc := range paletteCmds {
		for _, n := range pc.names {
			if strings.HasPrefix(n, typed) {
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}

func (p *palette) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	switch k.Type {
	case tea.KeyEsc:
		return true, nil
	case tea.KeyTab:
		if cs := p.completions(); len(cs) > 0 {
			p.in.set(cs[0] + " ")
		} else {
			typed := strings.ToLower(p.in.text())
			for _, a := range p.m.selectionActions() {
				if strings.HasPrefix(a.name, typed) {
					p.in.set(a.name)
					break
				}
			}
		}
		return false, nil
	case tea.KeyUp:
		if p.histPos > 0 {
			p.histPos--
			p.in.set((*p.hist)[p.histPos])
		}
		return false, nil
	case tea.KeyDown:
		if p.histPos < len(*p.hist)-1 {
			p.histPos++
			p.in.set((*p.hist)[p.histPos])
		}
		return false, nil
	case tea.KeyEnter:
		line := p.in.text()
		name, arg, _ := strings.Cut(line, " ")
		for _, pc := range paletteCmds {
			if slices.Contains(pc.names, name) {
				*p.hist = append(*p.hist, line)
				if pc.app && c.appID == "" {
					p.err = "open an application first (:apps)"
					return false, nil
				}
				return true, pc.run(p.m, strings.TrimSpace(arg))
			}
		}
		if cmd, err, ok := p.m.runSelection(line); ok {
			if err != "" {
				p.err = err
				return false, nil
			}
			*p.hist = append(*p.hist, line)
			return true, cmd
		}
		p.err = "unknown command " + name + " (tab completes)"
		return false, nil
	}
	p.in.key(k)
	p.err = ""
	return false, nil
}

func (p *palette) view(c *ctx, w, h int) []string {
	lines := []string{p.in.view(true)}
	if p.err != "" {
		lines = append(lines, c.g.fail+" "+p.err)
	}
	var hints []string
	for _, n := range p.completions() {
		for _, pc := range paletteCmds {
			if pc.names[0] == n && pc.arg != "" {
				n += " " + pc.arg
			}
		}
		hints = append(hints, n)
	}
	lines = append(lines, c.g.truncate(strings.Join(hints, "  "), w-4))
	typed := strings.ToLower(p.in.text())
	var acts []string
	for _, a := range p.m.selectionActions() {
		if strings.HasPrefix(a.name, typed) {
			acts = append(acts, a.label)
		}
	}
	if len(acts) > 0 {
		lines = append(lines, c.g.truncate("on the selection: "+strings.Join(acts, c.g.dot+" "), w-4))
	}
	return box(c, "Jump (tab completes, enter runs, esc closes)", lines, w)
}

// jumpTab shows a tab of the app dashboard, with filter text applied to it.
func (m *model) jumpTab(tab, filter string) tea.Cmd {
	i := m.appDashboard()
	if i < 0 {
		return status(m.c.g.fail+" open an application first (:apps)", true)
	}
	m.popTo(i)
	t := m.stack[i].(*tabs)
	cmd := t.tab(m.c, tab)
	if l, ok := t.cur().(*list); ok && filter != "" {
		return tea.Batch(cmd, l.filter(m.c, l.spec.paletteArg(filter)))
	}
	return cmd
}

// jumpInto opens s on the canonical path of its kind: the app dashboard on
// tab, s above it. A ':' jump replaces the stack rather than pushing onto
// it (docs/tui.md §5), so the breadcrumb reads the same from anywhere.
func (m *model) jumpInto(tab string, s screen) tea.Cmd {
	if m.appDashboard() < 0 {
		return status(m.c.g.fail+" open an application first (:apps)", true)
	}
	cmd := m.jumpTab(tab, "")
	m.stack = append(m.stack, s)
	return tea.Batch(cmd, s.init(m.c))
}

// openLicense is :license KEY|ID, and a pasted key (docs/tui.md §7.3): a
// full UUID opens the license with that id, anything that normalises to a
// key the license with that key.
func (m *model) openLicense(what string) tea.Cmd {
	if store.ValidID(what) {
		return m.jumpInto("Licenses", newLicense(m.c, what))
	}
	k := store.NormalizeLicenseKey(what)
	if k == "" {
		return status(m.c.g.fail+" not a license key or id: "+what, true)
	}
	return m.jumpInto("Licenses", newLicenseByKey(m.c, k))
}

// jumpOrgTab shows a tab of the org home.
func (m *model) jumpOrgTab(tab string) tea.Cmd {
	for i, s := range m.stack {
		if t, ok := s.(*tabs); ok && t.org {
			m.popTo(i)
			return t.tab(m.c, tab)
		}
	}
	if m.c.orgID == "" {
		return status(m.c.g.fail+" choose an organization first", true)
	}
	return push(newOrgHome(m.c))
}
