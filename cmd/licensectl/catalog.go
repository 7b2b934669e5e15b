package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"licensectl/server/api"
	"licensectl/store"
)

func newEntitlementCmd(e *env) *cobra.Command {
	return noun("entitlement", "Manage an application's entitlements (features plans grant)",
		newEntitlementCreateCmd(e), newEntitlementListCmd(e), newEntitlementDeleteCmd(e))
}

func newEntitlementCreateCmd(e *env) *cobra.Command {
	var app, name, description string
	c := &cobra.Command{
		Use:   "create KEY",
		Short: "Create an entitlement",
		Example: "  licensectl entitlement create --app studio export.raw --name \"RAW export\"\n" +
			"  licensectl entitlement create --app studio pro --description \"Pro features\" -o json",
		Args: exactArgs("KEY"),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			in := store.CreateEntitlementInput{Key: args[0], Name: name}
			if in.Name == "" {
				in.Name = args[0]
			}
			if cmd.Flags().Changed("description") {
				in.Description = &description
			}
			ent, err := s.svc.CreateEntitlement(ctx, ref, in)
			if err != nil {
				return err
			}
			return out.emit(api.EntitlementItemOf(ent), func(t *table) {
				t.field("ID", ent.ID)
				t.field("Key", ent.Key)
				t.field("Name", ent.Name)
				if ent.Description != nil {
					t.field("Description", *ent.Description)
				}
			})
		}),
	}
	bindApp(c, &app)
	c.Flags().StringVar(&name, "name", "", "display name (default: the key)")
	c.Flags().StringVar(&description, "description", "", "description")
	return c
}

func newEntitlementListCmd(e *env) *cobra.Command {
	var app string
	c := &cobra.Command{
		Use:     "list",
		Short:   "List an application's entitlements",
		Example: "  licensectl entitlement list --app studio\n  licensectl entitlement list --app studio -o json",
		Args:    exactArgs(),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			list, err := s.svc.ListEntitlements(ctx, ref)
			if err != nil {
				return err
			}
			return out.emit(mapSlice(list, api.EntitlementItemOf), func(t *table) {
				t.row("ID", "KEY", "NAME")
				for _, x := range list {
					t.row(x.ID, x.Key, t.text(x.Name, 24))
				}
			})
		}),
	}
	bindApp(c, &app)
	return csvList(c)
}

func newEntitlementDeleteCmd(e *env) *cobra.Command {
	var app string
	var yes bool
	c := &cobra.Command{
		Use:     "delete ID|KEY",
		Short:   "Delete an entitlement (also from plans and licenses)",
		Example: "  licensectl entitlement delete --app studio export.raw --yes",
		Args:    exactArgs("ID|KEY"),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			ids, err := s.entitlementIDs(ctx, ref, args)
			if err != nil {
				return err
			}
			if err := e.confirm(yes, "deleting entitlement "+args[0]); err != nil {
				return err
			}
			if err := s.svc.DeleteEntitlement(ctx, ref, ids[0]); err != nil {
				return err
			}
			return out.emit(api.Success{Success: true}, func(t *table) { t.row("deleted entitlement " + ids[0]) })
		}),
	}
	bindApp(c, &app)
	c.Flags().BoolVar(&yes, "yes", false, "confirm the deletion (asked on a terminal)")
	return c
}

func newPlanCmd(e *env) *cobra.Command {
	return noun("plan", "Manage an application's plans (entitlements and device rules)",
		newPlanCreateCmd(e), newPlanListCmd(e), newPlanUpdateCmd(e), newPlanDeleteCmd(e))
}

// planFlags are the flags of plan create and update.
type planFlags struct {
	name, externalID, policies string
	rebind                     string
	trial                      bool
	durationDays, mntDays      int
	maxDevices, resetLimit     int
	resetWindow, lease         span
	maxConcurrent, offlineDays int
	entitlements               []string
}

func (f *planFlags) bind(c *cobra.Command, withName bool) {
	fs := c.Flags()
	if withName {
		fs.StringVar(&f.name, "name", "", "new name")
	}
	fs.BoolVar(&f.trial, "trial", false, "trial plan: one trial license per device and application")
	fs.IntVar(&f.durationDays, "duration-days", 0, "days a license lasts from its first activation (0: perpetual)")
	fs.IntVar(&f.mntDays, "maintenance-days", 0, "days a license may take updates from its first activation (0: unlimited)")
	fs.IntVar(&f.maxDevices, "max-devices", store.DefaultMaxDevices, "devices a license may be bound to")
	fs.IntVar(&f.resetLimit, "device-reset-limit", store.DefaultDeviceResetLimit, "self-service device resets per license")
	fs.IntVar(&f.maxConcurrent, "max-concurrent", 0, "floating seats: devices of a license using it at once (0: no cap)")
	fs.IntVar(&f.offlineDays, "max-offline-days", store.DefaultOfflineDays, "longest a machine file lasts, in days (0 to 365; 0: no offline use)")
	fs.Var(&f.lease, "lease", "how long a floating seat lease lives without a heartbeat, e.g. 15m (60s to 24h)")
	fs.StringVar(&f.rebind, "rebind", store.RebindMost, "a new fingerprint with most of a bound device's components takes that device's seat: most, or off")
	fs.Var(&f.resetWindow, "reset-window", "rolling window the device reset limit holds in, in whole days, e.g. 30d (0: the license's life)")
	fs.StringVar(&f.externalID, "external-product-id", "", "id of the product in an external store (empty: none)")
	fs.StringVar(&f.policies, "policies", "", "policies as a JSON object, stored verbatim (\"null\" clears)")
	fs.StringSliceVar(&f.entitlements, "entitlement", nil, "entitlement id or key the plan grants (repeat or comma-separate; on update replaces the set, \"\" empties it)")
}

// input builds the PlanInput of the flags the user set.
func (f *planFlags) input(ctx context.Context, c *cobra.Command, s *session, ref store.AppRef) (store.PlanInput, error) {
	var in store.PlanInput
	fs := c.Flags()
	if fs.Changed("name") {
		in.Name = &f.name
	}
	if fs.Changed("trial") {
		in.IsTrial = &f.trial
	}
	if fs.Changed("duration-days") {
		var d *int
		if f.durationDays != 0 {
			d = &f.durationDays
		}
		in.DurationDays = &d
	}
	if fs.Changed("maintenance-days") {
		var d *int
		if f.mntDays != 0 {
			d = &f.mntDays
		}
		in.MaintenanceDays = &d
	}
	if fs.Changed("max-devices") {
		in.MaxDevices = &f.maxDevices
	}
	if fs.Changed("rebind") {
		in.Rebind = &f.rebind
	}
	if fs.Changed("device-reset-limit") {
		in.DeviceResetLimit = &f.resetLimit
	}
	if fs.Changed("max-concurrent") {
		in.MaxConcurrent = &f.maxConcurrent
	}
	if fs.Changed("max-offline-days") {
		in.MaxOfflineDays = &f.offlineDays
	}
	if fs.Changed("lease") {
		secs, err := f.lease.seconds("--lease")
		if err != nil {
			return in, err
		}
		in.LeaseSeconds = &secs
	}
	if fs.Changed("reset-window") {
		days, err := f.resetWindow.days("--reset-window")
		if err != nil {
			return in, err
		}
		in.DeviceResetWindowDays = &days
	}
	if fs.Changed("external-product-id") {
		var x *string
		if f.externalID != "" {
			x = &f.externalID
		}
		in.ExternalProductID = &x
	}
	if fs.Changed("policies") {
		raw := strings.TrimSpace(f.policies)
		if raw != "null" {
			var obj map[string]any
			if err := json.Unmarshal([]byte(raw), &obj); err != nil {
				return in, usageErrorf("--policies must be a JSON object: %v", err)
			}
			in.Policies = json.RawMessage(raw)
		}
		in.PoliciesSet = true
	}
	if fs.Changed("entitlement") {
		var names []string
		for _, n := range f.entitlements {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		ids, err := s.entitlementIDs(ctx, ref, names)
		if err != nil {
			return in, err
		}
		if ids == nil {
			ids = []string{}
		}
		in.EntitlementIDs = &ids
	}
	return in, nil
}

func planFields(t *table, p *store.Plan) {
	t.field("ID", p.ID)
	t.field("Name", p.Name)
	t.field("Trial", yesNo(p.IsTrial))
	dur := "perpetual"
	if p.DurationDays != nil {
		dur = fmt.Sprintf("%d days", *p.DurationDays)
	}
	t.field("Duration", dur)
	t.field("Max devices", fmt.Sprint(p.MaxDevices))
	t.field("Device resets", fmt.Sprint(p.DeviceResetLimit))
	seats := "no cap"
	if p.MaxConcurrent > 0 {
		seats = fmt.Sprintf("%d at once, lease %s", p.MaxConcurrent, time.Duration(p.LeaseSeconds)*time.Second)
	}
	t.field("Seats", seats)
	t.field("Offline", fmt.Sprintf("%d days", p.MaxOfflineDays))
	window := "license life"
	if p.DeviceResetWindowDays > 0 {
		window = fmt.Sprintf("%d days", p.DeviceResetWindowDays)
	}
	t.field("Reset window", window)
	rebind := "on most components"
	if p.RebindMode() == store.RebindOff {
		rebind = "off"
	}
	t.field("Re-binding", rebind)
	keys := make([]string, 0, len(p.Entitlements))
	for _, e := range p.Entitlements {
		keys = append(keys, e.Key)
	}
	t.field("Entitlements", orDash(strings.Join(keys, ", ")))
}

func newPlanCreateCmd(e *env) *cobra.Command {
	var app string
	var f planFlags
	c := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a plan",
		Example: "  licensectl plan create --app studio Pro --max-devices 3 --entitlement pro,export.raw\n" +
			"  licensectl plan create --app studio Trial --trial --duration-days 14 -o json\n" +
			"  licensectl plan create --app studio Team --max-devices 10 --max-concurrent 3 --lease 15m --max-offline-days 14 --reset-window 30d",
		Args: exactArgs("NAME"),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			in, err := f.input(ctx, cmd, s, ref)
			if err != nil {
				return err
			}
			in.Name = &args[0]
			p, err := s.svc.CreatePlan(ctx, ref, in)
			if err != nil {
				return err
			}
			return out.emit(api.PlanItemOf(p), func(t *table) { planFields(t, p) })
		}),
	}
	bindApp(c, &app)
	f.bind(c, false)
	return c
}

func newPlanListCmd(e *env) *cobra.Command {
	var app string
	c := &cobra.Command{
		Use:     "list",
		Short:   "List an application's plans",
		Example: "  licensectl plan list --app studio\n  licensectl plan list --app studio -o json",
		Args:    exactArgs(),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			list, err := s.svc.ListPlans(ctx, ref)
			if err != nil {
				return err
			}
			return out.emit(mapSlice(list, api.PlanItemOf), func(t *table) {
				t.row("ID", "NAME", "DEVICES", "DAYS", "TRIAL")
				for _, p := range list {
					days := "-"
					if p.DurationDays != nil {
						days = fmt.Sprint(*p.DurationDays)
					}
					t.row(p.ID, t.text(p.Name, 20), fmt.Sprint(p.MaxDevices), days, yesNo(p.IsTrial))
				}
			})
		}),
	}
	bindApp(c, &app)
	return csvList(c)
}

func newPlanUpdateCmd(e *env) *cobra.Command {
	var app string
	var f planFlags
	c := &cobra.Command{
		Use:   "update PLAN",
		Short: "Change a plan (by id or name); only the flags given change",
		Example: "  licensectl plan update --app studio Pro --max-devices 5\n" +
			"  licensectl plan update --app studio Pro --entitlement pro --entitlement export.raw",
		Args: exactArgs("PLAN"),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			cur, err := s.plan(ctx, ref, args[0])
			if err != nil {
				return err
			}
			in, err := f.input(ctx, cmd, s, ref)
			if err != nil {
				return err
			}
			p, err := s.svc.UpdatePlan(ctx, ref, cur.ID, in)
			if err != nil {
				return err
			}
			return out.emit(api.PlanItemOf(p), func(t *table) { planFields(t, p) })
		}),
	}
	bindApp(c, &app)
	f.bind(c, true)
	return c
}

func newPlanDeleteCmd(e *env) *cobra.Command {
	var app string
	var yes bool
	c := &cobra.Command{
		Use:     "delete PLAN",
		Short:   "Delete a plan (refused while usable licenses use it)",
		Example: "  licensectl plan delete --app studio Trial --yes",
		Args:    exactArgs("PLAN"),
		RunE: e.onApp(&app, func(ctx context.Context, cmd *cobra.Command, s *session, ref store.AppRef, out *output, args []string) error {
			p, err := s.plan(ctx, ref, args[0])
			if err != nil {
				return err
			}
			if err := e.confirm(yes, "deleting plan "+args[0]); err != nil {
				return err
			}
			if err := s.svc.DeletePlan(ctx, ref, p.ID); err != nil {
				return err
			}
			return out.emit(api.Success{Success: true}, func(t *table) { t.row("deleted plan " + p.ID) })
		}),
	}
	bindApp(c, &app)
	c.Flags().BoolVar(&yes, "yes", false, "confirm the deletion (asked on a terminal)")
	return c
}
