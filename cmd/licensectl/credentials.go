package main

import (
	"context"
	"fmt"
	"licensectl/server/api"

	"github.com/spf13/cobra"

	"licensectl/store"
)

func newSecretCmd(e *env) *cobra.Command {
	return noun("secret", "Manage application secrets (server-side credentials of one environment)",
		newSecretCreateCmd(e), newSecretListCmd(e), newSecretRevokeCmd(e))
}

// secretCreatedView adds the API's secret_id and the environment.
type secretCreatedView struct {
	api.SecretCreated
	Label         string `json:"label"`
	EnvironmentID string `json:"environment_id"`
	Environment   string `json:"environment"`
}

func newSecretCreateCmd(e *env) *cobra.Command {
	var app, label string
	c := &cobra.Command{
		Use:   "create",
		Short: "Create an application secret in the --env environment; its plaintext is shown once",
		Example: "  licensectl secret create --app studio --label ci\n" +
			"  licensectl secret create --app studio --env development -o json",
		Args: exactArgs(),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			a, err := s.svc.FindApplication(ctx, ref)
			if err != nil {
				return err
			}
			env := a.Env(s.env)
			if env == nil {
				return store.Errorf(store.ECodeInternal, "application has no %s environment", s.env)
			}
			sec, plain, err := s.svc.CreateAppSecret(ctx, ref, store.CreateSecretInput{EnvironmentID: env.ID, Label: label})
			if err != nil {
				return err
			}
			v := secretCreatedView{SecretCreated: api.SecretCreated{SecretID: sec.ID, Plaintext: plain}, Label: sec.Label, EnvironmentID: env.ID, Environment: env.Name}
			return out.emit(v, func(t *table) {
				t.field("ID", sec.ID)
				t.field("Environment", env.Name)
				t.field("Label", orDash(sec.Label))
				t.field("Secret", plain)
			})
		}),
	}
	bindApp(c, &app)
	c.Flags().StringVar(&label, "label", "", "label to recognize the secret by")
	return c
}

// envNames maps environment ids to names.
func envNames(a *store.Application) map[string]string {
	m := map[string]string{}
	for _, e := range a.Environments {
		m[e.ID] = e.Name
	}
	return m
}

// revokedState is "revoked" or "active".
func revokedState(revoked bool) string {
	if revoked {
		return "revoked"
	}
	return "active"
}

func newSecretListCmd(e *env) *cobra.Command {
	var app string
	c := &cobra.Command{
		Use:     "list",
		Short:   "List an application's secrets (never their plaintext)",
		Example: "  licensectl secret list --app studio\n  licensectl secret list --app studio -o json",
		Args:    exactArgs(),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			a, err := s.svc.FindApplication(ctx, ref)
			if err != nil {
				return err
			}
			list, err := s.svc.ListAppSecrets(ctx, ref)
			if err != nil {
				return err
			}
			names := envNames(a)
			return out.emit(mapSlice(list, api.SecretItemOf), func(t *table) {
				t.row("ID", "ENV", "STATE", "LABEL")
				for _, x := range list {
					t.row(x.ID, names[x.EnvironmentID], revokedState(x.RevokedAt != nil), t.text(orDash(x.Label), 16))
				}
			})
		}),
	}
	bindApp(c, &app)
	return csvList(c)
}

func newSecretRevokeCmd(e *env) *cobra.Command {
	var app string
	var yes bool
	c := &cobra.Command{
		Use:     "revoke ID",
		Short:   "Revoke an application secret",
		Example: "  licensectl secret revoke --app studio 0193a5c2-7d1e-7c3a-9b1f-2f6e8d9c0a11",
		Args:    exactArgs("ID"),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			if err := e.confirm(yes, "revoking secret "+args[0]); err != nil {
				return err
			}
			if err := s.svc.RevokeAppSecret(ctx, ref, args[0]); err != nil {
				return err
			}
			return out.emit(api.Success{Success: true}, func(t *table) { t.row("revoked secret " + args[0]) })
		}),
	}
	bindApp(c, &app)
	c.Flags().BoolVar(&yes, "yes", false, "confirm the revocation (asked on a terminal)")
	return c
}

func newAPIKeyCmd(e *env) *cobra.Command {
	return noun("apikey", "Manage developer API keys of the organization",
		newAPIKeyCreateCmd(e), newAPIKeyListCmd(e), newAPIKeyRevokeCmd(e))
}

// apiKeyCreatedView adds the API's key_id.
type apiKeyCreatedView struct {
	api.APIKeyCreated
	Label string `json:"label"`
}

func newAPIKeyCreateCmd(e *env) *cobra.Command {
	var label string
	c := &cobra.Command{
		Use:   "create",
		Short: "Create a developer API key; its plaintext is shown once",
		Example: "  licensectl apikey create --label ci\n" +
			"  export LICENSECTL_API_KEY=$(licensectl apikey create --label ci -o json | jq -r .plaintext)",
		Args: exactArgs(),
		RunE: e.onOrg(func(ctx context.Context, cmd *cobra.Command, s *session, org string, out *output, args []string) error {
			k, plain, err := s.svc.CreateAPIKey(ctx, org, label)
			if err != nil {
				return err
			}
			v := apiKeyCreatedView{APIKeyCreated: api.APIKeyCreated{KeyID: k.ID, Plaintext: plain}, Label: k.Label}
			return out.emit(v, func(t *table) {
				t.field("ID", k.ID)
				t.field("Label", orDash(k.Label))
				t.field("Key", plain)
			})
		}),
	}
	c.Flags().StringVar(&label, "label", "", "label to recognize the key by")
	return c
}

func newAPIKeyListCmd(e *env) *cobra.Command {
	return csvList(&cobra.Command{
		Use:     "list",
		Short:   "List the organization's API keys (never their plaintext)",
		Example: "  licensectl apikey list\n  licensectl apikey list -o json",
		Args:    exactArgs(),
		RunE: e.onOrg(func(ctx context.Context, cmd *cobra.Command, s *session, org string, out *output, args []string) error {
			list, err := s.svc.ListAPIKeys(ctx, org)
			if err != nil {
				return err
			}
			return out.emit(mapSlice(list, api.APIKeyItemOf), func(t *table) {
				t.row("ID", "STATE", "LAST USED", "LABEL")
				for _, k := range list {
					t.row(k.ID, revokedState(k.RevokedAt != nil), dayp(k.LastUsedAt), t.text(orDash(k.Label), 16))
				}
			})
		}),
	})
}

func newAPIKeyRevokeCmd(e *env) *cobra.Command {
	var yes bool
	c := &cobra.Command{
		Use:     "revoke ID",
		Short:   "Revoke a developer API key",
		Example: "  licensectl apikey revoke 0193a5c2-7d1e-7c3a-9b1f-2f6e8d9c0a11",
		Args:    exactArgs("ID"),
		RunE: e.onOrg(func(ctx context.Context, cmd *cobra.Command, s *session, org string, out *output, args []string) error {
			if err := e.confirm(yes, "revoking API key "+args[0]); err != nil {
				return err
			}
			if err := s.svc.RevokeAPIKey(ctx, org, args[0]); err != nil {
				return err
			}
			return out.emit(api.Success{Success: true}, func(t *table) { t.row(fmt.Sprintf("revoked API key %s", args[0])) })
		}),
	}
	c.Flags().BoolVar(&yes, "yes", false, "confirm the revocation (asked on a terminal)")
	return c
}
