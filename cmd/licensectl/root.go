package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"licensectl/config"
)

// env is what commands depend on; tests build their own.
type env struct {
	stdout io.Writer
	stderr io.Writer
	getenv func(string) (string, bool)
}

func newEnv() *env {
	return &env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.LookupEnv}
}

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:           "licensectl",
		Short:         "Self-hosted software licensing and end-user authentication",
		Long:          "licensectl runs the licensing server (serve) and administers it, locally on its data file or remotely with --server.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exitUsage{err}
	})
	config.BindFlags(root.PersistentFlags())
	root.AddCommand(newServeCmd(e), newVersionCmd(e))
	return root
}

// loadConfig loads the configuration for cmd from its flags and the environment.
func loadConfig(cmd *cobra.Command, e *env) (config.Config, error) {
	return config.Load(config.LoadOptions{Flags: cmd.Flags(), Env: e.getenv})
}

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version",
		Example: "  licensectl version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := io.WriteString(cmd.OutOrStdout(), "licensectl "+version+"\n")
			return err
		},
	}
}
