package storetest

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"licensectl/store"
)

// suiteCalls returns the methods the suite's sources call on the
// implementation (db, be) and on its runtime (rt, runtime()).
func suiteCalls(t *testing.T) (backend, runtime map[string]bool) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	backend, runtime = map[string]bool{}, map[string]bool{}
	onBackend := regexp.MustCompile(`\b(?:db|be)\.([A-Z]\w*)\(`)
	onRuntime := regexp.MustCompile(`\b(?:rt|runtime\(\))\.([A-Z]\w*)\(`)
	for _, name := range files {
		if name == "coverage_test.go" {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range onBackend.FindAllStringSubmatch(string(src), -1) {
			backend[m[1]] = true
		}
		for _, m := range onRuntime.FindAllStringSubmatch(string(src), -1) {
			runtime[m[1]] = true
		}
	}
	return backend, runtime
}

// TestSuiteCallsEveryBackendMethod keeps the suite whole: a method added to
// store.Backend, or to the runtime API it opens, fails this test until the
// suite calls it. Run with -v, it reports how many it calls.
func TestSuiteCallsEveryBackendMethod(t *testing.T) {
	backend, runtime := suiteCalls(t)
	for _, c := range []struct {
		typ    reflect.Type
		called map[string]bool
		exempt []string
	}{
		{reflect.TypeFor[store.Backend](), backend, nil},
		{reflect.TypeFor[store.RuntimeBackend](), runtime, nil},
	} {
		n := 0
		for i := range c.typ.NumMethod() {
			name := c.typ.Method(i).Name
			switch {
			case c.called[name]:
				n++
				if slices.Contains(c.exempt, name) {
					t.Errorf("the suite calls %s.%s: take it off the exemption list", c.typ, name)
				}
			case !slices.Contains(c.exempt, name):
				t.Errorf("the suite never calls %s.%s", c.typ, name)
			}
		}
		for _, name := range c.exempt {
			if _, ok := c.typ.MethodByName(name); !ok {
				t.Errorf("%s has no method %s: take it off the exemption list", c.typ, name)
			}
		}
		t.Logf("the suite calls %d of the %d methods of %s (%d exempt)", n, c.typ.NumMethod(), c.typ, len(c.exempt))
	}
}
