package postgres

import "licensectl/store"

// rtLicense is a license an activation or a reset found by its key, with
// its row locked, its plan (nil when gone) and its entitlement keys.
type rtLicense struct {
	l    *store.License
	plan *store.Plan
	keys []string
}

// lockLicenseByKey loads, in one statement, the license of environment
// envID with the canonical key k, its row locked until the transaction
// ends (as lockLicense does), with its plan and entitlement keys. Returns
// not_found.
func (t *txn) lockLicenseByKey(envID, k string) (*rtLicense, error) {
	var raw, plan []byte
	var n int
	out := new(rtLicense)
	err := t.tx.QueryRow(t.ctx, `SELECT l.doc, l.devices_count, p.doc, `+rtKeysExpr("l.doc", "p.doc")+`
		FROM licenses l LEFT JOIN plans p ON p.id = l.plan_id WHERE l.key = $1 FOR UPDATE OF l`, k).Scan(&raw, &n, &plan, &out.keys)
	if noRows(err) {
		return nil, store.NotFound("license")
	}
	if err != nil {
		return nil, err
	}
	if out.l, err = decodeLicense(raw, n); err != nil {
		return nil, err
	}
	if out.l.EnvID != envID {
		return nil, store.NotFound("license")
	}
	if plan != nil {
		if out.plan, err = decode[store.Plan](plan); err != nil {
			return nil, err
		}
	}
	out.keys = store.KeySet(out.keys)
	return out, nil
}

// lockedDeviceByFingerprint loads the device of envID with this fingerprint
// with its row locked, as every change of a device's doc does, and whether
// it is bound to the license licenseID ("" for none); nil when there is no
// such device.
func (t *txn) lockedDeviceByFingerprint(envID, fp, licenseID string) (*store.Device, bool, error) {
	var raw []byte
	var bound bool
	err := t.tx.QueryRow(t.ctx, `SELECT d.doc, EXISTS (SELECT 1 FROM license_devices ld WHERE ld.license_id = $3 AND ld.device_id = d.id)
		FROM devices d WHERE d.env_id = $1 AND d.fingerprint = $2 FOR UPDATE OF d`, envID, fp, uuidOrNil(licenseID)).Scan(&raw, &bound)
	if noRows(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	d, err := decode[store.Device](raw)
	return d, bound, err
}

// insertNewDevice writes a device the runtime creates; false when another
// transaction created one with its fingerprint first (the caller reads that
// one instead).
func (t *txn) insertNewDevice(d *store.Device) (bool, error) {
	n, err := t.exec(`INSERT INTO devices (id, app_id, env_id, fingerprint, status, doc) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (env_id, fingerprint) DO NOTHING`, d.ID, d.AppID, d.EnvID, d.Fingerprint, d.Status, js(d))
	return n == 1, err
}
