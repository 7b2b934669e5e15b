package bolt

import (
	"fmt"
	"os"
	"regexp"
	"testing"
)

// TestSchemaHistoryTable holds SCHEMA.md, the table a maintainer reads to
// learn what each schema version changed, to the migrations the code
// applies: a migration added without its row, or a row naming a migration
// that is not there, fails here rather than misleading the next reader.
func TestSchemaHistoryTable(t *testing.T) {
	raw, err := os.ReadFile("SCHEMA.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \| ([^|]+?) \| [^|]+\| ([^|]+) \|$`).FindAllStringSubmatch(string(raw), -1) {
		rows[m[1]] = m[2]
		for _, test := range regexp.MustCompile("`(Test\\w+)`").FindAllStringSubmatch(m[3], -1) {
			if !testExists(t, test[1]) {
				t.Errorf("SCHEMA.md version %s names %s, which no test file of store/bolt declares", m[1], test[1])
			}
		}
	}
	if rows["1"] == "" {
		t.Errorf("SCHEMA.md has no row for version 1")
	}
	for _, m := range migrations {
		v := fmt.Sprint(m.Version)
		if rows[v] != m.Name {
			t.Errorf("SCHEMA.md version %s reads %q, want the migration's name %q", v, rows[v], m.Name)
		}
		delete(rows, v)
	}
	delete(rows, "1")
	for v := range rows {
		t.Errorf("SCHEMA.md has a row for version %s, which no migration reaches", v)
	}
}

// testExists reports whether a _test.go file of this directory declares name.
func testExists(t *testing.T, name string) bool {
	t.Helper()
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^func ` + name + `\(`)
	for _, f := range files {
		if n := f.Name(); len(n) > 8 && n[len(n)-8:] == "_test.go" {
			raw, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			if decl.Match(raw) {
				return true
			}
		}
	}
	return false
}
