package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// annCSV marks a list command: it also writes -o csv.
const annCSV = "licensectl/csv"

// annKeys marks a license list command: it also writes -o keys.
const annKeys = "licensectl/keys"

// keysList marks c as a list of licenses whose keys -o keys writes one a
// line.
func keysList(c *cobra.Command) *cobra.Command {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[annKeys] = "true"
	return c
}

// csvList marks c as a list command whose items -o csv writes one per row.
func csvList(c *cobra.Command) *cobra.Command {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[annCSV] = "true"
	return c
}

// writeCSV writes the items of a list view (a slice, a page with a Data
// slice, or an envelope with one slice field such as {plans: […]}) as CSV: one row per item, the columns named like the JSON fields,
// nested objects flattened with "_" (plan_id, plan_name), lists joined with
// spaces, times in RFC 3339 UTC, null as an empty cell. Nothing is cut.
func writeCSV(w io.Writer, v any) error {
	items := reflect.Indirect(reflect.ValueOf(v))
	if items.Kind() == reflect.Struct {
		items = listField(items)
	}
	if items.Kind() != reflect.Slice {
		return fmt.Errorf("csv: %T is not a list", v)
	}
	cw := csv.NewWriter(w)
	elem := items.Type().Elem()
	for elem.Kind() == reflect.Pointer {
		elem = elem.Elem()
	}
	var header []string
	flatten(elem, "", func(name string, _ []int) { header = append(header, name) })
	if err := cw.Write(header); err != nil {
		return err
	}
	for i := range items.Len() {
		item := reflect.Indirect(items.Index(i))
		var row []string
		flatten(elem, "", func(_ string, path []int) { row = append(row, cell(fieldAt(item, path))) })
		if err := cw.Write(csvCells(row)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvCells readies a row for CSV: a cell a spreadsheet would take for a
// formula (docs/design.md §8: it begins with =, +, -, @, tab or CR) gets a
// leading ', since fingerprints and e-mails are chosen by end-users and a
// vendor opens the export in a spreadsheet; then every cell is escaped as
// all text output is.
func csvCells(cells []string) []string {
	for i, c := range cells {
		if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
			cells[i] = "'" + c
		}
	}
	return printable(cells)
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// flatten calls column for every CSV column of struct type t, in field
// order, with its name and its field index path.
func flatten(t reflect.Type, prefix string, column func(name string, path []int), path ...int) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := append(append([]int{}, path...), i)
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && ft != timeType {
			flatten(ft, prefix+name+"_", column, p...)
			continue
		}
		column(prefix+name, p)
	}
}

// fieldAt follows path from v; a nil pointer on the way reads as invalid.
func fieldAt(v reflect.Value, path []int) reflect.Value {
	for _, i := range path {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v
}

// cell formats one value for CSV.
func cell(v reflect.Value) string {
	for v.IsValid() && v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return ""
	}
	switch {
	case v.Type() == timeType:
		t := v.Interface().(time.Time)
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	case v.Type() == rawType:
		if s := string(v.Bytes()); s != "null" {
			return s
		}
		return ""
	}
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Slice:
		if et := v.Type().Elem(); et.Kind() == reflect.Struct {
			if name := refField(et); name != "" {
				parts := make([]string, v.Len())
				for i := range parts {
					parts[i] = v.Index(i).FieldByName(name).String()
				}
				return strings.Join(parts, " ")
			}
		}
		if v.Type().Elem().Kind() == reflect.String {
			parts := make([]string, v.Len())
			for i := range parts {
				parts[i] = v.Index(i).String()
			}
			return strings.Join(parts, " ")
		}
	case reflect.Bool, reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64:
		return fmt.Sprint(v.Interface())
	}
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return ""
	}
	return string(b)
}

// refField names the field that identifies an element of a list of
// references (entitlements by key, others by id), or "".
func refField(t reflect.Type) string {
	for _, want := range []string{"key", "id"} {
		for i := range t.NumField() {
			f := t.Field(i)
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == want && f.Type.Kind() == reflect.String {
				return f.Name
			}
		}
	}
	return ""
}

// listField is the list an envelope carries: its Data field, or its only
// slice field; the zero Value when there is none.
func listField(v reflect.Value) reflect.Value {
	if d := v.FieldByName("Data"); d.IsValid() {
		return d
	}
	var found reflect.Value
	for i := range v.NumField() {
		if v.Field(i).Kind() == reflect.Slice {
			if found.IsValid() {
				return reflect.Value{}
			}
			found = v.Field(i)
		}
	}
	return found
}
