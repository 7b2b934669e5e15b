package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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
//	capture VAR [FIELD]             sets $VAR to stdout, or to FIELD of
//	                                stdout's JSON object
//	serve                           starts licensectl serve on the script's
//	                                store, sets $SERVER to its URL, stops it
//	                                when the script ends
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
			"serve":   cmdServe,
		},
	})
}

// cmdCapture sets $VAR to the last command's stdout without its final line
// break, or to the string FIELD of the JSON object it printed, so a later
// command can name what an earlier one created.
//
//	capture VAR [FIELD]
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: capture VAR [FIELD]")
	}
	out := ts.ReadFile("stdout")
	if len(args) == 1 {
		ts.Setenv(args[0], strings.TrimRight(out, "\n"))
		return
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		ts.Fatalf("capture: stdout is not a JSON object: %v", err)
	}
	v, ok := obj[args[1]].(string)
	if !ok {
		ts.Fatalf("capture: stdout has no string field %q", args[1])
	}
	ts.Setenv(args[0], v)
}

// cmdServe starts `licensectl serve` on the script's store (its
// LICENSECTL_ settings, in $WORK) on a free port, sets $SERVER to its URL
// and stops it when the script ends. A bbolt file is the server's while it
// runs: local commands come before serve.
//
//	serve
func cmdServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: serve")
	}
	cmd := exec.Command(binary, "serve", "--listen", "127.0.0.1:0")
	cmd.Dir = ts.Getenv("WORK")
	cmd.Env = append(cleanEnv(), "LICENSECTL_LOG_FORMAT=text", "HOME="+ts.Getenv("HOME"))
	if dir := ts.Getenv("LICENSECTL_DATA_DIR"); dir != "" {
		// On PostgreSQL no local command made it: the store is elsewhere.
		ts.Check(os.MkdirAll(dir, 0o700))
	}
	for _, k := range []string{"LICENSECTL_DATA_DIR", "LICENSECTL_STORAGE_DRIVER", "LICENSECTL_STORAGE_POSTGRES_URL"} {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	pipe, err := cmd.StderrPipe()
	ts.Check(err)
	ts.Check(cmd.Start())
	ts.Defer(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	found := make(chan string, 1)
	var mu sync.Mutex
	var lines []string
	go func() {
		sc := bufio.NewScanner(pipe)
		sent := false
		for sc.Scan() {
			mu.Lock()
			lines = append(lines, sc.Text())
			mu.Unlock()
			if _, u, ok := strings.Cut(sc.Text(), " url="); ok && !sent {
				u, _, _ = strings.Cut(u, " ")
				found <- u
				sent = true
			}
		}
		if !sent {
			close(found)
		}
	}()
	select {
	case u, ok := <-found:
		if !ok {
			mu.Lock()
			defer mu.Unlock()
			ts.Fatalf("serve exited before listening:\n%s", strings.Join(lines, "\n"))
		}
		ts.Setenv("SERVER", u)
	case <-time.After(20 * time.Second):
		ts.Fatalf("serve did not listen within 20 s")
	}
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
