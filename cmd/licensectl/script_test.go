package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"licensectl/server/servertest"
	"licensectl/store/postgres/pgtest"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/script/*.txtar")

// TestScripts runs testdata/script/*.txtar against the built binary, which
// is first on PATH as licensectl. Besides testscript's commands:
//
//	exits CODE licensectl ARGS...   runs a command and checks its exit code
//	scrub FILE                      writes stdout to FILE with ids, keys,
//	                                secrets and times masked, for cmp
//	holder APP EMAIL FINGERPRINT    seeds an end-user holding a license on
//	                                a device (see cmdHolder)
//	legacy APP                      seeds records holding terminal escapes,
//	                                as old releases stored them (see cmdLegacy)
//
// The binary runs on the store LICENSECTL_TEST_STORE names: with postgres,
// each script gets a database of its own through storage.driver and
// storage.postgres.url (docs/design.md §12). The conditions [bolt] and
// [postgres] mark the lines about one store.
func TestScripts(t *testing.T) {
	t.Parallel()
	onPostgres := os.Getenv(servertest.StoreEnv) == "postgres"
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", filepath.Dir(binary)+string(os.PathListSeparator)+env.Getenv("PATH"))
			for _, kv := range os.Environ() {
				if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "LICENSECTL_") {
					env.Setenv(k, "")
				}
			}
			if onPostgres {
				if err := pgtest.Available(); err != nil {
					if os.Getenv("CI") == "true" {
						return fmt.Errorf("PostgreSQL is required under CI=true: %w", err)
					}
					env.T().Skip("SKIP: no PostgreSQL for the tests (" + err.Error() + "); install Debian's postgresql package or set " + pgtest.URLEnv)
				}
				u, drop, err := pgtest.NewDatabase(context.Background())
				if err != nil {
					return err
				}
				env.Defer(drop)
				env.Setenv("LICENSECTL_STORAGE_DRIVER", "postgres")
				env.Setenv("LICENSECTL_STORAGE_POSTGRES_URL", u)
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "bolt":
				return !onPostgres, nil
			case "postgres":
				return onPostgres, nil
			}
			return false, fmt.Errorf("unknown condition %q (bolt, postgres)", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":   cmdExits,
			"scrub":   cmdScrub,
			"holder":  cmdHolder,
			"seat":    cmdSeat,
			"legacy":  cmdLegacy,
			"capture": cmdCapture,
		},
	})
}

// cmdCapture sets $VAR to the last command's stdout without its final line
// break, so a later command can name what an earlier one created.
//
//	capture VAR
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: capture VAR")
	}
	ts.Setenv(args[0], strings.TrimRight(ts.ReadFile("stdout"), "\n"))
}

func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

// scrubbers mask what changes from run to run, keeping widths so that
// tables stay aligned.
var scrubbers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"},
	{regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){4}\b`), "XXXXX-XXXXX-XXXXX-XXXXX-XXXXX"},
	{regexp.MustCompile(`\b(app_sec_live_|app_sec_test_|app_pub_live_|app_pub_test_|dev_key_)[0-9A-Za-z]{43}\b`), "${1}…"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`), "YYYY-MM-DDTHH:MM:SSZ"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\d`), "YYYY-MM-DD"},
}

func cmdScrub(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: scrub FILE")
	}
	s := ts.ReadFile("stdout")
	for _, sc := range scrubbers {
		s = sc.re.ReplaceAllString(s, sc.with)
	}
	if err := os.WriteFile(ts.MkAbs(args[0]), []byte(s), 0o644); err != nil {
		ts.Fatalf("scrub: %v", err)
	}
}

func TestScrub(t *testing.T) {
	t.Parallel()
	in := "01a1fca5-0245-7c6e-903c-93a02255033b  7KQ2M-9XW4T-HB3ZP-0D6RN-C5VYE  2026-11-21T05:47:14Z 2026-11-21 dev_key_jRh8HCcLY7J0d6enwOYg6EuI9ukJfZu3bvaV08qOOpp"
	want := "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx  XXXXX-XXXXX-XXXXX-XXXXX-XXXXX  YYYY-MM-DDTHH:MM:SSZ YYYY-MM-DD dev_key_…"
	got := in
	for _, sc := range scrubbers {
		got = sc.re.ReplaceAllString(got, sc.with)
	}
	if got != want {
		t.Fatalf("scrub:\n got %q\nwant %q", got, want)
	}
}
