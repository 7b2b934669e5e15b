package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"licensectl/store"
)

// Output formats.
const (
	fmtTable = "table"
	fmtJSON  = "json"
	fmtCSV   = "csv"
	fmtKeys  = "keys"
)

// output writes a command's result in the format chosen with -o.
type output struct {
	format string
	w      io.Writer
	tty    bool // w is a terminal: tables may shorten free text to fit
}

// outputFor reads -o for cmd and checks that the command supports it; list
// commands (csvList) support csv as well.
func outputFor(cmd *cobra.Command, allowed ...string) (*output, error) {
	f, _ := cmd.Flags().GetString(flagOutput)
	f = strings.ToLower(strings.TrimSpace(f))
	if cmd.Annotations[annCSV] != "" && !slices.Contains(allowed, fmtCSV) {
		allowed = append(slices.Clip(allowed), fmtCSV)
	}
	if cmd.Annotations[annKeys] != "" && !slices.Contains(allowed, fmtKeys) {
		allowed = append(slices.Clip(allowed), fmtKeys)
	}
	if !slices.Contains(allowed, f) {
		return nil, usageErrorf("invalid output format %q for %s: use %s", f, cmd.CommandPath(), strings.Join(allowed, ", "))
	}
	w := cmd.OutOrStdout()
	file, ok := w.(*os.File)
	return &output{format: f, w: w, tty: ok && term.IsTerminal(int(file.Fd()))}, nil
}

// json writes v as indented JSON, with every rune a terminal would act on
// escaped the JSON way (store.PrintableJSON): the values are exact, and
// stored text cannot drive the terminal it is printed to (docs/design.md §8).
func (o *output) json(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := o.w.Write(store.PrintableJSON(buf.Bytes()))
	return err
}

// line writes one line, escaped as every text output is (store.Printable).
func (o *output) line(s string) error {
	_, err := fmt.Fprintln(o.w, store.Printable(s))
	return err
}

// emit writes v as JSON or CSV, or calls table for the human format.
func (o *output) emit(v any, table func(t *table)) error {
	switch o.format {
	case fmtJSON:
		return o.json(v)
	case fmtCSV:
		return writeCSV(o.w, v)
	}
	t := newTable(o.w)
	t.fit = o.tty
	table(t)
	return t.flush()
}

// table is an aligned text table (or a list of fields) for humans.
type table struct {
	tw  *tabwriter.Writer
	fit bool // shorten free text (text) to keep rows within a terminal
}

func newTable(w io.Writer) *table {
	return &table{tw: tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)}
}

// text is a cell of free text (a name, a label): on a terminal it is cut to
// n characters so a row fits; piped or redirected, it is whole. Identifiers
// (ids, slugs, keys, e-mails, fingerprints) are never passed through text.
func (t *table) text(s string, n int) string {
	if !t.fit {
		return s
	}
	return cut(s, n)
}

// row writes one row of cells. Cells are escaped here, in the one place
// every table passes through: stored text written before the input rules
// existed may hold controls that would drive the terminal (or a tab that
// would break the columns).
func (t *table) row(cells ...string) {
	fmt.Fprintln(t.tw, strings.Join(printable(cells), "\t"))
}

// field writes one "NAME:  value" line of a detail view, escaped as row is.
func (t *table) field(name, value string) {
	fmt.Fprintf(t.tw, "%s:\t%s\n", store.Printable(name), store.Printable(value))
}

// printable escapes every cell (store.Printable) in place.
func printable(cells []string) []string {
	for i, c := range cells {
		cells[i] = store.Printable(c)
	}
	return cells
}

func (t *table) flush() error { return t.tw.Flush() }

// cut shortens s to at most n characters, marking the cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// day formats a time as a date for tables; zero and nil are "-".
func day(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02")
}

// dayp is day for nullable times.
func dayp(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return day(*t)
}

// stamp formats a time in full for detail views.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// stampp is stamp for nullable times.
func stampp(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return stamp(*t)
}

// orDash shows "-" for an empty string.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
