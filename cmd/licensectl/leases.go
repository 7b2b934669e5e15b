package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"licensectl/server/api"
	"licensectl/store"
)

func newLeaseCmd(e *env) *cobra.Command {
	return noun("lease", "List and free the floating seats a license's devices hold", newLeaseListCmd(e), newLeaseFreeCmd(e))
}

func newLeaseListCmd(e *env) *cobra.Command {
	var app string
	c := &cobra.Command{
		Use:   "list ID|KEY|EMAIL",
		Short: "List a license's live seat leases, newest first, with the devices holding them",
		Example: "  licensectl lease list --app studio 7KQ2M-4XB9D-T3ZHC-8WFJN-R6PEA\n" +
			"  licensectl lease list --app studio bob@example.com -o json",
		Args: exactArgs("ID|KEY|EMAIL"),
		RunE: e.onScope(&app, func(ctx context.Context, cmd *cobra.Command, s *session, sc store.Scope, out *output, args []string) error {
			id, err := s.licenseRef(ctx, sc, args[0])
			if err != nil {
				return err
			}
			list, err := s.svc.ListLeases(ctx, sc, id)
			if err != nil {
				return err
			}
			v := make([]api.LeaseItem, 0, len(list))
			for _, l := range list {
				v = append(v, api.LeaseItem{ID: l.ID, DeviceID: l.DeviceID, Fingerprint: l.Fingerprint, ExpiresAt: l.ExpiresAt.UTC(), CreatedAt: l.CreatedAt.UTC()})
			}
			return out.emit(v, func(t *table) {
				if len(v) == 0 {
					// An empty table reads as a failure; say what it means.
					t.row("no live leases: every floating seat of this license is free")
					return
				}
				t.row("LEASE", "DEVICE", "EXPIRES", "FINGERPRINT")
				for _, l := range v {
					t.row(l.ID, l.DeviceID, l.ExpiresAt.Format("2006-01-02 15:04:05"), l.Fingerprint)
				}
			})
		}),
	}
	bindApp(c, &app)
	return c
}

func newLeaseFreeCmd(e *env) *cobra.Command {
	var app string
	c := &cobra.Command{
		Use:   "free ID|KEY|EMAIL LEASE_ID",
		Short: "Free a floating seat: end one of the license's leases",
		Long: "The device loses its seat at once; its next heartbeat answers lease_not_found\n" +
			"and it checks out a seat again when one is free.",
		Example: "  licensectl lease free --app studio 7KQ2M-4XB9D-T3ZHC-8WFJN-R6PEA 0190a1b2-…",
		Args:    exactArgs("ID|KEY|EMAIL", "LEASE_ID"),
		RunE: e.onScope(&app, func(ctx context.Context, cmd *cobra.Command, s *session, sc store.Scope, out *output, args []string) error {
			id, err := s.licenseRef(ctx, sc, args[0])
			if err != nil {
				return err
			}
			if err := s.svc.ReleaseLicenseLease(ctx, sc, id, args[1]); err != nil {
				return err
			}
			v := api.Success{Success: true}
			return out.emit(v, func(t *table) { t.row(fmt.Sprintf("freed lease %s of license %s", args[1], id)) })
		}),
	}
	bindApp(c, &app)
	return c
}
