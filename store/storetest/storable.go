package storetest

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"licensectl/store"
)

// nulText is the text no backend can keep: PostgreSQL's text refuses the NUL.
const nulText = "nul\x00text"

// testStorable sends a NUL character through every string the Backend and
// its runtime API take, one at a time, in every argument and every field of
// every argument (inputs, filters, scopes, lookups), the rest of the call
// being well formed. The methods and fields are found by reflection, so one
// added later is swept too. Each call must be refused with validation_failed
// naming a field, or answered exactly as the same call naming some other
// unknown value is (an id that names nothing is not_found, a credential that
// matches none unauthenticated): the NUL never reaches the store's text
// (PostgreSQL would answer an internal error), never panics, and tells
// nothing apart. A filter is always refused: its value would be compared.
func testStorable(t *testing.T, open Opener) {
	f := newFixture(t, open)
	// A plan and a license, so that the store has records to compare with.
	f.licenses(t, store.PlanInput{Name: ptr("Sweep")}, 1)
	skip := map[string]bool{
		"Close":       true, // ends the store
		"OpenRuntime": true, // takes options, not input
		"Enqueued":    true,
	}
	targets := []struct {
		what string
		impl reflect.Value
		typ  reflect.Type
	}{
		{"Backend", reflect.ValueOf(f.be), reflect.TypeFor[store.Backend]()},
		{"Runtime", reflect.ValueOf(f.runtime()), reflect.TypeFor[store.RuntimeBackend]()},
	}
	swept := 0
	for _, target := range targets {
		for i := range target.typ.NumMethod() {
			m := target.typ.Method(i)
			if skip[m.Name] {
				continue
			}
			fn := target.impl.MethodByName(m.Name)
			for argIdx := range m.Type.NumIn() {
				argType := m.Type.In(argIdx)
				filter := strings.HasSuffix(argType.Name(), "Filter")
				for _, pos := range stringPositions(argType, 0) {
					what := fmt.Sprintf("%s.%s(arg %d%s)", target.what, m.Name, argIdx, pos.label)
					swept++
					t.Run(m.Name+pos.label, func(t *testing.T) {
						args := f.baselineArgs(m.Type)
						setText(args[argIdx], pos.path, fmt.Sprintf("unknown-%d", seq.Add(1)))
						plain := callForError(t, what, fn, args)
						args = f.baselineArgs(m.Type)
						setText(args[argIdx], pos.path, nulText)
						err := callForError(t, what, fn, args)
						code := store.ErrorCode(err)
						switch {
						case code == store.ECodeValidation:
							if store.AsError(err).Field == "" {
								t.Fatalf("%s with a NUL: %v names no field", what, err)
							}
						case filter:
							t.Fatalf("%s with a NUL: error %v (code %q), want %q", what, err, code, store.ECodeValidation)
						case err != nil && code == store.ECodeInternal:
							t.Fatalf("%s with a NUL: internal error %v", what, err)
						case code != store.ErrorCode(plain) || (err == nil) != (plain == nil):
							t.Fatalf("%s with a NUL: error %v (code %q), but %v (code %q) for an unknown value; want the same or %q",
								what, err, code, plain, store.ErrorCode(plain), store.ECodeValidation)
						}
					})
				}
			}
		}
	}
	if swept < 200 {
		t.Fatalf("swept only %d strings: the sweep found too few", swept)
	}
}

// position is a string inside an argument: the field path to it and how a
// test names it.
type position struct {
	path  []int
	label string
}

// stringPositions lists the strings a value of type t holds, up to a few
// levels of nested structs.
func stringPositions(t reflect.Type, depth int) []position {
	if depth > 4 {
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		return []position{{}}
	case reflect.Pointer, reflect.Slice:
		if t.Elem().Kind() == reflect.String || t.Elem().Kind() == reflect.Struct && t.Kind() == reflect.Pointer {
			return stringPositions(t.Elem(), depth+1)
		}
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return []position{{}}
		}
	case reflect.Struct:
		if t.PkgPath() != "licensectl/store" {
			return nil
		}
		var out []position
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			for _, p := range stringPositions(sf.Type, depth+1) {
				if !sf.Anonymous {
					p.label = "." + sf.Name + p.label
				}
				out = append(out, position{path: append([]int{i}, p.path...), label: p.label})
			}
		}
		return out
	}
	return nil
}

// setText puts text at path inside v, allocating what it passes through.
func setText(v reflect.Value, path []int, text string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(text)
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		setText(v.Elem(), path, text)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		setText(s.Index(0), path, text)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		m.SetMapIndex(reflect.ValueOf(text), reflect.Zero(v.Type().Elem()))
		v.Set(m)
	case reflect.Struct:
		setText(v.Field(path[0]), path[1:], text)
	}
}

// baselineArgs are well-formed arguments for a method of type mt: the
// fixture's scope and application, fresh ids for strings, small numbers.
func (f *fixture) baselineArgs(mt reflect.Type) []reflect.Value {
	args := make([]reflect.Value, mt.NumIn())
	for i := range args {
		t := mt.In(i)
		v := reflect.New(t).Elem()
		switch x := v.Addr().Interface().(type) {
		case *context.Context:
			*x = f.ctx
		case *store.Scope:
			*x = f.scope(store.EnvProduction)
		case *store.AppRef:
			*x = f.ref()
		case *store.RuntimeClient:
			*x = f.client("")
		case *string:
			*x = store.NewID()
		case *int:
			*x = 1
		case *int64:
			*x = 1
		case *time.Duration:
			*x = time.Minute
		case *time.Time:
			*x = f.clock.Now()
		case *store.Replay:
			*x = f.replay()
		}
		if t.Kind() == reflect.Func {
			v.Set(reflect.MakeFunc(t, func([]reflect.Value) []reflect.Value {
				out := make([]reflect.Value, t.NumOut())
				for j := range out {
					out[j] = reflect.Zero(t.Out(j))
				}
				return out
			}))
		}
		if t.Kind() == reflect.Struct {
			// A runtime input carries its anti-replay fields.
			if r := v.FieldByName("Replay"); r.IsValid() && r.Type() == reflect.TypeFor[store.Replay]() {
				r.Set(reflect.ValueOf(f.replay()))
			}
		}
		args[i] = v
	}
	return args
}

// callForError calls fn, failing the test on a panic, and returns the
// error it answered.
func callForError(t *testing.T, what string, fn reflect.Value, args []reflect.Value) (err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("%s panicked: %v", what, p)
		}
	}()
	out := fn.Call(args)
	if len(out) == 0 {
		return nil
	}
	last := out[len(out)-1]
	if last.Type() != reflect.TypeFor[error]() || last.IsNil() {
		return nil
	}
	return last.Interface().(error)
}
