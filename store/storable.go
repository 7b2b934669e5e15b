package store

import (
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CheckStorable refuses text that not every backend can keep or compare as
// it was given: a NUL character, which PostgreSQL's text type cannot hold,
// and invalid UTF-8, which PostgreSQL refuses to read. bbolt would take
// both, so without this rule one backend would look the value up (or store
// it) and the other answer an internal error (docs/design.md §12: the same
// answers on both stores). Every string a caller hands a backend, an input
// to store or a filter or lookup to compare, passes it before any
// transaction. Returns validation_failed naming field.
func CheckStorable(field, v string) error {
	if strings.IndexByte(v, 0) >= 0 {
		return Invalid(field, "%s must not contain a NUL character", field)
	}
	if !utf8.ValidString(v) {
		return Invalid(field, "%s must be valid UTF-8", field)
	}
	return nil
}

// CheckStorableFields applies CheckStorable to every string v holds: v is a
// struct (or a pointer to one, nil being empty) whose fields are strings,
// pointers to strings, string slices, string-keyed maps or structs of the
// same, embedded ones included. A field is named as the request names it:
// its json tag when it has one, its Go name in snake_case otherwise
// (UserEmail is user_email, TargetID target_id). Walking the struct rather
// than listing its fields keeps a field added later from slipping past.
func CheckStorableFields(v any) error {
	return storableValue("", reflect.ValueOf(v))
}

func storableValue(field string, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Invalid:
		return nil
	case reflect.String:
		return CheckStorable(field, v.String())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return storableValue(field, v.Elem())
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := storableValue(field, v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if err := storableValue(field, it.Key()); err != nil {
				return err
			}
			if err := storableValue(field, it.Value()); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			name := field
			if !sf.Anonymous {
				name = wireName(sf)
			}
			if err := storableValue(name, v.Field(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// wireName is the name a request gives the struct field sf.
func wireName(sf reflect.StructField) string {
	if tag, _, _ := strings.Cut(sf.Tag.Get("json"), ","); tag != "" && tag != "-" {
		return tag
	}
	return snakeCase(sf.Name)
}

// snakeCase writes a Go name the way the API does: words joined by
// underscores, an initialism one word (LicenseID is license_id, URLPath
// url_path).
func snakeCase(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 {
			prevLower := unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || (unicode.IsUpper(rs[i-1]) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
