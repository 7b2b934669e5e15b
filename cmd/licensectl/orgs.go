package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"licensectl/server/api"
	"licensectl/store"
)

func newOrgCmd(e *env) *cobra.Command {
	return noun("org", "Manage organizations (local, or remotely with the operator token)",
		newOrgCreateCmd(e), newOrgListCmd(e), newOrgShowCmd(e))
}

func newOrgCreateCmd(e *env) *cobra.Command {
	var ownerEmail, ownerPasswordFile string
	c := &cobra.Command{
		Use:   "create NAME",
		Short: "Create an organization, optionally with a verified owner",
		Example: "  licensectl org create \"Acme Software\"\n" +
			"  licensectl org create Acme --owner-email ops@acme.test          # asks for the password\n" +
			"  licensectl org create Acme --owner-email ops@acme.test --owner-password-file pw.txt\n" +
			"  printf '%s\\n' \"$PW\" | licensectl org create Acme --owner-email ops@acme.test --owner-password-file -\n" +
			"  licensectl --server http://127.0.0.1:8080 --api-key \"$(cat data/operator.token)\" org create Acme",
		Args: exactArgs("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := outputFor(cmd, fmtTable, fmtJSON)
			if err != nil {
				return err
			}
			if ownerEmail == "" && ownerPasswordFile != "" {
				return usageErrorf("--owner-password-file needs --owner-email")
			}
			var ownerPassword string
			if ownerEmail != "" {
				// Never a flag: shell history and the process list would keep it.
				if ownerPassword, err = e.readSecret(ownerPasswordFile, "owner password", "owner-password-file"); err != nil {
					return err
				}
			}
			return e.withSession(cmd, openOpts{create: true}, func(ctx context.Context, s *session) error {
				o, err := s.svc.CreateOrganization(ctx, store.CreateOrganizationInput{Name: args[0], OwnerEmail: ownerEmail, OwnerPassword: ownerPassword})
				if err != nil {
					return err
				}
				return out.emit(api.AdminOrganizationOf(o), func(t *table) { orgFields(t, o) })
			})
		},
	}
	c.Flags().StringVar(&ownerEmail, "owner-email", "", "e-mail of the organization's first owner (created verified)")
	c.Flags().StringVar(&ownerPasswordFile, "owner-password-file", "", "read the first owner's password from FILE (- for standard input); without it, a no-echo prompt asks")
	return c
}

func orgFields(t *table, o *store.Organization) {
	t.field("ID", o.ID)
	t.field("Name", o.Name)
	t.field("Slug", o.Slug)
	t.field("Verified", yesNo(o.EmailVerified))
	t.field("Created", stamp(o.CreatedAt))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func newOrgListCmd(e *env) *cobra.Command {
	return csvList(&cobra.Command{
		Use:   "list",
		Short: "List organizations, newest first",
		Example: "  licensectl org list\n" +
			"  licensectl org list -o json",
		Args: exactArgs(),
		RunE: e.onSession(func(ctx context.Context, cmd *cobra.Command, s *session, out *output, args []string) error {
			list, err := s.svc.ListOrganizations(ctx)
			if err != nil {
				return err
			}
			return out.emit(api.WholePage(mapSlice(list, api.AdminOrganizationOf)), func(t *table) {
				t.row("ID", "SLUG", "NAME", "CREATED")
				for _, o := range list {
					t.row(o.ID, o.Slug, t.text(o.Name, 24), day(o.CreatedAt))
				}
			})
		}),
	})
}

func newOrgShowCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "show [ID|SLUG]",
		Short: "Show an organization (default: the one --org or the credential names)",
		Example: "  licensectl org show\n" +
			"  licensectl org show acme-software -o json",
		Args: rangeArgs(0, 1),
		RunE: e.onSession(func(ctx context.Context, cmd *cobra.Command, s *session, out *output, args []string) error {
			if len(args) == 1 {
				s.orgArg = strings.TrimSpace(args[0])
			}
			id, err := s.org(ctx)
			if err != nil {
				return err
			}
			o, err := s.svc.FindOrganization(ctx, id)
			if err != nil {
				return err
			}
			return out.emit(api.AdminOrganizationOf(o), func(t *table) { orgFields(t, o) })
		}),
	}
}

func newMemberCmd(e *env) *cobra.Command {
	return noun("member", "Manage dashboard members of the organization",
		newMemberAddCmd(e), newMemberListCmd(e), newMemberRemoveCmd(e))
}

func newMemberAddCmd(e *env) *cobra.Command {
	var in store.AddMemberInput
	c := &cobra.Command{
		Use:   "add EMAIL",
		Short: "Add a verified dashboard member with a password",
		Example: "  licensectl member add dev@acme.test --role developer --password 'a long passphrase'\n" +
			"  licensectl member add boss@acme.test --role owner --password \"$PW\" --first-name Ada --last-name Lovelace",
		Args: exactArgs("EMAIL"),
		RunE: e.onOrg(func(ctx context.Context, cmd *cobra.Command, s *session, org string, out *output, args []string) error {
			in.OrgID, in.Email = org, args[0]
			m, err := s.svc.AddMember(ctx, in)
			if err != nil {
				return err
			}
			return out.emit(api.MemberItemOf(m), func(t *table) {
				t.field("ID", m.ID)
				t.field("E-mail", m.Email)
				t.field("Role", m.Role)
			})
		}),
	}
	c.Flags().StringVar(&in.Role, "role", store.RoleDeveloper, "role: owner, admin, developer or viewer")
	c.Flags().StringVar(&in.Password, "password", "", "the member's password (10+ characters, not a common one)")
	c.Flags().StringVar(&in.FirstName, "first-name", "", "first name")
	c.Flags().StringVar(&in.LastName, "last-name", "", "last name")
	_ = c.MarkFlagRequired("password")
	return c
}

func newMemberListCmd(e *env) *cobra.Command {
	return csvList(&cobra.Command{
		Use:     "list",
		Short:   "List the organization's members",
		Example: "  licensectl member list\n  licensectl member list --org acme -o json",
		Args:    exactArgs(),
		RunE: e.onOrg(func(ctx context.Context, cmd *cobra.Command, s *session, org string, out *output, args []string) error {
			list, err := s.svc.ListMembers(ctx, org)
			if err != nil {
				return err
			}
			return out.emit(mapSlice(list, api.MemberItemOf), func(t *table) {
				t.row("ID", "ROLE", "E-MAIL")
				for _, m := range list {
					t.row(m.ID, m.Role, m.Email)
				}
			})
		}),
	})
}

func newMemberRemoveCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "remove ID|EMAIL",
		Short:   "Remove a member (the last owner cannot be removed)",
		Example: "  licensectl member remove dev@acme.test\n  licensectl member remove 0193a5c2-7d1e-7c3a-9b1f-2f6e8d9c0a11",
		Args:    exactArgs("ID|EMAIL"),
		RunE: e.onOrg(func(ctx context.Context, cmd *cobra.Command, s *session, org string, out *output, args []string) error {
			id := args[0]
			if !store.ValidID(id) {
				list, err := s.svc.ListMembers(ctx, org)
				if err != nil {
					return err
				}
				id = ""
				for _, m := range list {
					if strings.EqualFold(m.Email, strings.TrimSpace(args[0])) {
						id = m.ID
					}
				}
				if id == "" {
					return store.Errorf(store.ECodeNotFound, "member %q not found", args[0])
				}
			}
			if err := s.svc.RemoveMember(ctx, org, id); err != nil {
				return err
			}
			return out.emit(api.Success{Success: true}, func(t *table) { t.row("removed member " + id) })
		}),
	}
}
