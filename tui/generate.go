package tui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
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

// newGenerateForm is the license generation form (§8.2) on the one form
// engine. Errors, the form's own and the server's, appear under their
// field.
func newGenerateForm(l *list, cat catalogMsg) *form {
	c := l.c
	names := make([]string, len(cat.plans))
	for i, p := range cat.plans {
		names[i] = p.Name
	}
	plan := choiceField(fieldPlan, "Plan", names...)
	plan.show = func(fl *field) string {
		if len(cat.plans) == 0 {
			return "(none)"
		}
		p := cat.plans[fl.choice]
		return fmt.Sprintf("< %s >  max %d devices, trial %v, duration %s", p.Name, p.MaxDevices, p.IsTrial, optInt(p.DurationDays, "forever"))
	}
	f := newForm("Generate licenses into "+strings.ToUpper(c.env), "generate", plan,
		textField(fieldQuantity, "Quantity (1-1000)", false).set("1"),
		textField(fieldExpires, "Expires (empty, 30d, 2027-01-01 or RFC 3339)", false),
		multiField(fieldEnts, "Extra entitlements"))
	f.compact, f.enterSends = true, true
	// The extra entitlements are those the chosen plan does not grant.
	f.changed = func(f *form) { f.field(fieldEnts).setOptions(extraEntitlements(cat, f.field(fieldPlan).choice)) }
	f.changed(f)
	f.keysLine = "tab next " + c.g.dot + " ←/→ plan " + c.g.dot + " j/k space pick " + c.g.dot + " enter generate " + c.g.dot + " esc cancel"
	var in store.GenerateLicensesInput
	f.check = func(f *form) (ok bool) {
		in, ok = readGenerate(c, f, cat)
		return ok
	}
	f.submit = func(f *form) tea.Cmd {
		req, planName := in, cat.plans[f.field(fieldPlan).choice].Name
		return f.run(c, l, "", func(ctx context.Context) (any, error) {
			items, err := c.data.GenerateLicenses(ctx, c.scope(), req)
			if err != nil {
				return nil, err
			}
			return generated{plan: planName, items: items}, nil
		}, l.showGenerated)
	}
	return f
}

// readGenerate checks the form and builds the request; errors go under the
// fields.
func readGenerate(c *ctx, f *form, cat catalogMsg) (store.GenerateLicensesInput, bool) {
	var in store.GenerateLicensesInput
	ok := true
	bad := func(name, msg string) {
		f.invalid(name, msg)
		ok = false
	}
	if len(cat.plans) == 0 {
		bad(fieldPlan, "no plan: create one first (n on Plans, tab 8)")
	} else {
		in.PlanID = cat.plans[f.field(fieldPlan).choice].ID
	}
	n, err := strconv.Atoi(f.get(fieldQuantity))
	if err != nil || store.CheckQuantity(n) != nil {
		bad(fieldQuantity, fmt.Sprintf("a number from 1 to %d", store.MaxGenerate))
	}
	in.Quantity = n
	if t, err := parseExpiry(f.get(fieldExpires), c.now()); err != nil {
		bad(fieldExpires, err.Error())
	} else {
		in.ExpiresAt = t
	}
	for _, k := range f.field(fieldEnts).values() {
		for _, e := range cat.ents {
			if e.Key == k {
				in.EntitlementIDs = append(in.EntitlementIDs, e.ID)
			}
		}
	}
	return in, ok
}

// extraEntitlements are the keys of the entitlements that plan number
// plan of cat does not grant already (docs/tui.md §8.2).
func extraEntitlements(cat catalogMsg, plan int) []string {
	out := []string{} // a multi-select with nothing to pick is still one
	for _, e := range cat.ents {
		if plan < len(cat.plans) && slices.ContainsFunc(cat.plans[plan].Entitlements, func(r store.EntitlementRef) bool { return r.ID == e.ID }) {
			continue
		}
		out = append(out, e.Key)
	}
	return out
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

// generated is the answer of a generation.
type generated struct {
	plan  string
	items []*store.LicenseItem
}

// showGenerated opens the result screen of a generation over the list
// reloaded with the new rows (an actionMsg.onResult). esc goes back to
// that list on page 1, where the new rows are (newest first), marked for a
// bulk action (docs/tui.md §8.2); a filter that could hide them is cleared.
func (l *list) showGenerated(val any) tea.Cmd {
	v := val.(generated)
	l.q, l.marked, l.flush = query{}, map[string]any{}, true
	for _, it := range v.items {
		l.marked[it.ID] = it
	}
	return tea.Batch(l.fetch(l.c, 1, placement{}), push(newGenerated(l.c, l.spec, v)), status(fmt.Sprintf("%s Generated %d licenses", l.c.g.ok, len(v.items)), false))
}

// newGenerated is the result screen: the new keys, to copy or open, in
// the columns of licenses, the spec of the list they were generated from.
func newGenerated(c *ctx, licenses *listSpec, g generated) screen {
	spec := *licenses
	spec.name, spec.paged, spec.create, spec.actions = fmt.Sprintf("Generated %d %s licenses", len(g.items), g.plan), false, nil, nil
	items := g.items
	spec.fetch = withDeviceLimits(whole(func(ctx context.Context, c *ctx) ([]*store.LicenseItem, error) { return items, nil }))
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
	f, err := createNew(path)
	if err != nil {
		return err
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

// createNew creates a file that must not exist yet, readable by its owner
// only; the errors name the path field.
func createNew(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, store.Invalid("path", "%s exists; choose another name", path)
	}
	if err != nil {
		return nil, store.Invalid("path", "cannot create %s: %v", path, errors.Unwrap(err))
	}
	return f, nil
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
