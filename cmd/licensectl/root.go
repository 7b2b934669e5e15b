package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"licensectl/config"
)

// env is what commands depend on; tests build their own.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) (string, bool)
	// environ lists the environment as NAME=value entries; nil means none.
	environList func() []string
}

func newEnv() *env {
	return &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.LookupEnv, environList: os.Environ}
}

// environ is the environment as NAME=value entries.
func (e *env) environ() []string {
	if e.environList == nil {
		return nil
	}
	return e.environList()
}

// Names of the global flags of the admin commands.
const (
	flagServer = "server"
	flagAPIKey = "api-key"
	flagOrg    = "org"
	flagEnv    = "env"
	flagOutput = "output"
)

// Environment variables read for the global flags.
const (
	envServer = "LICENSECTL_SERVER"
	envAPIKey = "LICENSECTL_API_KEY"
)

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "licensectl",
		Short: "Self-hosted software licensing and end-user authentication",
		Long: "licensectl runs the licensing server (serve) and administers it.\n\n" +
			"Admin commands work in two modes. Locally (no --server) they open\n" +
			"<data-dir>/licensectl.db directly, with operator rights; the server must be\n" +
			"stopped. Remotely (--server URL or " + envServer + ") they call the server's\n" +
			"API with --api-key (or " + envAPIKey + "): a developer API key, or the\n" +
			"operator token from <data-dir>/operator.token together with --org.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion().String(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exitUsage{error: err}
	})
	pf := root.PersistentFlags()
	config.BindFlags(pf)
	pf.String(flagServer, "", "server URL for remote mode, e.g. http://127.0.0.1:8080 (env "+envServer+")")
	pf.String(flagAPIKey, "", "developer API key or operator token for remote mode (env "+envAPIKey+")")
	pf.String(flagOrg, "", "organization id or slug (local: needed when there are several; remote: with the operator token)")
	pf.String(flagEnv, "production", "application environment: production or development")
	pf.StringP(flagOutput, "o", "table", "output format: table or json; lists also csv; license generate and license list also keys")

	root.AddCommand(
		newServeCmd(e),
		newVersionCmd(e),
		newHealthCmd(e),
		newTUICmd(e),
		newConfigCmd(e),
		newBackupCmd(e),
		newRestoreCmd(e),
		newOperatorTokenCmd(e),
		newOrgCmd(e),
		newMemberCmd(e),
		newAppCmd(e),
		newSecretCmd(e),
		newAPIKeyCmd(e),
		newEntitlementCmd(e),
		newPlanCmd(e),
		newLicenseCmd(e),
		newLeaseCmd(e),
		newUserCmd(e),
		newDeviceCmd(e),
		newAuditCmd(e),
		newWebhookCmd(e),
		newBillingCmd(e),
		newStoreCmd(e),
	)
	e.addCompletions(root)
	return root
}

// loadConfig loads the configuration for cmd from its flags and the environment.
func loadConfig(cmd *cobra.Command, e *env) (config.Config, error) {
	return config.Load(config.LoadOptions{Flags: cmd.Flags(), Env: e.getenv})
}

// localConfig loads the configuration of a command that works on the local
// store only; with --server (or LICENSECTL_SERVER) it is the usage error
// remoteMsg.
func (e *env) localConfig(cmd *cobra.Command, remoteMsg string) (config.Config, error) {
	if e.flagOrEnv(cmd, flagServer, envServer) != "" {
		return config.Config{}, usageErrorf("%s", remoteMsg)
	}
	return loadConfig(cmd, e)
}

// noun builds a command that groups verbs; run alone or with an unknown verb
// it is a usage error.
func noun(use, short string, verbs ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
				if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
					msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
				}
				return usageErrorf("%s", msg)
			}
			return usageErrorf("%s needs a subcommand", cmd.CommandPath())
		},
	}
	c.SuggestionsMinimumDistance = 2 // cobra sets it for the root only
	c.AddCommand(verbs...)
	return c
}

// exactArgs is cobra.ExactArgs as a usage error naming the arguments.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != len(names) {
			if len(names) == 0 {
				return usageErrorf("%s takes no arguments", cmd.CommandPath())
			}
			return usageErrorf("%s takes %d argument(s): %v, got %d", cmd.CommandPath(), len(names), names, len(args))
		}
		return nil
	}
}

// rangeArgs accepts between min and max arguments.
func rangeArgs(minN, maxN int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < minN || len(args) > maxN {
			return usageErrorf("%s takes %d to %d arguments, got %d", cmd.CommandPath(), minN, maxN, len(args))
		}
		return nil
	}
}
