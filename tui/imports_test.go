package tui

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The TUI knows the store's domain only: never the bytes (store/bolt) nor
// the HTTP server; cmd/licensectl wires the backend in.
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	forbidden := []string{"licensectl/store/bolt", "licensectl/server", "net/http", "go.etcd.io/bbolt"}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbidden {
				if path == bad || (strings.HasPrefix(path, bad+"/") && !strings.HasPrefix(path, "licensectl/server/api") && !strings.HasPrefix(path, "licensectl/server/client")) {
					t.Errorf("%s imports %s", f, path)
				}
			}
		}
	}
}
