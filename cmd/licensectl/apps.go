package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"licensectl/server/api"
	"licensectl/store"
)

func newAppCmd(e *env) *cobra.Command {
	return noun("app", "Manage applications",
		newAppCreateCmd(e), newAppListCmd(e), newAppShowCmd(e), newAppUpdateCmd(e), newAppDisableCmd(e), newAppDeleteCmd(e), newAppJWKSCmd(e))
}

// newAppJWKSCmd prints an environment's JWKS document for a desktop build
// to pin (docs/design.md §15): the bytes the server serves, locally from
// the stored key or from the server. Its -o names the file to write, as
// machine-file's does.
func newAppJWKSCmd(e *env) *cobra.Command {
	var app, envName, file string
	c := &cobra.Command{
		Use:   "jwks --app APP",
		Short: "Print an environment's JWKS document, for a client to pin",
		Long: "Prints the public key set of one environment of the application (default: --env's),\n" +
			"byte for byte as GET /v1/runtime/applications/{id}/jwks.json serves it, for a desktop\n" +
			"build to embed: the key that verifies access tokens, machine files and signed answers.\n" +
			"-o FILE writes it to FILE (replacing an older copy) instead of stdout.",
		Example: "  licensectl app jwks --app studio -o jwks.json\n" +
			"  licensectl app jwks --app studio --environment development",
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch strings.ToLower(file) {
			case fmtTable, fmtJSON, fmtCSV, fmtKeys:
				return usageErrorf("-o names the file to write the key set to here, not an output format (got %q)", file)
			}
			if envName != "" && !store.ValidEnv(envName) {
				return usageErrorf("--environment must be production or development (got %q)", envName)
			}
			return e.withSession(cmd, openOpts{}, func(ctx context.Context, s *session) error {
				ref, err := s.app(ctx, app)
				if err != nil {
					return err
				}
				name := envName
				if name == "" {
					name = s.env
				}
				doc, err := s.svc.JWKS(ctx, ref, name)
				if err != nil {
					return err
				}
				if file == "" {
					_, err := cmd.OutOrStdout().Write(doc)
					return err
				}
				// Public keys: readable by the build that embeds them.
				if err := os.WriteFile(file, doc, 0o644); err != nil {
					return err
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: the %s key set of application %s\n", file, name, ref.AppID)
				return err
			})
		},
	}
	bindApp(c, &app)
	fl := c.Flags()
	fl.StringVar(&envName, "environment", "", "production or development (default: --env)")
	fl.StringVarP(&file, flagOutput, "o", "", "write the key set to FILE instead of stdout")
	return c
}

func appFields(t *table, a *store.Application) {
	t.field("ID", a.ID)
	t.field("Name", a.Name)
	t.field("Slug", a.Slug)
	t.field("Status", a.Status)
	if a.SupportEmail != "" {
		t.field("Support", a.SupportEmail)
	}
	t.field("Created", stamp(a.CreatedAt))
	t.field("Updated", stamp(a.UpdatedAt))
	for _, env := range a.Environments {
		t.field(env.Name, env.ID)
		t.field("  public key", env.PublicKey)
	}
}

func newAppCreateCmd(e *env) *cobra.Command {
	var slug, support string
	c := &cobra.Command{
		Use:   "create NAME",
		Short: "Create an application with its development and production environments",
		Example: "  licensectl app create \"Photo Studio\"\n" +
			"  licensectl app create \"Photo Studio\" --slug studio -o json\n" +
			"  licensectl app create \"Photo Studio\" --support-email help@studio.example",
		Args: exactArgs("NAME"),
		RunE: e.onOrg(func(ctx context.Context, cmd *cobra.Command, s *session, org string, out *output, args []string) error {
			a, err := s.svc.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org, Name: args[0], Slug: slug, SupportEmail: support})
			if err != nil {
				return err
			}
			return out.emit(api.ApplicationDetailOf(a), func(t *table) { appFields(t, a) })
		}),
	}
	c.Flags().StringVar(&slug, "slug", "", "slug (default: derived from the name)")
	c.Flags().StringVar(&support, "support-email", "", "where the application's customers ask for help (optional)")
	return c
}

func newAppListCmd(e *env) *cobra.Command {
	return csvList(&cobra.Command{
		Use:     "list",
		Short:   "List the organization's applications, newest first",
		Example: "  licensectl app list\n  licensectl app list -o json",
		Args:    exactArgs(),
		RunE: e.onOrg(func(ctx context.Context, cmd *cobra.Command, s *session, org string, out *output, args []string) error {
			list, err := s.svc.ListApplications(ctx, org)
			if err != nil {
				return err
			}
			return out.emit(mapSlice(list, api.ApplicationItemOf), func(t *table) {
				t.row("ID", "SLUG", "STATUS", "NAME")
				for _, a := range list {
					t.row(a.ID, a.Slug, a.Status, t.text(a.Name, 24))
				}
			})
		}),
	})
}

func newAppShowCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "show APP",
		Short:   "Show an application (by id, slug or name) with its environments",
		Example: "  licensectl app show studio\n  licensectl app show 0193a5c2-7d1e-7c3a-9b1f-2f6e8d9c0a11 -o json",
		Args:    exactArgs("APP"),
		RunE: e.onSession(func(ctx context.Context, cmd *cobra.Command, s *session, out *output, args []string) error {
			ref, err := s.app(ctx, args[0])
			if err != nil {
				return err
			}
			a, err := s.svc.FindApplication(ctx, ref)
			if err != nil {
				return err
			}
			return out.emit(api.ApplicationDetailOf(a), func(t *table) { appFields(t, a) })
		}),
	}
}

// updateApp applies upd to the application named by args[0] and prints it.
func (e *env) updateApp(cmd *cobra.Command, name string, upd store.ApplicationUpdate) error {
	out, err := outputFor(cmd, fmtTable, fmtJSON)
	if err != nil {
		return err
	}
	return e.withSession(cmd, openOpts{}, func(ctx context.Context, s *session) error {
		ref, err := s.app(ctx, name)
		if err != nil {
			return err
		}
		a, err := s.svc.UpdateApplication(ctx, ref, upd)
		if err != nil {
			return err
		}
		if len(a.Environments) == 0 {
			if full, err := s.svc.FindApplication(ctx, ref); err == nil {
				a = full
			}
		}
		return out.emit(api.ApplicationDetailOf(a), func(t *table) { appFields(t, a) })
	})
}

func newAppUpdateCmd(e *env) *cobra.Command {
	var name, status, support string
	c := &cobra.Command{
		Use:   "update APP",
		Short: "Rename an application, change its status or its support address",
		Example: "  licensectl app update studio --name \"Photo Studio Pro\"\n" +
			"  licensectl app update studio --status active\n" +
			"  licensectl app update studio --support-email \"\"   # remove the support address",
		Args: exactArgs("APP"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var upd store.ApplicationUpdate
			if cmd.Flags().Changed("name") {
				upd.Name = &name
			}
			if cmd.Flags().Changed("status") {
				upd.Status = &status
			}
			if cmd.Flags().Changed("support-email") {
				upd.SupportEmail = &support
			}
			if upd.Name == nil && upd.Status == nil && upd.SupportEmail == nil {
				return usageErrorf("nothing to update: give --name, --status or --support-email")
			}
			return e.updateApp(cmd, args[0], upd)
		},
	}
	c.Flags().StringVar(&name, "name", "", "new name")
	c.Flags().StringVar(&status, "status", "", "new status: active or disabled")
	c.Flags().StringVar(&support, "support-email", "", "support address; \"\" removes it")
	return c
}

func newAppDisableCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "disable APP",
		Short:   "Disable an application: the runtime API refuses it; nothing is deleted",
		Example: "  licensectl app disable studio",
		Args:    exactArgs("APP"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st := store.AppDisabled
			return e.updateApp(cmd, args[0], store.ApplicationUpdate{Status: &st})
		},
	}
}

func newAppDeleteCmd(e *env) *cobra.Command {
	var yes bool
	c := &cobra.Command{
		Use:   "delete APP",
		Short: "Delete an application and everything under it, permanently",
		Long: "Delete removes the application with its environments, secrets, entitlements,\n" +
			"plans, licenses, end-users, devices and audit entries. It cannot be undone,\n" +
			"so it needs --yes. To keep the data, use `licensectl app disable`.",
		Example: "  licensectl app delete studio --yes",
		Args:    exactArgs("APP"),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := outputFor(cmd, fmtTable, fmtJSON)
			if err != nil {
				return err
			}
			if !yes {
				return usageErrorf("app delete removes the application and everything under it: confirm with --yes (or use app disable)")
			}
			return e.withSession(cmd, openOpts{}, func(ctx context.Context, s *session) error {
				ref, err := s.app(ctx, args[0])
				if err != nil {
					return err
				}
				if err := s.svc.DeleteApplication(ctx, ref, true); err != nil {
					return err
				}
				return out.emit(api.Success{Success: true}, func(t *table) { t.row("deleted application " + ref.AppID) })
			})
		},
	}
	c.Flags().BoolVar(&yes, "yes", false, "confirm the permanent deletion")
	return c
}
