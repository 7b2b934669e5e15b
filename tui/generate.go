package tui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// catalogMsg is what the generation form needs before it opens.
type catalogMsg struct {
	plans []*store.Plan
	ents  []*store.Entitlement
}

// openGenerate loads the plans and entitlements; the form opens when they
// arrive (the list opens the overlay a "form" load answers with).
func openGenerate(c *ctx, l *list) tea.Cmd {
	return c.load(l.ctx, l.sid, l.gen, "form", func(ctx context.Context) (any, error) {
		plans, err := c.data.ListPlans(ctx, c.app())
		if err != nil {
			return nil, err
		}
		ents, err := c.data.ListEntitlements(ctx, c.app())
		if err != nil {
			return nil, err
		}
		return newGenerateForm(l, catalogMsg{plans: plans, ents: ents}), nil
	})
}

// Fields of the generation form, named like the store's error fields.
const (
	fieldPlan     = "plan_id"
	fieldQuantity = "quantity"
	fieldExpires  = "expires_at"
	fieldEnts     = "entitlement_ids"
)

// generateForm is the license generation form (§8.2). Errors, the form's
// own and the server's, appear under their field.
type generateForm struct {
	l       *list
	cat     catalogMsg
	plan    int
	fields  []*input // quantity, expires, entitlements
	names   []string
	focus   int // 0 plan, then fields
	planErr string
}

func newGenerateForm(l *list, cat catalogMsg) *generateForm {
	f := &generateForm{l: l, cat: cat, names: []string{fieldPlan, fieldQuantity, fieldExpires, fieldEnts}}
	q := &input{prompt: "Quantity (1-1000): "}
	q.set("1")
	f.fields = []*input{q, {prompt: "Expires (empty, 30d, 2027-01-01 or RFC 3339): "}, {prompt: "Extra entitlements (keys, comma-separated): "}}
	return f
}

func (*generateForm) takesText() {}

func (f *generateForm) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	switch k.Type {
	case tea.KeyEsc:
		return true, nil
	case tea.KeyTab, tea.KeyDown:
		f.focus = (f.focus + 1) % 4
		return false, nil
	case tea.KeyShiftTab, tea.KeyUp:
		f.focus = (f.focus + 3) % 4
		return false, nil
	case tea.KeyEnter:
		in, ok := f.read(c)
		if !ok {
			return false, nil
		}
		l := f.l
		l.form = f
		plan := f.cat.plans[f.plan].Name
		return true, c.act(l.ctx, l.sid, "", func(ctx context.Context) (any, error) {
			items, err := c.data.GenerateLicenses(ctx, c.scope(), in)
			if err != nil {
				return nil, err
			}
			return generated{plan: plan, items: items}, nil
		})
	}
	if f.focus == 0 {
		switch k.String() {
		case "left", "h":
			f.plan = (f.plan + len(f.cat.plans) - 1) % max(1, len(f.cat.plans))
		case "right", "l", " ":
			f.plan = (f.plan + 1) % max(1, len(f.cat.plans))
		}
		return false, nil
	}
	f.fields[f.focus-1].key(k)
	return false, nil
}

// read checks the form and builds the request; errors go under the fields.
func (f *generateForm) read(c *ctx) (store.GenerateLicensesInput, bool) {
	var in store.GenerateLicensesInput
	ok := true
	if len(f.cat.plans) == 0 {
		f.planErr, ok = "no plan: create one first (n on Plans, tab 8)", false
	} else {
		in.PlanID = f.cat.plans[f.plan].ID
	}
	n, err := strconv.Atoi(f.fields[0].text())
	if err != nil || n < 1 || n > store.MaxGenerate {
		f.fields[0].err, ok = fmt.Sprintf("a number from 1 to %d", store.MaxGenerate), false
	}
	in.Quantity = n
	if t, err := parseExpiry(f.fields[1].text(), c.now()); err != nil {
		f.fields[1].err, ok = err.Error(), false
	} else {
		in.ExpiresAt = t
	}
	for _, k := range strings.Split(f.fields[2].text(), ",") {
		if k = strings.TrimSpace(k); k == "" {
			continue
		}
		found := false
		for _, e := range f.cat.ents {
			if e.Key == k || e.ID == k {
				in.EntitlementIDs, found = append(in.EntitlementIDs, e.ID), true
			}
		}
		if !found {
			f.fields[2].err, ok = fmt.Sprintf("no entitlement %q", k), false
		}
	}
	return in, ok
}

// parseExpiry reads "", "30d", a date or an RFC 3339 time.
func parseExpiry(s string, now time.Time) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(d); err == nil && n > 0 {
			t := now.Add(time.Duration(n) * 24 * time.Hour)
			return &t, nil
		}
	}
	for _, layout := range []string{"2006-01-02", time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return &t, nil
		}
	}
	return nil, fmt.Errorf("not a duration like 30d, a date or an RFC 3339 time")
}

// fail puts a server error under its field; it reports whether it could.
func (f *generateForm) fail(err error) bool {
	e := store.AsError(err)
	if e == nil || e.Field == "" {
		return false
	}
	switch e.Field {
	case fieldPlan:
		f.planErr = e.Message
	case fieldQuantity:
		f.fields[0].err = e.Message
	case fieldExpires:
		f.fields[1].err = e.Message
	case fieldEnts:
		f.fields[2].err = e.Message
	default:
		return false
	}
	return true
}

func (f *generateForm) view(c *ctx, w, h int) []string {
	marker := func(i int) string {
		if f.focus == i {
			return c.g.cursor + " "
		}
		return "  "
	}
	plan := "(none)"
	if len(f.cat.plans) > 0 {
		p := f.cat.plans[f.plan]
		plan = fmt.Sprintf("< %s >  max %d devices, trial %v, duration %s", p.Name, p.MaxDevices, p.IsTrial, optInt(p.DurationDays, "forever"))
	}
	lines := []string{marker(0) + "Plan: " + plan}
	if f.planErr != "" {
		lines = append(lines, "    "+c.g.fail+" "+f.planErr)
	}
	for i, in := range f.fields {
		lines = append(lines, marker(i+1)+in.view(f.focus == i+1))
		if in.err != "" {
			lines = append(lines, "    "+c.g.fail+" "+in.err)
		}
	}
	lines = append(lines, "tab next field "+c.g.dot+" ←/→ plan "+c.g.dot+" enter generate "+c.g.dot+" esc cancel")
	return box(c, "Generate licenses into "+strings.ToUpper(c.env), lines, w)
}

// generated is the answer of a generation.
type generated struct {
	plan  string
	items []*store.LicenseItem
}

// newGenerated is the result screen: the new keys, to copy or open.
func newGenerated(c *ctx, g generated) screen {
	spec := *licensesSpec
	spec.name, spec.paged, spec.create, spec.actions = fmt.Sprintf("Generated %d %s licenses", len(g.items), g.plan), false, nil, nil
	items := g.items
	spec.fetch = whole(func(ctx context.Context, c *ctx) ([]*store.LicenseItem, error) { return items, nil })
	return &generatedList{list: newList(c, &spec), all: items, plan: g.plan}
}

// generatedList adds Y (copy every key) and w (write them to a file) to
// the result list.
type generatedList struct {
	*list
	all  []*store.LicenseItem
	plan string
}

var (
	keyCopyAll   = bind(groupScreen, "Y", "copy all keys", "Y")
	keyWriteKeys = bind(groupScreen, "w", "write keys to a file", "w")
)

func (g *generatedList) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	switch ks := k.String(); {
	case c.matches(ks, keyCopyAll):
		return true, c.copy(strings.TrimSuffix(g.keyLines(), "\n"))
	case c.matches(ks, keyWriteKeys):
		a := newAsk(c, fmt.Sprintf("Write %d keys to a file (an existing file is never overwritten)", len(g.all)), "path: ", func(path string) tea.Cmd {
			data := g.keyLines()
			return c.act(g.ctx, g.sid, fmt.Sprintf("Wrote %d keys to %s", len(g.all), path), func(context.Context) (any, error) {
				return nil, writeNewFile(path, data)
			})
		})
		a.in.set(fmt.Sprintf("./licenses-%s-%s.txt", fileSafe(g.plan), c.now().Format("20060102")))
		return true, openOverlay(a)
	}
	return g.list.key(c, k)
}

func (g *generatedList) keys(c *ctx) []*binding {
	return append(g.list.keys(c), keyCopyAll, keyWriteKeys)
}

// keyLines is every generated key, one per line.
func (g *generatedList) keyLines() string {
	var b strings.Builder
	for _, it := range g.all {
		b.WriteString(it.Key + "\n")
	}
	return b.String()
}

// writeNewFile writes data to a file that must not exist yet: keys are
// never written over something else.
func writeNewFile(path, data string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return store.Invalid("path", "%s exists; choose another name", path)
	}
	if err != nil {
		return store.Invalid("path", "cannot create %s: %v", path, errors.Unwrap(err))
	}
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		return store.Invalid("path", "writing %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		return store.Invalid("path", "writing %s: %v", path, err)
	}
	return nil
}

// fileSafe keeps letters, digits, dots and dashes of a plan name for a file name.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-') {
			return unicode.ToLower(r)
		}
		return '-'
	}, s)
}
