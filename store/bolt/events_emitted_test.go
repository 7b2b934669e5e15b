package bolt

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryEventEmitted checks the event registry against the code: every
// constant of store/events.go is written by some change in this package or
// in the orchestration both stores share (store/service*.go, and the rules
// of store/*_rules.go it applies), or named by a
// status machine of store/status.go (webhook.test only as a delivery), so
// no listed event is one nobody sends.
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
	machines, err := os.ReadFile("../status.go")
	if err != nil {
		t.Fatal(err)
	}
	shared, _ := filepath.Glob("../service*.go")
	// A rule of the domain may name the event of the change it decides
	// (License.Renew returns license.renewed); the service records it.
	rules, _ := filepath.Glob("../*_rules.go")
	shared = append(shared, rules...)
	for _, f := range shared {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		machines = append(machines, b...)
	}
	consts := regexp.MustCompile(`(?m)^\s+(Event[A-Za-z]+)\s+= "`).FindAllStringSubmatch(string(reg), -1)
	if len(consts) < 40 {
		t.Fatalf("found %d event constants; the pattern is stale", len(consts))
	}
	for _, m := range consts {
		named := regexp.MustCompile(`\b` + m[1] + `\b`).Match(machines)
		if !strings.Contains(src.String(), "store."+m[1]) && !named {
			t.Errorf("store.%s is never emitted by store/bolt", m[1])
		}
	}
}
