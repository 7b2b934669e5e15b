package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// confirm asks before an irreversible change (what says what it does): on
// a terminal it asks for "yes"; in a script, where nobody can answer, only
// --yes lets it through (a usage error, exit 2, naming --yes).
func (e *env) confirm(yes bool, what string) error {
	if yes {
		return nil
	}
	in, ok := terminal(e.stdin)
	if !ok {
		return usageErrorf("%s cannot be undone: confirm with --yes", what)
	}
	fmt.Fprintf(e.stderr, "%s cannot be undone. Type yes to go on: ", what)
	line, err := bufio.NewReader(io.LimitReader(in, 256)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if a := strings.ToLower(strings.TrimSpace(line)); a != "yes" && a != "y" {
		return errors.New("not confirmed: nothing was changed")
	}
	return nil
}
