package tui

import (
	"context"
	"fmt"
	"sort"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// targets are the marked rows a applies to, and those it skips because
// it does not apply to them (already suspended).
func (l *list) targets(a *action) (ts, skipped []any) {
	for _, it := range l.marked {
		if a.when == nil || a.when(it) {
			ts = append(ts, it)
		} else {
			skipped = append(skipped, it)
		}
	}
	// The map's order is random: the run, its failures and the skipped
	// states follow the ids, newest first as the lists show them (UUIDv7).
	for _, s := range [][]any{ts, skipped} {
		sort.Slice(s, func(i, j int) bool { return l.spec.id(s[i]) > l.spec.id(s[j]) })
	}
	return ts, skipped
}

// skipNote says how many marked rows a bulk change skips and why, by their
// state: "(3 already suspended are skipped)".
func (l *list) skipNote(a *action, skipped []any) string {
	if len(skipped) == 0 {
		return ""
	}
	verb := "are"
	if len(skipped) == 1 {
		verb = "is"
	}
	if l.spec.state == nil {
		return fmt.Sprintf(" (%d marked %s skipped: %s does not apply to them)", len(skipped), verb, strings.ToLower(a.verb))
	}
	var states []string
	counts := map[string]int{}
	for _, it := range skipped {
		st := l.spec.state(it)
		if st == a.did {
			st = "already " + st
		}
		if counts[st] == 0 {
			states = append(states, st)
		}
		counts[st]++
	}
	if len(states) == 1 {
		return fmt.Sprintf(" (%d %s %s skipped)", len(skipped), states[0], verb)
	}
	parts := make([]string, len(states))
	for i, st := range states {
		parts[i] = fmt.Sprintf("%d %s", counts[st], st)
	}
	return fmt.Sprintf(" (%d %s skipped: %s)", len(skipped), verb, strings.Join(parts, ", "))
}

// plural is "1 license", "2 licenses", "2 deliveries".
func plural(n int, noun string) string {
	switch {
	case n == 1:
	case strings.HasSuffix(noun, "y") && !strings.HasSuffix(noun, "ey"):
		noun = noun[:len(noun)-1] + "ies"
	default:
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}

// trigger opens the confirmation of a; the change runs only once confirmed.
func (l *list) trigger(c *ctx, a *action) tea.Cmd {
	if a.ask != nil || a.now {
		// These act on the row under the cursor, never on marked rows.
		it := l.current()
		switch {
		case it == nil || a.when != nil && !a.when(it):
			return status(fmt.Sprintf("Nothing to %s here", strings.ToLower(a.verb)), true)
		case a.ask != nil:
			return a.ask(c, l, it)
		}
		return l.runNow(c, a, it)
	}
	if len(l.marked) == 0 {
		it := l.current()
		if it == nil || a.when != nil && !a.when(it) {
			return status(fmt.Sprintf("Nothing to %s here", strings.ToLower(a.verb)), true)
		}
		return confirmAction(c, &l.screenBase, a, l.spec.noun, l.spec.primary(it), it)
	}
	// Marked rows are a bulk change even when one of them is eligible: the
	// dialog names the count and what it skips (docs/tui.md §8.1).
	ts, skipped := l.targets(a)
	if len(ts) == 0 {
		return status(fmt.Sprintf("Nothing to %s among the marked rows%s", strings.ToLower(a.verb), l.skipNote(a, skipped)), true)
	}
	q := fmt.Sprintf("%s %s in %s?%s", a.verb, plural(len(ts), l.spec.noun), strings.ToUpper(c.env), l.skipNote(a, skipped))
	word := a.word
	if word != "" {
		word = fmt.Sprint(len(ts))
	}
	var cons []string
	if a.consequence != nil {
		cons = a.consequence(c, ts[0])
	}
	return openOverlay(newConfirm(c, q, cons, word, func() tea.Cmd {
		l.bulk = &bulkRun{a: a, items: ts, fails: map[string]int{}}
		return l.bulkNext(c)
	}))
}

// confirmAction asks before running a on it; name is what the question
// calls it.
func confirmAction(c *ctx, sb *screenBase, a *action, noun, name string, it any) tea.Cmd {
	q := fmt.Sprintf("%s %s %s in %s?", a.verb, noun, c.label(name), strings.ToUpper(c.env))
	var cons []string
	if a.consequence != nil {
		cons = a.consequence(c, it)
	}
	word := a.word
	if a.wordFor != nil {
		word = a.wordFor(it)
	}
	return openOverlay(newConfirm(c, q, cons, word, func() tea.Cmd {
		return c.act(sb.ctx, sb.sid, fmt.Sprintf("%s %s", capitalize(a.did), c.label(name)), func(ctx context.Context) (any, error) {
			return nil, a.run(ctx, c, it)
		})
	}))
}

// bulkRun is a change applied to marked rows one after another, stoppable
// with esc.
type bulkRun struct {
	a       *action
	items   []any
	i, ok   int
	fails   map[string]int
	failed  []string // "7KQ2M-…-C5VYE: invalid_transition: …", for enter after the run
	stopped bool
}

func (l *list) bulkNext(c *ctx) tea.Cmd {
	b := l.bulk
	if b.stopped || b.i >= len(b.items) {
		return l.bulkDone(c)
	}
	it := b.items[b.i]
	a := b.a
	c.acting++ // a change: q asks before quitting in the middle
	return tea.Batch(
		status(fmt.Sprintf("%s %d/%d%s (esc stops)", a.ing, b.i+1, len(b.items), c.g.ellipsis), false),
		c.load(l.ctx, l.sid, l.gen, "bulk", func(ctx context.Context) (any, error) { return nil, a.run(ctx, c, it) }),
	)
}

func (l *list) bulkStep(c *ctx, msg loadedMsg) tea.Cmd {
	b := l.bulk
	if b == nil {
		return nil
	}
	if msg.err != nil {
		b.fails[store.ErrorCode(msg.err)]++
		b.failed = append(b.failed, c.label(l.spec.primary(b.items[b.i]))+": "+errText(msg.err))
	} else {
		b.ok++
	}
	b.i++
	return l.bulkNext(c)
}

func (l *list) bulkDone(c *ctx) tea.Cmd {
	b := l.bulk
	l.bulk = nil
	l.marked = map[string]any{}
	text := fmt.Sprintf("%s %d %s", c.g.ok, b.ok, b.a.did)
	failed := 0
	var codes []string
	for code, n := range b.fails {
		failed += n
		codes = append(codes, code)
	}
	if failed > 0 {
		sort.Strings(codes)
		text += fmt.Sprintf(" %s %s %d failed (%s) %s enter lists them", c.g.dot, c.g.fail, failed, strings.Join(codes, ", "), c.g.dot)
		l.failures = b.failed
	}
	if b.stopped {
		text += fmt.Sprintf(" %s stopped, %d not done", c.g.dot, len(b.items)-b.i)
	}
	return tea.Batch(status(text, failed > 0), l.reload(c))
}

// label shortens what messages name: a license key to 7KQ2M-…-C5VYE.
func (c *ctx) label(s string) string {
	if store.NormalizeLicenseKey(s) == s && s != "" {
		return c.shortKey(s)
	}
	return store.Printable(s) // a stored name may hold controls (docs/design.md §8)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
