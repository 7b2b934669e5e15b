package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

var (
	keyEditPlan     = mutating(bind(groupScreen, "e", "edit", "e"))
	keyEditPolicies = mutating(bind(groupScreen, "P", "policies in $EDITOR", "P"))
)

// editJSON is a JSON object being edited in the user's editor: the temp
// file it was written to, and how to store what comes back.
type editJSON struct {
	path string
	what string // "policies of plan Pro", for messages
	save func(ctx context.Context, doc json.RawMessage) error
}

// editorClosed is sent when the editor exits; screen is the list that
// started it.
type editorClosed struct {
	screen uint64
	edit   editJSON
	err    error
}

func (m editorClosed) screenID() uint64 { return m.screen }

// editPolicies is P on Plans: the policies go to a temp file, $VISUAL or
// $EDITOR (vi when neither is set) runs on the terminal the TUI hands over
// (tea.ExecProcess), and what was saved is checked and stored.
func editPolicies(c *ctx, l *list, it any) tea.Cmd {
	p := it.(*store.Plan)
	doc := p.Policies
	return c.actThen(l.ctx, l.sid, "", func(context.Context) (any, error) {
		var pretty bytes.Buffer
		if len(doc) == 0 || json.Indent(&pretty, doc, "", "  ") != nil {
			pretty.Reset()
			pretty.WriteString("{}")
		}
		pretty.WriteByte('\n')
		f, err := os.CreateTemp("", "licensectl-policies-*.json")
		if err != nil {
			return nil, err
		}
		_, werr := f.Write(pretty.Bytes())
		if cerr := f.Close(); werr != nil || cerr != nil {
			os.Remove(f.Name())
			return nil, fmt.Errorf("writing %s: %v %v", f.Name(), werr, cerr)
		}
		return editJSON{path: f.Name(), what: "policies of plan " + store.Printable(p.Name), save: func(ctx context.Context, doc json.RawMessage) error {
			_, err := c.data.UpdatePlan(ctx, c.app(), p.ID, store.PlanInput{Policies: doc, PoliciesSet: true})
			return err
		}}, nil
	}, func(val any) tea.Cmd { return runEditor(c, l.sid, val.(editJSON)) })
}

// runEditor hands the terminal to the editor on e's file.
func runEditor(c *ctx, sid uint64, e editJSON) tea.Cmd {
	argv := strings.Fields(os.Getenv("VISUAL"))
	if len(argv) == 0 {
		argv = strings.Fields(os.Getenv("EDITOR"))
	}
	if len(argv) == 0 {
		argv = []string{"vi"}
	}
	cmd := exec.Command(argv[0], append(argv[1:], e.path)...)
	run := c.execProcess
	if run == nil {
		run = tea.ExecProcess
	}
	return run(cmd, func(err error) tea.Msg { return editorClosed{screen: sid, edit: e, err: err} })
}

// saveEdited checks what the editor left and stores it: a JSON object, or
// nothing stored and the reason said. The temp file goes either way.
func saveEdited(c *ctx, l *list, m editorClosed) tea.Cmd {
	e := m.edit
	return c.act(l.ctx, l.sid, "Saved the "+e.what, func(ctx context.Context) (any, error) {
		defer os.Remove(e.path)
		if m.err != nil {
			return nil, store.Invalid("policies", "the editor failed (%v): nothing was saved", m.err)
		}
		raw, err := os.ReadFile(e.path)
		if err != nil {
			return nil, err
		}
		raw = bytes.TrimSpace(raw)
		var obj map[string]any
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return nil, store.Invalid("policies", "policies must be a JSON object; nothing was saved")
		}
		return nil, e.save(ctx, raw)
	})
}
