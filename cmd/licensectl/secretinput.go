package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// readSecret returns a secret the user hands over without putting it on the
// command line, where shell history and the process list would keep it:
// from file (- is standard input; one line, the newline dropped) or, when
// file is empty, from a no-echo prompt on the terminal, asked twice.
func (e *env) readSecret(file, what, flagName string) (string, error) {
	if file != "" {
		var r io.Reader
		if file == "-" {
			r = e.stdin
		} else {
			f, err := os.Open(file)
			if err != nil {
				return "", err
			}
			defer f.Close()
			r = f
		}
		line, err := bufio.NewReader(io.LimitReader(r, 4096)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read %s: %w", what, err)
		}
		if s := strings.TrimRight(line, "\r\n"); s != "" {
			return s, nil
		}
		return "", usageErrorf("%s: the %s is empty", flagName, what)
	}
	in, ok := terminal(e.stdin)
	if !ok {
		return "", usageErrorf("no terminal to ask for the %s: pass --%s FILE (or - to read standard input)", what, flagName)
	}
	ask := func(prompt string) (string, error) {
		fmt.Fprint(e.stderr, prompt)
		b, err := term.ReadPassword(int(in.Fd()))
		fmt.Fprintln(e.stderr)
		return string(b), err
	}
	first, err := ask(strings.ToUpper(what[:1]) + what[1:] + ": ")
	if err != nil {
		return "", err
	}
	again, err := ask("Repeat the " + what + ": ")
	if err != nil {
		return "", err
	}
	if first != again {
		return "", errors.New("the two entries differ")
	}
	if first == "" {
		return "", usageErrorf("the %s is empty", what)
	}
	return first, nil
}
