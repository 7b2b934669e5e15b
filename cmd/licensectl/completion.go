package main

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"licensectl/store"
)

// completionTimeout bounds a dynamic completion: a locked file or a slow
// server must not hang the shell.
const completionTimeout = 300 * time.Millisecond

// addCompletions registers shell completions for the global flags and, on
// every command that has them, --app and --plan, and for the APP argument
// of the app verbs.
func (e *env) addCompletions(root *cobra.Command) {
	fixed := func(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return values, cobra.ShellCompDirectiveNoFileComp
		}
	}
	_ = root.RegisterFlagCompletionFunc(flagOutput, fixed(fmtTable, fmtJSON, fmtCSV, fmtKeys))
	_ = root.RegisterFlagCompletionFunc(flagEnv, fixed("production", "development"))
	_ = root.RegisterFlagCompletionFunc(flagOrg, e.completeOrgs)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.LocalFlags().Lookup("app") != nil {
			_ = c.RegisterFlagCompletionFunc("app", e.completeApps)
		}
		if c.LocalFlags().Lookup("plan") != nil {
			_ = c.RegisterFlagCompletionFunc("plan", e.completePlans)
		}
		if c.Parent() != nil && c.Parent().Name() == "app" && strings.HasPrefix(c.Use, c.Name()+" APP") {
			c.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				if len(args) > 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return e.completeApps(cmd, args, toComplete)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completing opens a short-lived session for a completion and runs fn; any
// failure completes nothing.
func (e *env) completing(cmd *cobra.Command, fn func(ctx context.Context, s *session) ([]string, error)) ([]string, cobra.ShellCompDirective) {
	ctx, cancel := context.WithTimeout(context.Background(), completionTimeout*3)
	defer cancel()
	var out []string
	err := e.withSessionCtx(ctx, cmd, openOpts{readOnly: true, lockTimeout: completionTimeout}, func(ctx context.Context, s *session) (err error) {
		out, err = fn(ctx, s)
		return err
	})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func (e *env) completeOrgs(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	return e.completing(cmd, func(ctx context.Context, s *session) ([]string, error) {
		list, err := s.svc.ListOrganizations(ctx)
		return mapSlice(list, func(o *store.Organization) string { return o.Slug }), err
	})
}

func (e *env) completeApps(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	return e.completing(cmd, func(ctx context.Context, s *session) ([]string, error) {
		org, err := s.org(ctx)
		if err != nil {
			return nil, err
		}
		list, err := s.svc.ListApplications(ctx, org)
		return mapSlice(list, func(a *store.Application) string { return a.Slug + "\t" + a.Name }), err
	})
}

func (e *env) completePlans(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	app, _ := cmd.Flags().GetString("app")
	if app == "" {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return e.completing(cmd, func(ctx context.Context, s *session) ([]string, error) {
		ref, err := s.app(ctx, app)
		if err != nil {
			return nil, err
		}
		list, err := s.svc.ListPlans(ctx, ref)
		return mapSlice(list, func(p *store.Plan) string { return p.Name }), err
	})
}
