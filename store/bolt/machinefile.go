package bolt

import "licensectl/store"

// machineFile is the content of a machine file of l on dev (store.NewMachineFile).
func (r *Runtime) machineFile(t *txn, ra *store.RuntimeApp, l *store.License, p *store.Plan, dev *store.Device, ttl int) (*store.MachineFile, error) {
	ents, err := r.licenseEntitlements(t, l, nil)
	if err != nil {
		return nil, err
	}
	var user *store.EndUser
	if l.UserID != "" {
		if user, err = t.endUser(ra.Env.ID, l.UserID); err != nil {
			return nil, err
		}
	}
	return store.NewMachineFile(ra, l, p, dev, user, store.KeySet(ents), ttl, t.now), nil
}
