package storetest

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"licensectl/store"
)

// TestSuiteCallsEveryAdminMethod keeps the suite whole: a method added to
// store.Admin fails this test until the suite calls it.
func TestSuiteCallsEveryAdminMethod(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	called := map[string]bool{}
	call := regexp.MustCompile(`\b(?:f|g)\.db\.([A-Z]\w*)\(|\bdb\.([A-Z]\w*)\(`)
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllStringSubmatch(string(src), -1) {
			called[m[1]+m[2]] = true
		}
	}
	admin := reflect.TypeFor[store.Admin]()
	for i := range admin.NumMethod() {
		if name := admin.Method(i).Name; !called[name] {
			t.Errorf("the suite never calls store.Admin.%s", name)
		}
	}
}
