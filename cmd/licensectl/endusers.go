package main

import (
	"context"
	"fmt"
	"licensectl/server/api"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"licensectl/store"
)

func newUserCmd(e *env) *cobra.Command {
	return noun("user", "Manage an application's end-users",
		newUserListCmd(e), newUserSetStatusCmd(e), newUserAddRoleCmd(e), newUserRemoveRoleCmd(e))
}

func newUserListCmd(e *env) *cobra.Command {
	var app, status, email string
	var pf pageFlags
	c := &cobra.Command{
		Use:     "list",
		Short:   "List end-users of the --env environment, newest first",
		Example: "  licensectl user list --app studio\n  licensectl user list --app studio --status banned --all -o json",
		Args:    exactArgs(),
		RunE: e.onScope(&app, func(ctx context.Context, cmd *cobra.Command, s *session, sc store.Scope, out *output, args []string) error {
			page, err := collect(pf, func(pr store.PageRequest) (*store.Page[*store.EndUser], error) {
				return s.svc.ListEndUsers(ctx, sc, store.StatusFilter{Status: status, Email: email, PageRequest: pr})
			})
			if err != nil {
				return err
			}
			v := api.PageOf(page, api.EndUserItemOf)
			return out.emit(v, func(t *table) {
				t.row("ID", "STATUS", "E-MAIL")
				for _, u := range page.Data {
					t.row(u.ID, u.Status, u.Email)
				}
				footer(t, page)
			})
		}),
	}
	bindApp(c, &app)
	c.Flags().StringVar(&status, "status", "", "only this status: active, banned, disabled")
	c.Flags().StringVar(&email, "email", "", "only the user with this e-mail")
	pf.bind(c)
	return csvList(c)
}

func newUserSetStatusCmd(e *env) *cobra.Command {
	return newSetStatusCmd(e, "user", "ID|EMAIL",
		"Set an end-user's status: active, banned or disabled (the last two end sessions)",
		"  licensectl user set-status --app studio bob@example.com banned",
		(*session).endUserRef,
		func(ctx context.Context, svc store.Admin, sc store.Scope, id, status string) (string, string, error) {
			u, err := svc.SetEndUserStatus(ctx, sc, id, status)
			if err != nil {
				return "", "", err
			}
			return u.ID, u.Status, nil
		})
}

func newUserAddRoleCmd(e *env) *cobra.Command {
	return newUserRoleCmd(e, "add-role", "Attach a role to an end-user (idempotent); roles ride in access tokens", "beta-tester",
		func(ctx context.Context, s *session, org, user, role string) (*store.EndUserRoles, error) {
			return s.svc.AddEndUserRole(ctx, org, user, role)
		})
}

func newUserRemoveRoleCmd(e *env) *cobra.Command {
	return newUserRoleCmd(e, "remove-role", "Detach a role from an end-user (removing one it lacks changes nothing)", "beta-tester",
		func(ctx context.Context, s *session, org, user, role string) (*store.EndUserRoles, error) {
			return s.svc.RemoveEndUserRole(ctx, org, user, role)
		})
}

// newUserRoleCmd is add-role or remove-role: the user named by id, or by
// e-mail in --app's --env environment, and the change made by change.
func newUserRoleCmd(e *env, verb, short, example string, change func(ctx context.Context, s *session, org, user, role string) (*store.EndUserRoles, error)) *cobra.Command {
	var app string
	c := &cobra.Command{
		Use:   verb + " ID|EMAIL ROLE",
		Short: short,
		Long:  "A user named by e-mail is looked up in the --env environment of --app.",
		Example: "  licensectl user " + verb + " 0193a5c2-7d1e-7c3a-9b1f-2f6e8d9c0a11 " + example + "\n" +
			"  licensectl user " + verb + " --app studio bob@example.com " + example,
		Args: exactArgs("ID|EMAIL", "ROLE"),
		RunE: e.onOrg(func(ctx context.Context, cmd *cobra.Command, s *session, org string, out *output, args []string) error {
			id := args[0]
			if !store.ValidID(id) {
				if app == "" {
					return usageErrorf("a user named by e-mail needs --app")
				}
				sc, err := s.scope(ctx, app)
				if err != nil {
					return err
				}
				if id, err = s.endUserRef(ctx, sc, id); err != nil {
					return err
				}
			}
			r, err := change(ctx, s, org, id, args[1])
			if err != nil {
				return err
			}
			v := api.EndUserRoles{Success: true, UserID: r.UserID, Roles: nonNil(r.Roles)}
			return out.emit(v, func(t *table) { t.row(fmt.Sprintf("user %s roles: %s", v.UserID, strings.Join(v.Roles, ", "))) })
		}),
	}
	c.Flags().StringVar(&app, "app", "", "application id, slug or name (to name the user by e-mail)")
	return c
}

func newDeviceCmd(e *env) *cobra.Command {
	return noun("device", "Manage an application's devices", newDeviceListCmd(e), newDeviceSetStatusCmd(e))
}

func newDeviceListCmd(e *env) *cobra.Command {
	var app, status, fingerprint, license string
	var pf pageFlags
	c := &cobra.Command{
		Use:   "list",
		Short: "List devices of the --env environment, newest first",
		Long: "--license lists the devices bound to one license (its id, key or user e-mail),\n" +
			"page by page; it takes no other filter.",
		Example: "  licensectl device list --app studio\n  licensectl device list --app studio --status blocked -o json\n" +
			"  licensectl device list --app studio --license 7KQ2M-4XB9D-T3ZHC-8WFJN-R6PEA --page 2",
		Args: exactArgs(),
		RunE: e.onScope(&app, func(ctx context.Context, cmd *cobra.Command, s *session, sc store.Scope, out *output, args []string) error {
			f := store.StatusFilter{Status: status, Fingerprint: fingerprint}
			if license != "" {
				id, err := s.licenseRef(ctx, sc, license)
				if err != nil {
					return err
				}
				f.LicenseID = id
			}
			page, err := collect(pf, func(pr store.PageRequest) (*store.Page[*store.Device], error) {
				f.PageRequest = pr
				return s.svc.ListDevices(ctx, sc, f)
			})
			if err != nil {
				return err
			}
			v := api.PageOf(page, api.DeviceItemOf)
			return out.emit(v, func(t *table) {
				// The fingerprint stays last, where a long one may run on.
				t.row("ID", "STATUS", "LICENSES", "LAST SEEN", "FINGERPRINT")
				for _, d := range page.Data {
					t.row(d.ID, d.Standing(), fmt.Sprint(len(d.LicenseIDs)), dayp(d.LastSeenAt), d.Fingerprint)
				}
				footer(t, page)
			})
		}),
	}
	bindApp(c, &app)
	c.Flags().StringVar(&status, "status", "", "only this status: active, blocked")
	c.Flags().StringVar(&fingerprint, "fingerprint", "", "only the device with this fingerprint")
	c.Flags().StringVar(&license, "license", "", "only the devices bound to this license (id, key or user e-mail)")
	pf.bind(c)
	return csvList(c)
}

func newDeviceSetStatusCmd(e *env) *cobra.Command {
	return newSetStatusCmd(e, "device", "ID|FINGERPRINT",
		"Set a device's status: active or blocked (blocking ends its sessions)",
		"  licensectl device set-status --app studio 0193a5c2-7d1e-7c3a-9b1f-2f6e8d9c0a11 blocked",
		(*session).deviceRef,
		func(ctx context.Context, svc store.Admin, sc store.Scope, id, status string) (string, string, error) {
			d, err := svc.SetDeviceStatus(ctx, sc, id, status)
			if err != nil {
				return "", "", err
			}
			return d.ID, d.Status, nil
		})
}

// newSetStatusCmd builds the `set-status REF STATUS` command of a noun whose
// records live in an application environment; ref resolves the record as
// typed, set returns the id and the status the record now has.
func newSetStatusCmd(e *env, noun, use, short, example string, ref refResolver,
	set func(ctx context.Context, svc store.Admin, sc store.Scope, id, status string) (string, string, error)) *cobra.Command {
	var app string
	var yes bool
	c := &cobra.Command{
		Use:     "set-status " + use + " STATUS",
		Short:   short,
		Example: example,
		Args:    exactArgs(use, "STATUS"),
		RunE: e.onScope(&app, func(ctx context.Context, cmd *cobra.Command, s *session, sc store.Scope, out *output, args []string) error {
			if noun == "license" && (args[1] == store.LicenseRevoked || args[1] == store.LicenseBanned) {
				if err := e.confirm(yes, "setting a license "+args[1]); err != nil {
					return err
				}
			}
			id, err := ref(s, ctx, sc, args[0])
			if err != nil {
				return err
			}
			id, status, err := set(ctx, s.svc, sc, id, args[1])
			if err != nil {
				return err
			}
			v := api.StatusChanged{ID: id, Status: status}
			return out.emit(v, func(t *table) {
				// A license never activated goes back to inactive when
				// reinstated; "is inactive" alone reads as a failure.
				if args[1] == store.LicenseActive && status == store.LicenseInactive {
					t.row(fmt.Sprintf("%s %s is reinstated: usable, and inactive until a device activates it", noun, v.ID))
					return
				}
				t.row(fmt.Sprintf("%s %s is %s", noun, v.ID, v.Status))
			})
		}),
	}
	bindApp(c, &app)
	if noun == "license" {
		c.Flags().BoolVar(&yes, "yes", false, "confirm revoked or banned, which are final (asked on a terminal)")
	}
	return c
}

func newAuditCmd(e *env) *cobra.Command {
	return noun("audit", "Read an application's or the organization's audit log", newAuditListCmd(e))
}

func newAuditListCmd(e *env) *cobra.Command {
	var app, event, from, to string
	var target auditTarget
	var pf pageFlags
	c := &cobra.Command{
		Use:   "list",
		Short: "List audit entries of --app in the --env environment, or without --app the organization's own, newest first",
		Example: "  licensectl audit list --app studio\n" +
			"  licensectl audit list --event member.added\n" +
			"  licensectl audit list --app studio --license ABCDE-FGHJK-MNPQR-STVWX-YZ012\n" +
			"  licensectl audit list --app studio --user ada@example.com --from 2026-01-01T00:00:00Z\n" +
			"  licensectl audit list --app studio --event license.created --from 2026-01-01T00:00:00Z -o json",
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := outputFor(cmd, fmtTable, fmtJSON)
			if err != nil {
				return err
			}
			f := store.AuditFilter{Event: event}
			if err := target.check(app, event); err != nil {
				return err
			}
			for _, x := range []struct {
				flag, v string
				dst     **time.Time
			}{{"from", from, &f.From}, {"to", to, &f.To}} {
				if x.v == "" {
					continue
				}
				t, err := time.Parse(time.RFC3339, x.v)
				if err != nil {
					return usageErrorf("--%s must be an RFC 3339 time such as 2026-01-01T00:00:00Z", x.flag)
				}
				t = t.UTC()
				*x.dst = &t
			}
			return e.withSession(cmd, openOpts{}, func(ctx context.Context, s *session) error {
				list := func(pr store.PageRequest) (*store.Page[*store.AuditEntry], error) {
					// Without --app: the organization-level log (members, API keys, the organization).
					org, err := s.org(ctx)
					if err != nil {
						return nil, err
					}
					f.PageRequest = pr
					return s.svc.ListOrgAudit(ctx, org, f)
				}
				if app != "" {
					sc, err := s.scope(ctx, app)
					if err != nil {
						return err
					}
					if f.TargetID, err = target.resolve(ctx, s, sc); err != nil {
						return err
					}
					list = func(pr store.PageRequest) (*store.Page[*store.AuditEntry], error) {
						f.PageRequest = pr
						return s.svc.ListAudit(ctx, sc, f)
					}
				}
				page, err := collect(pf, list)
				if err != nil {
					return err
				}
				v := api.PageOf(page, api.AuditEntryOf)
				return out.emit(v, func(t *table) {
					t.row("TIME", "EVENT", "ACTOR", "TARGET")
					for _, a := range page.Data {
						t.row(a.CreatedAt.UTC().Format("2006-01-02 15:04:05"), a.Event, a.Actor.Type, strings.TrimSpace(a.Target.Type+" "+a.Target.ID))
					}
					footer(t, page)
				})
			})
		},
	}
	c.Flags().StringVar(&app, "app", "", "application id, slug or name; without it, the organization's own log")
	c.Flags().StringVar(&event, "event", "", "only this event, e.g. license.created")
	c.Flags().StringVar(&from, "from", "", "entries at or after this RFC 3339 time")
	c.Flags().StringVar(&to, "to", "", "entries before this RFC 3339 time")
	c.Flags().StringVar(&target.license, "license", "", "only the history of this license (id, key, or its holder's e-mail); needs --app")
	c.Flags().StringVar(&target.device, "device", "", "only the history of this device (fingerprint or id); needs --app")
	c.Flags().StringVar(&target.user, "user", "", "only the history of this end-user (e-mail or id); needs --app")
	pf.bind(c)
	return csvList(c)
}

// auditTarget holds the record whose history `audit list` is asked for:
// at most one of a license, a device and an end-user, named the way the
// other commands name them.
type auditTarget struct{ license, device, user string }

// check refuses a target the log cannot answer for before anything is
// opened: two targets at once, a target without --app (records belong to
// an application's log) or with --event (the store filters by one or the
// other).
func (t auditTarget) check(app, event string) error {
	var named []string
	for _, x := range []struct{ flag, v string }{{"--license", t.license}, {"--device", t.device}, {"--user", t.user}} {
		if x.v != "" {
			named = append(named, x.flag)
		}
	}
	switch {
	case len(named) == 0:
		return nil
	case len(named) > 1:
		return usageErrorf("%s name different records: give one of --license, --device and --user", strings.Join(named, " and "))
	case app == "":
		return usageErrorf("%s needs --app: licenses, devices and users belong to an application's log", named[0])
	case event != "":
		return usageErrorf("%s cannot be combined with --event: a record's history lists all its events", named[0])
	}
	return nil
}

// resolve returns the id of the target in sc, "" when none was named.
func (t auditTarget) resolve(ctx context.Context, s *session, sc store.Scope) (string, error) {
	switch {
	case t.license != "":
		return s.licenseRef(ctx, sc, t.license)
	case t.device != "":
		return s.deviceRef(ctx, sc, t.device)
	case t.user != "":
		return s.endUserRef(ctx, sc, t.user)
	}
	return "", nil
}
