// Package terminit keeps bubbletea v1 from querying the terminal when the
// binary starts (docs/tui.md §3.4). Bubbletea's init asks the terminal for its
// background colour and waits up to 5 s for an answer, which a PTY with no
// terminal emulator behind it (expect, `docker run -t`, CI "tty: true")
// never gives, and which lands in every subcommand of this one binary, not
// only in the TUI.
//
// Go initializes, among the packages whose imports are done, the first in
// import-path order (the Go 1.21 spec). This package imports only os, so it
// is ready as soon as os is, and it sorts before os/signal, which bubbletea
// imports: its init therefore runs before bubbletea's and sets TERM=dumb,
// which termenv takes as "do not ask". The tui package, initialized after
// bubbletea, calls Restore. The TUI styles use no background-adaptive
// colours, so nothing depends on the answer; colour profiles are read later,
// from the restored TERM. scripts/tui-e2e checks the start-up time.
package terminit

import "os"

var term, hadTerm = os.LookupEnv("TERM")

func init() {
	_ = os.Setenv("TERM", "dumb")
}

// Restore puts TERM back as the process found it.
func Restore() {
	if hadTerm {
		_ = os.Setenv("TERM", term)
	} else {
		_ = os.Unsetenv("TERM")
	}
}
