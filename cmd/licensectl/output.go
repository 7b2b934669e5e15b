package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
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
}

// outputFor reads -o for cmd and checks that the command supports it.
func outputFor(cmd *cobra.Command, allowed ...string) (*output, error) {
	f, _ := cmd.Flags().GetString(flagOutput)
	f = strings.ToLower(strings.TrimSpace(f))
	if !slices.Contains(allowed, f) {
		return nil, usageErrorf("invalid output format %q for %s: use %s", f, cmd.CommandPath(), strings.Join(allowed, ", "))
	}
	return &output{format: f, w: cmd.OutOrStdout()}, nil
}

// json writes v as indented JSON.
func (o *output) json(v any) error {
	enc := json.NewEncoder(o.w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// line writes one line.
func (o *output) line(s string) error {
	_, err := fmt.Fprintln(o.w, s)
	return err
}

// emit writes v as JSON, or calls table for the human format.
func (o *output) emit(v any, table func(t *table)) error {
	if o.format == fmtJSON {
		return o.json(v)
	}
	t := newTable(o.w)
	table(t)
	return t.flush()
}

// table is an aligned text table (or a list of fields) for humans.
type table struct {
	tw *tabwriter.Writer
}

func newTable(w io.Writer) *table {
	return &table{tw: tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)}
}

// row writes one row of cells.
func (t *table) row(cells ...string) {
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

// field writes one "NAME:  value" line of a detail view.
func (t *table) field(name, value string) {
	fmt.Fprintf(t.tw, "%s:\t%s\n", name, value)
}

func (t *table) flush() error { return t.tw.Flush() }

// cut shortens s to at most n characters, marking the cut, so a column of
// free text cannot push a table past 80 columns.
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
