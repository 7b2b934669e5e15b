package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"licensectl/server/api"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"licensectl/store"
)

func newLicenseCmd(e *env) *cobra.Command {
	return noun("license", "Generate and manage license keys",
		newLicenseGenerateCmd(e), newLicenseListCmd(e), newLicenseShowCmd(e), newLicenseSetStatusCmd(e), newLicenseResetDeviceCmd(e),
		newLicenseMachineFileCmd(e), newLicenseRenewCmd(e), newLicenseSetPlanCmd(e), newLicenseTransferCmd(e), newLicenseSetExpiryCmd(e))
}

func newLicenseGenerateCmd(e *env) *cobra.Command {
	var app, plan, expires string
	var n int
	var ents []string
	c := &cobra.Command{
		Use:   "generate",
		Short: "Generate license keys for a plan",
		Long: "Generate creates -n licenses for a plan in the --env environment. More than\n" +
			fmt.Sprint(store.MaxGenerate) + " are made in several calls of at most " + fmt.Sprint(store.MaxGenerate) + ", with progress on\n" +
			"stderr. -o keys prints exactly one key per line and nothing else, for scripts;\n" +
			"-o csv prints a header and one row per license.",
		Example: "  licensectl license generate --app studio --plan Pro -n 500 -o keys > keys.txt\n" +
			"  licensectl license generate --app studio --plan Pro --expires-at 2027-01-01T00:00:00Z -o csv\n" +
			"  licensectl license generate --app studio --plan Trial --env development -o json",
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := outputFor(cmd, fmtTable, fmtJSON, fmtCSV, fmtKeys)
			if err != nil {
				return err
			}
			if n < 1 {
				return usageErrorf("-n must be at least 1")
			}
			in := store.GenerateLicensesInput{}
			if expires != "" {
				t, err := time.Parse(time.RFC3339, expires)
				if err != nil {
					return usageErrorf("--expires-at must be an RFC 3339 time such as 2027-01-01T00:00:00Z")
				}
				t = t.UTC()
				in.ExpiresAt = &t
			}
			return e.withSession(cmd, openOpts{}, func(ctx context.Context, s *session) error {
				sc, err := s.scope(ctx, app)
				if err != nil {
					return err
				}
				p, err := s.plan(ctx, sc.App(), plan)
				if err != nil {
					return err
				}
				in.PlanID = p.ID
				if in.EntitlementIDs, err = s.entitlementIDs(ctx, sc.App(), ents); err != nil {
					return err
				}
				var all []*store.LicenseItem
				var genErr error
				for done := 0; done < n; {
					in.Quantity = min(store.MaxGenerate, n-done)
					got, err := s.svc.GenerateLicenses(ctx, sc, in)
					if err != nil {
						genErr = err
						break
					}
					all = append(all, got...)
					done += len(got)
					if n > store.MaxGenerate {
						fmt.Fprintf(cmd.ErrOrStderr(), "generated %d/%d licenses\n", done, n)
					}
				}
				// What was generated is printed even after a failure, so no
				// created key is lost; the error then says how far it got.
				if err := printGenerated(out, all); err != nil {
					return err
				}
				if genErr != nil && len(all) > 0 {
					return fmt.Errorf("generated %d of %d licenses (printed above), then: %w", len(all), n, genErr)
				}
				return genErr
			})
		},
	}
	fs := c.Flags()
	fs.StringVar(&app, "app", "", "application id, slug or name (required)")
	fs.StringVar(&plan, "plan", "", "plan id or name (required)")
	fs.IntVarP(&n, "count", "n", 1, "number of licenses")
	fs.StringVar(&expires, "expires-at", "", "expiry, RFC 3339 (default: the plan's duration from first activation, or never)")
	fs.StringSliceVar(&ents, "entitlement", nil, "extra entitlement id or key on top of the plan's (repeatable)")
	_ = c.MarkFlagRequired("app")
	_ = c.MarkFlagRequired("plan")
	return c
}

// printGenerated writes generated licenses in the chosen format.
func printGenerated(out *output, list []*store.LicenseItem) error {
	now := time.Now()
	switch out.format {
	case fmtKeys:
		var b strings.Builder
		for _, l := range list {
			b.WriteString(l.Key)
			b.WriteByte('\n')
		}
		_, err := fmt.Fprint(out.w, b.String())
		return err
	case fmtCSV:
		w := csv.NewWriter(out.w)
		_ = w.Write([]string{"id", "key", "status", "plan_id", "plan_name", "expires_at", "created_at"})
		for _, l := range list {
			exp := ""
			if l.ExpiresAt != nil {
				exp = l.ExpiresAt.UTC().Format(time.RFC3339)
			}
			_ = w.Write(csvCells([]string{l.ID, l.Key, l.EffectiveStatus(now), l.PlanID, l.PlanName, exp, l.CreatedAt.UTC().Format(time.RFC3339Nano)}))
		}
		w.Flush()
		return w.Error()
	}
	views := mapSlice(list, func(l *store.LicenseItem) api.LicenseItem { return api.LicenseItemOf(l, now) })
	return out.emit(api.LicensesGenerated{Licenses: views}, func(t *table) {
		t.row("ID", "KEY")
		for _, l := range list {
			t.row(l.ID, l.Key)
		}
	})
}

// pageFlags are --page, --per-page and --all of list commands.
type pageFlags struct {
	page, perPage int
	all           bool
}

func (f *pageFlags) bind(c *cobra.Command) {
	c.Flags().IntVar(&f.page, "page", 1, "page number, from 1")
	c.Flags().IntVar(&f.perPage, "per-page", store.DefaultPerPage, fmt.Sprintf("items per page, 1-%d", store.MaxPerPage))
	c.Flags().BoolVar(&f.all, "all", false, "list every page")
}

// collect reads one page, or every page with --all. --all follows each
// page's next_cursor, so the last page of a long list costs what the first
// does and an item added meanwhile does not shift one into the next page.
func collect[T any](f pageFlags, get func(store.PageRequest) (*store.Page[T], error)) (*store.Page[T], error) {
	// 0 would reach the store as "unset" and read as the default, so a
	// script counting pages from 0 would get page 1 twice without a word.
	if f.page < 1 {
		return nil, usageErrorf("--page must be at least 1, got %d", f.page)
	}
	if f.perPage < 1 || f.perPage > store.MaxPerPage {
		return nil, usageErrorf("--per-page must be 1-%d, got %d", store.MaxPerPage, f.perPage)
	}
	if !f.all {
		return get(store.PageRequest{Page: f.page, PerPage: f.perPage})
	}
	out := &store.Page[T]{Page: 1}
	req := store.PageRequest{PerPage: store.MaxPerPage}
	for {
		p, err := get(req)
		if err != nil {
			return nil, err
		}
		out.Data = append(out.Data, p.Data...)
		out.Total = p.Total
		if p.NextCursor == "" {
			break
		}
		req.Cursor = p.NextCursor
	}
	out.PerPage = len(out.Data)
	return out, nil
}

// footer tells a table reader where the page is.
func footer[T any](t *table, p *store.Page[T]) {
	if p.Total > len(p.Data) {
		t.row(fmt.Sprintf("(page %d, %d of %d; --page, --per-page or --all for more)", p.Page, len(p.Data), p.Total))
	}
}

func newLicenseListCmd(e *env) *cobra.Command {
	var app, status, plan, key, user string
	var pf pageFlags
	c := &cobra.Command{
		Use:   "list",
		Short: "List licenses, newest first",
		Long: "Lists licenses, newest first: key, status, plan, end-user, devices bound and\n" +
			"expiry (- when none yet: a plan's duration starts at first activation).\n" +
			"The ids are in -o json and -o csv; -o keys prints one key a line.",
		Example: "  licensectl license list --app studio\n" +
			"  licensectl license list --app studio --status active --plan Pro --all -o json\n" +
			"  licensectl license list --app studio --status inactive --all -o keys\n" +
			"  licensectl license list --app studio --user bob@example.com",
		Args: exactArgs(),
		RunE: e.onScope(&app, func(ctx context.Context, cmd *cobra.Command, s *session, sc store.Scope, out *output, args []string) error {
			f := store.LicenseFilter{Status: status, Key: key}
			if store.ValidID(user) {
				f.UserID = user
			} else {
				f.UserEmail = user
			}
			if plan != "" {
				p, err := s.plan(ctx, sc.App(), plan)
				if err != nil {
					return err
				}
				f.PlanID = p.ID
			}
			page, err := collect(pf, func(pr store.PageRequest) (*store.Page[*store.LicenseItem], error) {
				f.PageRequest = pr
				return s.svc.ListLicenses(ctx, sc, f)
			})
			if err != nil {
				return err
			}
			if out.format == fmtKeys {
				return printGenerated(out, page.Data)
			}
			now := time.Now()
			v := api.PageOf(page, func(l *store.LicenseItem) api.LicenseItem { return api.LicenseItemOf(l, now) })
			return out.emit(v, func(t *table) {
				// No id column: the key names a license to every command,
				// and with it the rows would not fit 80 columns.
				t.row("KEY", "STATUS", "PLAN", "USER", "DEVICES", "EXPIRES")
				for _, l := range v.Data {
					user := "-"
					if l.User != nil {
						user = l.User.Email
					}
					expires := "-"
					if l.ExpiresAt != nil {
						expires = day(*l.ExpiresAt)
					}
					t.row(l.Key, l.Status, t.text(l.Plan.Name, 16), user, fmt.Sprint(l.DevicesCount), expires)
				}
				footer(t, page)
			})
		}),
	}
	bindApp(c, &app)
	c.Flags().StringVar(&status, "status", "", "only this status: inactive, active, expired, suspended, revoked, banned")
	c.Flags().StringVar(&plan, "plan", "", "only this plan (id or name)")
	c.Flags().StringVar(&key, "key", "", "only the license with this key (any case, dashes optional)")
	c.Flags().StringVar(&user, "user", "", "only licenses of this end-user (id or e-mail)")
	pf.bind(c)
	return keysList(csvList(c))
}

func licenseFields(t *table, v api.LicenseDetail) {
	t.field("ID", v.ID)
	t.field("Key", v.Key)
	t.field("Status", v.Status)
	t.field("Plan", v.Plan.Name+" ("+v.Plan.ID+")")
	if v.User != nil {
		t.field("User", v.User.Email+" ("+v.User.ID+")")
	} else {
		t.field("User", "-")
	}
	t.field("Activated", stampp(v.ActivatedAt))
	t.field("Expires", stampp(v.ExpiresAt))
	t.field("Updates until", stampp(v.MaintenanceExpiresAt))
	t.field("Resets left", fmt.Sprint(v.DeviceResetsRemaining))
	keys := make([]string, 0, len(v.Entitlements))
	for _, e := range v.Entitlements {
		keys = append(keys, e.Key)
	}
	t.field("Entitlements", orDash(strings.Join(keys, ", ")))
	t.field("Devices", fmt.Sprint(v.DevicesCount))
	for _, d := range v.Devices {
		t.field("  "+d.ID, d.Fingerprint+" "+d.Status)
	}
	// The detail carries the newest page only; the rest is a device list.
	if more := v.DevicesCount - len(v.Devices); more > 0 {
		t.field("  …", fmt.Sprintf("%d more: licensectl device list --app APP --license %s --page 2", more, v.ID))
	}
	t.field("Created", stamp(v.CreatedAt))
}

func newLicenseShowCmd(e *env) *cobra.Command {
	var app string
	c := &cobra.Command{
		Use:   "show ID|KEY|EMAIL",
		Short: "Show a license with its devices and entitlements",
		Long: "Name the license by its id, by its key as the customer reads it out (any case,\n" +
			"dashes optional) or by its user's e-mail when that user holds one license.\n" +
			"It shows how many devices are bound and the newest " + fmt.Sprint(store.LicenseDetailDevices) + "; `device list --license`\n" +
			"pages them all.",
		Example: "  licensectl license show --app studio 7KQ2M-4XB9D-T3ZHC-8WFJN-R6PEA\n" +
			"  licensectl license show --app studio bob@example.com -o json",
		Args: exactArgs("ID|KEY|EMAIL"),
		RunE: e.onScope(&app, func(ctx context.Context, cmd *cobra.Command, s *session, sc store.Scope, out *output, args []string) error {
			id, err := s.licenseRef(ctx, sc, args[0])
			if err != nil {
				return err
			}
			d, err := s.svc.FindLicense(ctx, sc, id)
			if err != nil {
				return err
			}
			v := api.LicenseDetailOf(d, time.Now())
			return out.emit(v, func(t *table) { licenseFields(t, v) })
		}),
	}
	bindApp(c, &app)
	return c
}

func newLicenseSetStatusCmd(e *env) *cobra.Command {
	c := newSetStatusCmd(e, "license", "ID|KEY|EMAIL",
		"Set a license's status: active, suspended, revoked or banned",
		"  licensectl license set-status --app studio 7KQ2M-4XB9D-T3ZHC-8WFJN-R6PEA suspended",
		(*session).licenseRef,
		func(ctx context.Context, svc store.Admin, sc store.Scope, id, status string) (string, string, error) {
			l, err := svc.SetLicenseStatus(ctx, sc, id, status)
			if err != nil {
				return "", "", err
			}
			return l.ID, l.EffectiveStatus(time.Now()), nil
		})
	c.Long = "Suspending, revoking or banning revokes the license's sessions; active\n" +
		"reinstates a suspended license; revoked and banned are final."
	return c
}

func newLicenseResetDeviceCmd(e *env) *cobra.Command {
	var app string
	c := &cobra.Command{
		Use:     "reset-device LICENSE DEVICE",
		Short:   "Unbind a device from a license (does not use the user's reset quota)",
		Long:    "LICENSE is an id, key or user e-mail; DEVICE an id or fingerprint.",
		Example: "  licensectl license reset-device --app studio 7KQ2M-4XB9D-T3ZHC-8WFJN-R6PEA old-laptop-fingerprint",
		Args:    exactArgs("LICENSE", "DEVICE"),
		RunE: e.onScope(&app, func(ctx context.Context, cmd *cobra.Command, s *session, sc store.Scope, out *output, args []string) error {
			lic, err := s.licenseRef(ctx, sc, args[0])
			if err != nil {
				return err
			}
			dev, err := s.deviceRef(ctx, sc, args[1])
			if err != nil {
				return err
			}
			if err := s.svc.ResetLicenseDevice(ctx, sc, lic, dev); err != nil {
				return err
			}
			return out.emit(api.Success{Success: true}, func(t *table) { t.row("unbound device " + dev + " from license " + lic) })
		}),
	}
	bindApp(c, &app)
	return c
}
