package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"licensectl/store"
)

// maxBody is the largest request body accepted (docs/design.md §7).
const maxBody = 1 << 20

// decode reads a JSON object body into v (docs/design.md §7): a field v does
// not name is validation_failed naming it, so a typo such as max_device is
// refused instead of silently ignored; null, a non-object or malformed JSON
// is invalid_json; a field of the wrong type is validation_failed naming the
// field.
func decode(r *http.Request, v any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	return decodeBytes(body, v)
}

// readBody reads the whole request body: body_too_large past maxBody.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, store.Errorf(store.ECodeBodyTooLarge, "request body exceeds 1 MiB")
		}
		return nil, store.Errorf(store.ECodeInvalidJSON, "could not read the request body")
	}
	return body, nil
}

// decodeBytes is decode of a body already read.
func decodeBytes(body []byte, v any) error {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return store.Errorf(store.ECodeInvalidJSON, "a JSON object body is required")
	}
	// json.Unmarshal takes null as "leave v alone" and would let an empty
	// change through; the body must be an object.
	if body[0] != '{' {
		return store.Errorf(store.ECodeInvalidJSON, "the body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("invalid character after top-level value")
	}
	if err == nil {
		if rest := bytes.TrimSpace(body[dec.InputOffset():]); len(rest) > 0 {
			err = errors.New("invalid character after top-level value")
		}
	}
	if err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := te.Field
			if field == "" {
				return store.Errorf(store.ECodeInvalidJSON, "the body must be a JSON object")
			}
			return store.Invalid(field, "%s must be of type %s", field, jsonType(te.Type.String()))
		}
		var tpe *time.ParseError
		if errors.As(err, &tpe) {
			return store.Errorf(store.ECodeValidation, "a timestamp is not RFC 3339")
		}
		if field, ok := unknownField(err); ok {
			return store.Invalid(field, "unknown field %s", field)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return store.Errorf(store.ECodeInvalidJSON, "malformed JSON: unexpected end of JSON input")
		}
		return store.Errorf(store.ECodeInvalidJSON, "malformed JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return refuseNulls(body, v)
}

// refuseNulls refuses a null in a field of the request type v that is not
// tagged nullable:"true". encoding/json takes null as "leave the field
// alone", so `"ttl": null` would pass for a field left out and get its
// default (the longest machine file) instead of the refusal any other
// value of the wrong type gets. A field tagged nullable (a PATCH field
// whose null clears it) keeps its null; the OpenAPI document declares the
// same fields nullable. v other than a pointer to a struct (a body read
// field by field) is left to its reader.
func refuseNulls(body []byte, v any) error {
	if !bytes.Contains(body, []byte("null")) {
		return nil
	}
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return nil // decoded already; a body that does not split into fields has none to check
	}
	rules := bodyFieldsOf(t.Elem())
	names := make([]string, 0, len(fields))
	for name, raw := range fields {
		if isNull(raw) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		if f, ok := rules[name]; ok && !f.nullable {
			return store.Invalid(name, "%s must be of type %s, not null: leave it out for the default", name, f.typ)
		}
	}
	return nil
}

// bodyField is what refuseNulls knows of one field of a request type.
type bodyField struct {
	typ      string // its JSON type, for the message
	nullable bool
}

var bodyFields sync.Map // reflect.Type → map[string]bodyField

// bodyFieldsOf lists the JSON fields of the struct type t, embedded
// structs' included, by name.
func bodyFieldsOf(t reflect.Type) map[string]bodyField {
	if m, ok := bodyFields.Load(t); ok {
		return m.(map[string]bodyField)
	}
	m := map[string]bodyField{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if name == "" {
				name = f.Name
			}
			m[name] = bodyField{typ: jsonTypeOf(f.Type), nullable: f.Tag.Get("nullable") == "true"}
		}
	}
	walk(t)
	bodyFields.Store(t, m)
	return m
}

// jsonTypeOf names the JSON type of a field of Go type t.
func jsonTypeOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[time.Time](), t.Kind() == reflect.String:
		return "string"
	case t.Kind() == reflect.Struct:
		return "object"
	}
	return jsonType(t.String())
}

// unknownField names the field of encoding/json's DisallowUnknownFields
// error, which has no type of its own: `json: unknown field "name"`.
func unknownField(err error) (string, bool) {
	rest, ok := strings.CutPrefix(err.Error(), `json: unknown field "`)
	if !ok {
		return "", false
	}
	name, ok := strings.CutSuffix(rest, `"`)
	return name, ok
}

func jsonType(goType string) string {
	switch {
	case strings.HasPrefix(goType, "*"):
		return jsonType(goType[1:])
	case strings.HasPrefix(goType, "[]"):
		return "array"
	case strings.HasPrefix(goType, "map"), strings.HasPrefix(goType, "json.RawMessage"):
		return "object"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		// 2.5, 1e3 and "2" all fail here: "number" would read as a contradiction.
		return "integer"
	case strings.HasPrefix(goType, "float"):
		return "number"
	case goType == "bool":
		return "boolean"
	}
	return goType
}

// decodeOptional is decode that accepts an empty body.
func decodeOptional(r *http.Request, v any) error {
	if r.ContentLength == 0 && r.Header.Get("Transfer-Encoding") == "" {
		return nil
	}
	err := decode(r, v)
	if store.ErrorCode(err) == store.ECodeInvalidJSON && strings.Contains(store.ErrorMessage(err), "is required") {
		return nil
	}
	return err
}

// pageRequest reads the page, per_page and cursor query parameters.
func pageRequest(r *http.Request) (store.PageRequest, error) {
	p := store.PageRequest{Cursor: r.URL.Query().Get("cursor")}
	for _, f := range []struct {
		name string
		dst  *int
	}{{"page", &p.Page}, {"per_page", &p.PerPage}} {
		v := r.URL.Query().Get(f.name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return p, store.Invalid(f.name, "%s must be an integer", f.name)
		}
		if n == 0 {
			n = -1 // an explicit 0 is out of range, not "use the default"
		}
		*f.dst = n
	}
	return p, p.Normalize()
}

// mapList maps a slice through fn, never returning nil (an empty list is []).
func mapList[S, T any](in []S, fn func(S) T) []T {
	out := make([]T, 0, len(in))
	for _, v := range in {
		out = append(out, fn(v))
	}
	return out
}

// requireString reports a missing or blank required field.
func requireString(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return store.Invalid(field, "%s is required", field)
	}
	return nil
}
