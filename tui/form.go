package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// fieldForm is a form whose request is running: a server error that names
// one of its fields is put back under that field and the form reopens.
type fieldForm interface {
	overlay
	fail(err error) bool
}

// field is one row of a form: typed text (masked for a password), a
// choice among fixed options, or several of them (multi).
type field struct {
	name     string // the store.Error.Field it answers to
	label    string
	in       input
	options  []string // a choice field when set
	choice   int
	multi    bool            // a multi-select over options
	picked   map[string]bool // a multi-select's chosen options
	at       int             // a multi-select's cursor among the options
	required bool
	hint     string // shown under the field while it has no error
	// show draws a choice field's value when the option alone says too
	// little (a plan with its limits); it is also called with no options.
	show func(f *field) string
}

// textField is a field the user types into.
func textField(name, label string, required bool) *field {
	return &field{name: name, label: label, required: required}
}

// passwordField is a text field drawn as asterisks.
func passwordField(name, label string) *field {
	f := textField(name, label, true)
	f.in.mask = true
	return f
}

// choiceField cycles among options with ←/→ (h/l) or space; the first is
// chosen.
func choiceField(name, label string, options ...string) *field {
	if options == nil {
		options = []string{} // a choice with nothing to choose, still a choice
	}
	return &field{name: name, label: label, options: options}
}

// multiField picks any number of options: j/k (↑/↓) move among them and
// space picks or drops one (docs/tui.md §5.8, §8.2).
func multiField(name, label string, options ...string) *field {
	f := choiceField(name, label, options...)
	f.multi, f.picked = true, map[string]bool{}
	return f
}

// values are a multi-select's picked options, in the options' order.
func (f *field) values() []string {
	var out []string
	for _, o := range f.options {
		if f.picked[o] {
			out = append(out, o)
		}
	}
	return out
}

// setOptions replaces a multi-select's options (they depend on another
// field); picks that are still offered stay picked.
func (f *field) setOptions(options []string) {
	for o := range f.picked {
		if !slices.Contains(options, o) {
			delete(f.picked, o)
		}
	}
	f.options = options
	f.at = min(f.at, max(0, len(options)-1))
}

// pick applies a key of a multi-select: j/k (↑/↓) move its cursor and
// space toggles the option under it. It reports whether the key was the
// field's: ↑/↓ past either end are not, and move to the next field.
func (f *field) pick(k tea.KeyMsg) bool {
	switch k.String() {
	case "j", "down":
		if f.at+1 < len(f.options) {
			f.at++
			return true
		}
		return k.String() == "j"
	case "k", "up":
		if f.at > 0 {
			f.at--
			return true
		}
		return k.String() == "k"
	case " ":
		if len(f.options) > 0 {
			o := f.options[f.at]
			f.picked[o] = !f.picked[o]
			f.in.err = ""
		}
		return true
	}
	return false
}

// value is the typed text, trimmed, the chosen option ("" when there is
// none to choose), or a multi-select's picks joined with commas.
func (f *field) value() string {
	if f.multi {
		return strings.Join(f.values(), ",")
	}
	if f.options != nil {
		if len(f.options) == 0 {
			return ""
		}
		return f.options[f.choice]
	}
	return f.in.text()
}

// choose moves the choice by step, round the options.
func (f *field) choose(step int) {
	if n := len(f.options); n > 0 {
		f.choice = (f.choice + step + n) % n
		f.in.err = "" // as typing clears a text field's
	}
}

// raw is the typed text as typed: a password's spaces are part of it.
func (f *field) raw() string { return string(f.in.value) }

// set fills a text field with a default, or chooses an option (picks
// it, in a multi-select).
func (f *field) set(v string) *field {
	if f.options == nil {
		f.in.set(v)
		return f
	}
	if f.multi {
		f.picked[v] = slices.Contains(f.options, v)
		return f
	}
	for i, o := range f.options {
		if o == v {
			f.choice = i
		}
	}
	return f
}

// form is a modal of several fields. tab and shift+tab move between them;
// enter on the last field or ctrl+s submits; esc cancels. Missing required
// fields and check's complaints are shown under their fields before
// anything is sent.
type form struct {
	title  string
	verb   string // what submitting does, for the footer ("create")
	fields []*field
	focus  int
	// compact draws "label: value" lines without aligning the labels, for
	// labels that explain their field at length; enterSends makes enter
	// submit from any field; keysLine replaces the generated keys line.
	// The generation form is all three: one screen of one request.
	compact    bool
	enterSends bool
	keysLine   string
	// check adds the form's own rules (two passwords agree); it sets the
	// fields' errors and reports whether the form may be sent.
	check func(f *form) bool
	// submit sends the form; it runs in Update, so it only returns a command.
	submit func(f *form) tea.Cmd
	// changed, when set, runs after every key the form applies: a field
	// whose options depend on another follows it.
	changed func(f *form)
	// err is a server's validation error that names no field of the form,
	// shown at its foot until the next send.
	err string
}

func newForm(title, verb string, fields ...*field) *form {
	return &form{title: title, verb: verb, fields: fields}
}

func (*form) takesText() {}

// get is the value of the named field.
func (f *form) get(name string) string {
	if fl := f.field(name); fl != nil {
		return fl.value()
	}
	return ""
}

func (f *form) field(name string) *field {
	for _, fl := range f.fields {
		if fl.name == name {
			return fl
		}
	}
	return nil
}

// invalid puts msg under the named field.
func (f *form) invalid(name, msg string) {
	if fl := f.field(name); fl != nil {
		fl.in.err = msg
	}
}

func (f *form) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	done, cmd := f.apply(k)
	if !done && f.changed != nil {
		f.changed(f)
	}
	return done, cmd
}

// apply is key without the changed hook.
func (f *form) apply(k tea.KeyMsg) (bool, tea.Cmd) {
	cur := f.fields[f.focus]
	if cur.multi && !k.Alt && cur.pick(k) {
		return false, nil
	}
	switch k.Type {
	case tea.KeyEsc:
		return true, status("Cancelled", false)
	case tea.KeyTab, tea.KeyDown:
		f.focus = (f.focus + 1) % len(f.fields)
		return false, nil
	case tea.KeyShiftTab, tea.KeyUp:
		f.focus = (f.focus + len(f.fields) - 1) % len(f.fields)
		return false, nil
	case tea.KeyEnter:
		if f.focus < len(f.fields)-1 && !f.enterSends {
			f.focus++
			return false, nil
		}
		return f.send()
	case tea.KeyCtrlS:
		return f.send()
	}
	if cur.options != nil && !cur.multi {
		switch k.String() {
		case "left", "h":
			cur.choose(-1)
		case "right", "l", " ":
			cur.choose(1)
		}
		return false, nil
	}
	if !cur.multi {
		cur.in.key(k)
	}
	return false, nil
}

// send checks the form and submits it; the form stays open when it is not
// ready, with the focus on the first field in error.
func (f *form) send() (bool, tea.Cmd) {
	f.err = ""
	ok := true
	for _, fl := range f.fields {
		if fl.required && fl.value() == "" {
			fl.in.err, ok = "required", false
		}
	}
	if ok && f.check != nil {
		ok = f.check(f)
	}
	if !ok {
		for i, fl := range f.fields {
			if fl.in.err != "" {
				f.focus = i
				break
			}
		}
		return false, nil
	}
	return true, f.submit(f)
}

// run sends the form's request through c.actThen on l's behalf (onResult
// may be nil). l keeps the form so that a validation error naming a field
// reopens it there.
func (f *form) run(c *ctx, l *list, done string, fn func(ctx context.Context) (any, error), onResult func(any) tea.Cmd) tea.Cmd {
	l.form = f
	return c.actThen(l.ctx, l.sid, done, fn, onResult)
}

// fail keeps a server's validation error in the form: under the field it
// names, else at the form's foot (docs/tui.md §12). Over HTTP the error
// carries no Field, only a message that names the field first ("url must
// be …", docs/design.md §7), so the field is read from the message then.
// It reports whether the error was a validation error; any other error
// closes the form and goes to the status line.
func (f *form) fail(err error) bool {
	e := store.AsError(err)
	if e == nil || e.Code != store.ECodeValidation && e.Field == "" {
		return false
	}
	fl := f.field(e.Field)
	if fl == nil && e.Field == "" {
		first, _, _ := strings.Cut(e.Message, " ")
		fl = f.field(first)
	}
	if fl == nil {
		f.err = store.ErrorMessage(err)
		return true
	}
	fl.in.err = store.ErrorMessage(err)
	for i := range f.fields {
		if f.fields[i] == fl {
			f.focus = i
		}
	}
	return true
}

func (f *form) view(c *ctx, w, h int) []string {
	lw := 0
	for _, fl := range f.fields {
		lw = max(lw, width(fl.label))
	}
	var lines []string
	for i, fl := range f.fields {
		marker := "  "
		if i == f.focus {
			marker = c.g.cursor + " "
		}
		v := fl.in.view(i == f.focus)
		switch {
		case fl.multi:
			v = strings.Join(fl.values(), ", ")
			if v == "" {
				v = "none"
			}
		case fl.show != nil:
			v = fl.show(fl)
		case fl.options != nil:
			v = "< " + fl.value() + " >"
			if len(fl.options) > 1 {
				v += "  " + strings.Join(fl.options, "/")
			}
		}
		label, indent := c.g.padRight(fl.label+":", lw+1), strings.Repeat(" ", lw+4)
		if f.compact {
			label, indent = fl.label+":", "    "
		}
		lines = append(lines, marker+label+" "+v)
		if fl.multi && i == f.focus {
			lines = append(lines, fl.optionLines(c, strings.Repeat(" ", width(indent)-2), max(3, min(8, h-len(f.fields)-6)))...)
		}
		note := fl.hint
		if fl.in.err != "" {
			note = c.g.fail + " " + fl.in.err
		}
		for _, l := range wrapWords(note, w-4-width(indent)) {
			lines = append(lines, indent+l)
		}
	}
	if f.err != "" {
		lines = append(lines, wrapWords(c.g.fail+" "+f.err, w-4)...)
	}
	lines = append(lines, wrapWords(f.keys(c), w-4)...)
	return box(c, f.title, lines, w)
}

// optionLines draws a multi-select's options, [x] when picked, with the
// cursor on one; a window of at most rows follows the cursor, and a last
// line counts the options out of it.
func (f *field) optionLines(c *ctx, indent string, rows int) []string {
	if len(f.options) == 0 {
		return []string{indent + "  (nothing to choose)"}
	}
	top := min(max(0, f.at-rows/2), max(0, len(f.options)-rows))
	var out []string
	for i := top; i < min(len(f.options), top+rows); i++ {
		box, cur := "[ ]", "  "
		if f.picked[f.options[i]] {
			box = "[x]"
		}
		if i == f.at {
			cur = c.g.cursor + " "
		}
		out = append(out, indent+cur+box+" "+store.Printable(f.options[i]))
	}
	if hidden := len(f.options) - len(out); hidden > 0 {
		out = append(out, fmt.Sprintf("%s  %s %d more (j/k)", indent, c.g.ellipsis, hidden))
	}
	return out
}

// keys is the form's keys line: what tab, ←/→, enter and esc do here.
func (f *form) keys(c *ctx) string {
	if f.keysLine != "" {
		return f.keysLine
	}
	keys := "tab next " + c.g.dot + " "
	if cur := f.fields[f.focus]; cur.multi {
		keys += "j/k move " + c.g.dot + " space pick " + c.g.dot + " "
	} else {
		for _, fl := range f.fields {
			if len(fl.options) > 1 && !fl.multi {
				keys += "←/→ choose " + c.g.dot + " "
				break
			}
		}
	}
	if f.focus == len(f.fields)-1 {
		keys += "enter/ctrl+s " + f.verb
	} else {
		keys += "enter next " + c.g.dot + " ctrl+s " + f.verb
	}
	return keys + " " + c.g.dot + " esc cancel"

}

// wrapWords breaks s into lines of at most w cells at spaces. A word
// longer than w breaks after a "/" or "-" in it that keeps the piece
// within w, and is cut only when it has none.
func wrapWords(s string, w int) []string {
	var words []string
	for _, word := range strings.Fields(s) {
		for w > 0 && width(word) > w {
			head, rest := splitWord(word, w)
			words = append(words, head)
			word = rest
		}
		words = append(words, word)
	}
	var out []string
	line := ""
	for _, word := range words {
		switch {
		case line == "":
			line = word
		case width(line)+1+width(word) <= w:
			line += " " + word
		default:
			out = append(out, line)
			line = word
		}
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// splitWord cuts a word longer than w into a head of at most w cells and
// the rest, after the last "/" or "-" that fits when there is one.
func splitWord(word string, w int) (string, string) {
	r := []rune(word)
	cut := min(len(r), w)
	for i := cut; i > 0; i-- {
		if r[i-1] == '/' || r[i-1] == '-' {
			cut = i
			break
		}
	}
	return string(r[:cut]), string(r[cut:])
}
