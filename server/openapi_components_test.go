package server

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// Every struct type a body reaches is a named component schema, referred to
// with $ref wherever it is used, so that code generators (oapi-codegen,
// openapi-typescript) make one named type per wire type instead of an
// anonymous struct per use. The name is the Go type's: a route added to the
// table names its bodies by adding them, with no list to keep.

// components collects the named schemas of one document.
type components struct {
	schemas openapi3.Schemas
	// owner is the Go type each name was made from: two wire types of one
	// name (in two packages) must not share a component.
	owner map[string]reflect.Type
}

func newComponents(schemas openapi3.Schemas) *components {
	return &components{schemas: schemas, owner: map[string]reflect.Type{}}
}

var timeType = reflect.TypeFor[time.Time]()

// componentName is the component a struct type is named by: its Go name;
// an instance of a generic type reads as its arguments then the type
// (Page[AuditEntry] is AuditEntryPage). "" for an anonymous struct, which
// stays inline.
func componentName(t reflect.Type) string {
	name := t.Name()
	base, args, generic := strings.Cut(name, "[")
	if generic {
		var parts []string
		for _, a := range strings.Split(strings.TrimSuffix(args, "]"), ",") {
			a = strings.TrimLeft(strings.TrimSpace(a), "*[]")
			if i := strings.LastIndexAny(a, "./"); i >= 0 {
				a = a[i+1:]
			}
			parts = append(parts, a)
		}
		return strings.Join(parts, "") + base
	}
	return base
}

// jsonFieldTypes maps the JSON names of a struct type's fields to their Go
// types, the fields of embedded structs included, as encoding/json sees
// them.
func jsonFieldTypes(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFieldTypes(ft) {
					if _, ok := out[k]; !ok {
						out[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// hoist replaces, in the schema s generated for type t, every object schema
// of a named struct type by a $ref to its component, registering the
// component the first time. A nullable use (a pointer field) refers to the
// component and admits null beside it.
func (c *components) hoist(t reflect.Type, s *openapi3.SchemaRef) (*openapi3.SchemaRef, error) {
	if s == nil || s.Ref != "" || s.Value == nil {
		return s, nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	v := s.Value
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 || v.Items == nil {
			return s, nil
		}
		items, err := c.hoist(t.Elem(), v.Items)
		if err != nil {
			return nil, err
		}
		v.Items = items
		return s, nil
	case reflect.Map:
		if v.AdditionalProperties.Schema != nil {
			elem, err := c.hoist(t.Elem(), v.AdditionalProperties.Schema)
			if err != nil {
				return nil, err
			}
			v.AdditionalProperties.Schema = elem
		}
		return s, nil
	case reflect.Struct:
	default:
		return s, nil
	}
	if t == timeType || t == rawMessageType || v.Type == nil || !v.Type.Includes("object") {
		return s, nil
	}
	fields := jsonFieldTypes(t)
	for _, prop := range slices.Sorted(maps.Keys(v.Properties)) {
		ft, ok := fields[prop]
		if !ok {
			return nil, fmt.Errorf("%s: the schema has a property %q the type lacks", t, prop)
		}
		h, err := c.hoist(ft, v.Properties[prop])
		if err != nil {
			return nil, err
		}
		v.Properties[prop] = h
	}
	name := componentName(t)
	if name == "" {
		return s, nil
	}
	nullable := v.Type.Includes("null")
	if nullable {
		// The type is an object; the field that points to it may be null.
		cp := *v
		types := slices.DeleteFunc(slices.Clone(*v.Type), func(s string) bool { return s == "null" })
		cp.Type = (*openapi3.Types)(&types)
		v = &cp
	}
	if err := c.add(name, t, v); err != nil {
		return nil, err
	}
	ref := openapi3.NewSchemaRef("#/components/schemas/"+name, nil)
	if nullable {
		null := &openapi3.Schema{Type: &openapi3.Types{"null"}}
		return &openapi3.SchemaRef{Value: &openapi3.Schema{AnyOf: openapi3.SchemaRefs{ref, null.NewRef()}}}, nil
	}
	return ref, nil
}

// add registers schema v as component name, made from type t. A name met
// again must come with the same type and the same schema.
func (c *components) add(name string, t reflect.Type, v *openapi3.Schema) error {
	if prev, ok := c.owner[name]; ok {
		if prev != t {
			return fmt.Errorf("two wire types are named %s (%s and %s): rename one", name, prev, t)
		}
		a, _ := json.Marshal(c.schemas[name].Value)
		b, _ := json.Marshal(v)
		if string(a) != string(b) {
			return fmt.Errorf("%s: two uses of the type give two schemas:\n%s\n%s", name, a, b)
		}
		return nil
	}
	if _, ok := c.schemas[name]; ok {
		return fmt.Errorf("the component %s is taken: rename the wire type %s", name, t)
	}
	c.owner[name] = t
	c.schemas[name] = &openapi3.SchemaRef{Value: v}
	return nil
}

// formName names the form a page posts, which has no Go type, after its
// path: /account/forgot-password posts a ForgotPasswordForm.
func formName(path string) string {
	var b strings.Builder
	for _, w := range strings.Split(path[strings.LastIndexByte(path, '/')+1:], "-") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String() + "Form"
}
