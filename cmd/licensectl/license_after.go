package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"licensectl/server/api"
	"licensectl/store"
)

// The licence after the sale (docs/design.md §16): each command changes
// one license and shows its detail as it now reads.

// showLicense emits the detail of license id.
func showLicense(ctx context.Context, s *session, sc store.Scope, out *output, id string) error {
	d, err := s.svc.FindLicense(ctx, sc, id)
	if err != nil {
		return err
	}
	v := api.LicenseDetailOf(d, time.Now())
	return out.emit(v, func(t *table) { licenseFields(t, v) })
}

func newLicenseRenewCmd(e *env) *cobra.Command {
	var app string
	var days, mnt int
	c := &cobra.Command{
		Use:   "renew ID|KEY|EMAIL",
		Short: "Renew a license: its expiry, and its maintenance, move on by days",
		Long: "The expiry moves to the later of now and the current expiry, plus --days\n" +
			"(default: the plan's duration_days), so an expired license renewed works\n" +
			"again with the sessions it had. --maintenance-days moves the end of updates\n" +
			"the same way; given alone, the expiry stays. A perpetual license has no\n" +
			"expiry to renew (give it one with license set-expiry).",
		Example: "  licensectl license renew --app studio 7KQ2M-4XB9D-T3ZHC-8WFJN-R6PEA\n" +
			"  licensectl license renew --app studio bob@example.com --days 365 --maintenance-days 365",
		Args: exactArgs("ID|KEY|EMAIL"),
		RunE: e.onScope(&app, func(ctx context.Context, cmd *cobra.Command, s *session, sc store.Scope, out *output, args []string) error {
			var in store.RenewInput
			if cmd.Flags().Changed("days") {
				in.Days = &days
			}
			if cmd.Flags().Changed("maintenance-days") {
				in.MaintenanceDays = &mnt
			}
			id, err := s.licenseRef(ctx, sc, args[0])
			if err != nil {
				return err
			}
			if _, err := s.svc.RenewLicense(ctx, sc, id, in); err != nil {
				return err
			}
			return showLicense(ctx, s, sc, out, id)
		}),
	}
	bindApp(c, &app)
	c.Flags().IntVar(&days, "days", 0, "days to add to the expiry (1–36500; default the plan's duration_days)")
	c.Flags().IntVar(&mnt, "maintenance-days", 0, "days to add to the end of updates (1–36500)")
	return c
}

func newLicenseSetPlanCmd(e *env) *cobra.Command {
	var app string
	c := &cobra.Command{
		Use:   "set-plan ID|KEY|EMAIL PLAN",
		Short: "Move a license to another plan of its application",
		Long: "Entitlements follow the new plan at once, on live sessions too; the reset\n" +
			"quota becomes the new plan's minus the resets already spent; the expiry is\n" +
			"kept (license renew changes it). More devices bound than the new plan\n" +
			"allows is refused (too_many_devices): reset devices first.",
		Example: "  licensectl license set-plan --app studio 7KQ2M-4XB9D-T3ZHC-8WFJN-R6PEA Pro",
		Args:    exactArgs("ID|KEY|EMAIL", "PLAN"),
		RunE: e.onScope(&app, func(ctx context.Context, cmd *cobra.Command, s *session, sc store.Scope, out *output, args []string) error {
			id, err := s.licenseRef(ctx, sc, args[0])
			if err != nil {
				return err
			}
			p, err := s.plan(ctx, sc.App(), args[1])
			if err != nil {
				return err
			}
			if _, err := s.svc.UpdateLicense(ctx, sc, id, store.LicenseUpdate{PlanID: &p.ID}); err != nil {
				return err
			}
			return showLicense(ctx, s, sc, out, id)
		}),
	}
	bindApp(c, &app)
	return c
}

func newLicenseTransferCmd(e *env) *cobra.Command {
	var app, to string
	var unassign bool
	c := &cobra.Command{
		Use:   "transfer ID|KEY --to EMAIL|--unassign",
		Short: "Hand a license to another end-user, or unassign it",
		Long: "The previous owner's login sessions lose the license's entitlements at\n" +
			"once; the sessions of devices it is activated on stay (reset a device to\n" +
			"move the seat too).",
		Example: "  licensectl license transfer --app studio 7KQ2M-4XB9D-T3ZHC-8WFJN-R6PEA --to carol@example.com\n" +
			"  licensectl license transfer --app studio 7KQ2M-4XB9D-T3ZHC-8WFJN-R6PEA --unassign",
		Args: exactArgs("ID|KEY"),
		RunE: e.onScope(&app, func(ctx context.Context, cmd *cobra.Command, s *session, sc store.Scope, out *output, args []string) error {
			if (to == "") == !unassign {
				return usageErrorf("give either --to EMAIL or --unassign")
			}
			id, err := s.licenseRef(ctx, sc, args[0])
			if err != nil {
				return err
			}
			user := ""
			if to != "" {
				if user, err = s.endUserRef(ctx, sc, to); err != nil {
					return err
				}
			}
			if _, err := s.svc.UpdateLicense(ctx, sc, id, store.LicenseUpdate{UserID: &user}); err != nil {
				return err
			}
			return showLicense(ctx, s, sc, out, id)
		}),
	}
	bindApp(c, &app)
	c.Flags().StringVar(&to, "to", "", "the end-user (e-mail or id) who gets the license")
	c.Flags().BoolVar(&unassign, "unassign", false, "leave the license without an end-user")
	return c
}

func newLicenseSetExpiryCmd(e *env) *cobra.Command {
	var app string
	c := &cobra.Command{
		Use:   "set-expiry ID|KEY|EMAIL DATE|never",
		Short: "Set a license's expiry (RFC 3339 or YYYY-MM-DD, UTC), or make it perpetual",
		Long: "A date in the past makes the license expired at once; one ahead makes an\n" +
			"expired license usable again; never makes it perpetual.",
		Example: "  licensectl license set-expiry --app studio 7KQ2M-4XB9D-T3ZHC-8WFJN-R6PEA 2027-06-30\n" +
			"  licensectl license set-expiry --app studio 7KQ2M-4XB9D-T3ZHC-8WFJN-R6PEA never",
		Args: exactArgs("ID|KEY|EMAIL", "DATE|never"),
		RunE: e.onScope(&app, func(ctx context.Context, cmd *cobra.Command, s *session, sc store.Scope, out *output, args []string) error {
			var at *time.Time
			if args[1] != "never" {
				t, err := time.Parse(time.RFC3339, args[1])
				if err != nil {
					if t, err = time.Parse(time.DateOnly, args[1]); err != nil {
						return usageErrorf("DATE must be RFC 3339 (2027-06-30T00:00:00Z), a day (2027-06-30) or never")
					}
				}
				at = &t
			}
			id, err := s.licenseRef(ctx, sc, args[0])
			if err != nil {
				return err
			}
			if _, err := s.svc.UpdateLicense(ctx, sc, id, store.LicenseUpdate{ExpiresAt: &at}); err != nil {
				return err
			}
			return showLicense(ctx, s, sc, out, id)
		}),
	}
	bindApp(c, &app)
	return c
}
