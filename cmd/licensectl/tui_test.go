package main

import "testing"

func TestTUINeedsATerminal(t *testing.T) {
	t.Parallel()
	c := newLocal(t)
	c.ok("org", "create", "Acme")
	c.fails(2, args("tui"), "licensectl tui needs an interactive terminal; use the CLI commands in scripts")
}

// The TUI's end-to-end run in tmux, 100,000 licenses and both modes, is
// scripts/tui-e2e (scripts/test runs it): a script, so that go test stays
// hermetic.
