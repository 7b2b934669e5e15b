package tui

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// keyMachineFile is m on the license detail: a machine file for an
// air-gapped device (docs/design.md §13), written to a new file.
var keyMachineFile = mutating(bind(groupScreen, "m", "machine file", "m"))

// Fields of the machine file form; the first two are named like the
// server's error fields, so its complaints land under them.
const (
	fieldMFFingerprint = "fingerprint"
	fieldMFDays        = "ttl_days"
	fieldMFUser        = "user_email"
	fieldMFEncrypt     = "encrypt"
	fieldMFPath        = "path"
)

// machineFileForm asks for the device and where to write its file. The
// device is bound on submit, as an activation would bind it.
func (l *license) machineFileForm(c *ctx) *form {
	it := &l.v.d.LicenseItem
	maxDays := store.DefaultOfflineDays
	if l.v.plan != nil {
		maxDays = l.v.plan.MaxOfflineDays
	}
	fp := textField(fieldMFFingerprint, "Device fingerprint", true)
	fp.hint = "as the application computes it on the air-gapped device; it takes a seat"
	days := textField(fieldMFDays, fmt.Sprintf("Valid for days (1-%d)", maxDays), false)
	days.hint = "empty: the plan's max_offline_days"
	user := textField(fieldMFUser, "End-user e-mail", false)
	user.hint = "empty: the license's own user, if any"
	path := textField(fieldMFPath, "Write to", false)
	path.hint = "a new file (never overwritten); empty: ./FINGERPRINT.lic"
	f := newForm("Machine file of "+it.Key+" in "+strings.ToUpper(c.env), "issue", fp, days, user,
		choiceField(fieldMFEncrypt, "Encrypt", "yes", "no"), path)
	var in store.LicenseMachineFileInput
	f.check = func(f *form) bool {
		in = store.LicenseMachineFileInput{Fingerprint: f.get(fieldMFFingerprint), UserEmail: f.get(fieldMFUser), Encrypt: f.get(fieldMFEncrypt) == "yes"}
		if s := f.get(fieldMFDays); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 || n > maxDays {
				f.invalid(fieldMFDays, fmt.Sprintf("a number of days from 1 to %d", maxDays))
				return false
			}
			in.TTLDays = n
		}
		return true
	}
	f.submit = func(f *form) tea.Cmd {
		req, to, id := in, f.get(fieldMFPath), it.ID
		if to == "" {
			to = "./" + fileSafe(req.Fingerprint) + ".lic"
		}
		l.form = f
		return c.act(l.ctx, l.sid, fmt.Sprintf("Wrote the machine file of %s to %s", c.label(req.Fingerprint), to), func(ctx context.Context) (any, error) {
			return nil, writeMachineFile(ctx, c, id, req, to)
		})
	}
	return f
}

// writeMachineFile issues the file into path, created first: a path that
// exists or cannot be written takes no seat.
func writeMachineFile(ctx context.Context, c *ctx, licenseID string, in store.LicenseMachineFileInput, path string) error {
	f, err := createNew(path)
	if err != nil {
		return err
	}
	mf, err := c.data.IssueMachineFile(ctx, c.scope(), licenseID, in)
	if err == nil {
		_, err = f.WriteString(mf.Certificate)
		if err != nil {
			err = store.Invalid("path", "writing %s: %v", path, err)
		}
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = store.Invalid("path", "writing %s: %v", path, cerr)
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return err
}
