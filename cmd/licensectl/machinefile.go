package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"licensectl/store"
)

// newLicenseMachineFileCmd issues a machine file for an air-gapped device
// (docs/design.md §13). Its -o names the file to write, as the design spells the
// command, so it shadows the global -o output format here.
func newLicenseMachineFileCmd(e *env) *cobra.Command {
	var app, fp, user, file string
	var ttl span
	encrypt := true
	c := &cobra.Command{
		Use:   "machine-file ID|KEY|EMAIL --fingerprint FP",
		Short: "Issue a machine file for an air-gapped device",
		Long: "Binds the device of --fingerprint to the license as an activation would (it\n" +
			"takes a seat; the license becomes active) and issues a machine file for it,\n" +
			"signed with the environment's key and, unless --encrypt=false, encrypted for\n" +
			"the license key and that fingerprint. The device verifies it offline\n" +
			"(docs/offline.md). --ttl is whole days, at most the plan's max_offline_days\n" +
			"(the default). --user names the end-user the file is for: the license must be\n" +
			"theirs or nobody's. Without -o the file goes to stdout; -o FILE writes it\n" +
			"with mode 0600 and never overwrites an existing file.",
		Example: "  licensectl license machine-file --app studio 7KQ2M-4XB9D-T3ZHC-8WFJN-R6PEA --fingerprint lab-pc-7 -o lab-pc-7.lic\n" +
			"  licensectl license machine-file --app studio bob@example.com --fingerprint lab-pc-7 --ttl 365d --user bob@example.com",
		Args: exactArgs("ID|KEY|EMAIL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			in := store.LicenseMachineFileInput{Fingerprint: fp, Encrypt: encrypt, UserEmail: user}
			if ttl.raw != "" {
				days, err := ttl.days("--ttl")
				if err != nil {
					return err
				}
				if days < 1 {
					return usageErrorf("--ttl must be at least 1d")
				}
				in.TTLDays = days
			}
			switch strings.ToLower(file) {
			case fmtTable, fmtJSON, fmtCSV, fmtKeys:
				return usageErrorf("-o names the file to write the machine file to here, not an output format (got %q)", file)
			}
			var f *os.File
			if file != "" {
				// Created before the checkout, so a file that exists or
				// cannot be written takes no seat.
				var err error
				if f, err = os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err != nil {
					if errors.Is(err, fs.ErrExist) {
						return fmt.Errorf("%s exists; the machine file is never written over another file", file)
					}
					return err
				}
			}
			err := e.withSession(cmd, openOpts{}, func(ctx context.Context, s *session) error {
				sc, err := s.scope(ctx, app)
				if err != nil {
					return err
				}
				id, err := s.licenseRef(ctx, sc, args[0])
				if err != nil {
					return err
				}
				mf, err := s.svc.IssueMachineFile(ctx, sc, id, in)
				if err != nil {
					return err
				}
				if f == nil {
					_, err := fmt.Fprint(cmd.OutOrStdout(), mf.Certificate)
					return err
				}
				if _, err := f.WriteString(mf.Certificate); err != nil {
					return err
				}
				if err := f.Close(); err != nil {
					return err
				}
				f = nil
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: machine file of license %s for device %s (%s), valid until %s\n",
					file, id, mf.DeviceID, store.Printable(in.Fingerprint), stamp(mf.ExpiresAt))
				return err
			})
			if f != nil {
				// Nothing was issued into it: leave no empty file behind.
				_ = f.Close()
				_ = os.Remove(file)
			}
			return err
		},
	}
	bindApp(c, &app)
	fl := c.Flags()
	fl.StringVar(&fp, "fingerprint", "", "the device's fingerprint, as the application computes it (required)")
	fl.Var(&ttl, "ttl", "lifetime in whole days, e.g. 365d (default: the plan's max_offline_days)")
	fl.StringVar(&user, "user", "", "e-mail of the end-user the file is for")
	fl.BoolVar(&encrypt, "encrypt", true, "encrypt the file for the license key and fingerprint")
	fl.StringVarP(&file, flagOutput, "o", "", "write the machine file to FILE (mode 0600, never overwritten) instead of stdout")
	_ = c.MarkFlagRequired("fingerprint")
	return c
}
