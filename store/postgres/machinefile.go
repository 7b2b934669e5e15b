package postgres

import (
	"slices"

	"licensectl/store"
)

var _ store.MachineFiles = (*DB)(nil)

// machineFile is the content of a machine file of l on dev (store.NewMachineFile).
func (t *txn) machineFile(ra *store.RuntimeApp, l *store.License, p *store.Plan, dev *store.Device, ttl int) (*store.MachineFile, error) {
	ents, err := t.licEntitlementKeys(l, p)
	if err != nil {
		return nil, err
	}
	var user *store.EndUser
	if l.UserID != "" {
		if user, err = t.endUser(ra.Env.ID, l.UserID); err != nil {
			return nil, err
		}
	}
	return store.NewMachineFile(ra, l, p, dev, user, ents, ttl, t.now), nil
}

// licEntitlementKeys is the sorted set of the keys of the license's
// entitlements, its plan's and its own, in one query; a deleted
// entitlement grants nothing.
func (t *txn) licEntitlementKeys(l *store.License, p *store.Plan) ([]string, error) {
	ids := slices.Concat(p.EntitlementIDs, l.EntitlementIDs)
	keys := []string{}
	if len(ids) == 0 {
		return keys, nil
	}
	rows, err := t.tx.Query(t.ctx, `SELECT DISTINCT key FROM entitlements WHERE id = ANY($1) ORDER BY key`, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}
