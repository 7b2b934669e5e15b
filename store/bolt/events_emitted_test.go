package bolt

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryEventEmitted checks the event registry against the code: every
// constant of store/events.go is written by some change in this package
// (webhook.test only as a delivery), so no listed event is one nobody sends.
func TestEveryEventEmitted(t *testing.T) {
	reg, err := os.ReadFile("../events.go")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	consts := regexp.MustCompile(`(?m)^\s+(Event[A-Za-z]+)\s+= "`).FindAllStringSubmatch(string(reg), -1)
	if len(consts) < 40 {
		t.Fatalf("found %d event constants; the pattern is stale", len(consts))
	}
	for _, m := range consts {
		if !strings.Contains(src.String(), "store."+m[1]) {
			t.Errorf("store.%s is never emitted by store/bolt", m[1])
		}
	}
}
