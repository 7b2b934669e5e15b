// Command licensectl is the licensing server, its admin CLI and its terminal UI.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	os.Exit(run(newEnv(), os.Args[1:]))
}

// exitUsage marks errors that are the caller's misuse of the command line.
// brief ones say all there is to say: the usage would bury them.
type exitUsage struct {
	error
	brief bool
}

func (u exitUsage) Unwrap() error { return u.error }

// usageErrorf returns a usage error (exit code 2), printed with the usage.
func usageErrorf(format string, args ...any) error {
	return exitUsage{error: fmt.Errorf(format, args...)}
}

// flagNeededf returns a usage error (exit code 2) that names the flag to
// add and how; the command's usage is not printed after it.
func flagNeededf(format string, args ...any) error {
	return exitUsage{error: fmt.Errorf(format, args...), brief: true}
}

// run executes the command line and returns the process exit code: 0 ok,
// 1 error, 2 usage. Errors go to stderr as "Error: code: message"; usage
// errors are followed by the command's usage.
func run(e *env, args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCmd(e)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(root.ErrOrStderr(), "Error:", printableMessage(err.Error()))
	if strings.Contains(err.Error(), "x-organization-id") {
		// The server wants the organization the command line did not name:
		// a usage error, as the same command is locally on a store of
		// several organizations.
		fmt.Fprintln(root.ErrOrStderr(), "Hint: with the operator token, name the organization with --org ID|SLUG (see `licensectl org list`).")
		return 2
	}
	if isUsage(err) {
		if cmd == nil {
			cmd = root
		}
		if u := (exitUsage{}); !errors.As(err, &u) || !u.brief {
			fmt.Fprint(root.ErrOrStderr(), "\n"+cmd.UsageString())
		}
		return 2
	}
	return 1
}

// isUsage reports whether err is a misuse of the command line: ours, or one
// of cobra's own argument and flag errors.
func isUsage(err error) bool {
	var u exitUsage
	if errors.As(err, &u) {
		return true
	}
	msg := err.Error()
	for _, prefix := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "required flag(s)", "invalid argument", "flag needs an argument", "accepts ", "requires at least", "requires at most", "if any flags in the group"} {
		if strings.HasPrefix(msg, prefix) {
			return true
		}
	}
	return false
}

// printableMessage escapes an error message as every output is
// (store.Printable), since a server's message may quote stored text, but
// keeps the line breaks and tabs of messages laid out by the CLI itself
// (cobra's suggestions).
func printableMessage(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(printable(strings.Split(l, "\t")), "\t")
	}
	return strings.Join(lines, "\n")
}
