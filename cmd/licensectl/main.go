// Command licensectl is the licensing server, its admin CLI and its terminal UI.
package main

import (
	"errors"
	"fmt"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// exitUsage marks errors that are the caller's misuse of the command line.
type exitUsage struct{ error }

// run executes the command line and returns the process exit code: 0 ok,
// 1 error, 2 usage.
func run(args []string) int {
	root := newRootCmd(newEnv())
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	fmt.Fprintln(root.ErrOrStderr(), "Error:", err)
	var u exitUsage
	if errors.As(err, &u) {
		return 2
	}
	return 1
}
