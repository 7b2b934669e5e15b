package postgres

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestSchemaHistoryTable holds migrations/README.md, the table a maintainer
// reads to learn what each schema version changed, to the migration files
// the binary embeds: a file added without its row, or a row naming no file,
// fails here. It needs no database.
func TestSchemaHistoryTable(t *testing.T) {
	raw, err := os.ReadFile("migrations/README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[int]string{}
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \| (\S+)\.sql \|`).FindAllStringSubmatch(string(raw), -1) {
		v, _ := strconv.Atoi(m[1])
		rows[v] = m[2]
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if rows[m.version] != m.name {
			t.Errorf("migrations/README.md version %d reads %q, want the file %s.sql", m.version, rows[m.version], m.name)
		}
		delete(rows, m.version)
	}
	for v, name := range rows {
		t.Errorf("migrations/README.md has a row for version %d (%s.sql), which is no migration file", v, name)
	}
}
