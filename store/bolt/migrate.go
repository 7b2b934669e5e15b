package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"licensectl/store"
	"licensectl/store/storedoc"
)

// A migration takes a file from version Version-1 to Version. Migrations
// run in order, all in the transaction that opens the file: a file is
// either fully migrated or left as it was.
type migration struct {
	Version uint64
	Name    string
	Apply   func(tx *bolt.Tx) error
}

// migrations is every schema change, oldest first; SchemaVersion is the last
// one's Version. Version 1 is the layout the first release created.
var migrations = []migration{
	{Version: 2, Name: "compact records", Apply: migrateCompactRecords},
	{Version: 3, Name: "organization audit by event", Apply: migrateOrgAuditByEvent},
	{Version: 4, Name: "audit by target, packed key index", Apply: migrateV4},
	{Version: 5, Name: "partner identities by account", Apply: migratePartnerByMember},
	{Version: 6, Name: "webhook outbox events, due deliveries by endpoint", Apply: migrateDueByHook},
	{Version: 7, Name: "license devices index", Apply: migrateLicenseDevices},
	{Version: 8, Name: "sessions found by the id their access token carries", Apply: migrateDropAccessIndex},
	{Version: 9, Name: "used nonces by the minute their window ends", Apply: migrateNoncesByMinute},
	{Version: 10, Name: "a license's device count in its record", Apply: migrateDevicesCount},
	{Version: 11, Name: "a license's sessions found through its devices", Apply: migrateDropLicenseSessions},
}

// sessionsByLicense is the index version 11 dropped: license|session. Every
// session names its device, and a license's live sessions are all on
// devices bound to it, so the index only cost a random page per activation.
var sessionsByLicense = []byte("sessions_by_license")

func migrateDropLicenseSessions(tx *bolt.Tx) error {
	// Files written before sessions.go kept it out of bCounts counted it.
	if err := deletePrefix(tx.Bucket(bCounts), countKey(sessionsByLicense, nil)); err != nil {
		return err
	}
	return dropBuckets(tx, sessionsByLicense)
}

// migrateDevicesCount writes into every license record the count of its
// bindings, counted afresh from license_devices rather than trusted from
// bCounts, and drops those counts.
func migrateDevicesCount(tx *bolt.Tx) error {
	counts := map[string]int{}
	err := tx.Bucket(bLicDevices).ForEach(func(k, _ []byte) error {
		if len(k) != 32 {
			return fmt.Errorf("%s/%x: a binding key of %d bytes", bLicDevices, k, len(k))
		}
		counts[string(k[:16])]++
		return nil
	})
	if err != nil {
		return err
	}
	t := &txn{tx: tx, ctx: context.Background()}
	for id, n := range counts {
		l := new(store.License)
		if err := t.mustGet(bLicenses, ids([]byte(id)), "license", l); err != nil {
			return fmt.Errorf("%s/%x: %w", bLicDevices, id, err)
		}
		l.DevicesCount = n
		if err := t.put(bLicenses, l.ID, l); err != nil {
			return err
		}
	}
	return deletePrefix(tx.Bucket(bCounts), countKey(bLicDevices, nil))
}

// The nonce buckets version 9 replaced: env|nonce → expiry, and its index
// expiry|env|nonce for the sweeper.
var (
	noncesV8       = []byte("nonces")
	noncesExpiryV8 = []byte("nonces_by_expiry")
)

// migrateNoncesByMinute files every used nonce under the minute its window
// ends in (nonces.go) and drops the two buckets that held them before.
func migrateNoncesByMinute(tx *bolt.Tx) error {
	old := tx.Bucket(noncesV8)
	if old == nil {
		return nil
	}
	used := tx.Bucket(bNonces)
	err := old.ForEach(func(k, v []byte) error {
		if len(k) <= 16 || len(v) != 8 {
			return fmt.Errorf("%s/%x: a nonce of %d key and %d value bytes", noncesV8, k, len(k), len(v))
		}
		until := time.Unix(0, int64(binary.BigEndian.Uint64(v)))
		return used.Put(key(timeKey(nonceBucket(until)), k), v)
	})
	if err != nil {
		return err
	}
	return dropBuckets(tx, noncesV8, noncesExpiryV8)
}

// dropBuckets deletes the buckets a migration retires, those that exist.
func dropBuckets(tx *bolt.Tx, names ...[]byte) error {
	for _, name := range names {
		if tx.Bucket(name) == nil {
			continue
		}
		if err := tx.DeleteBucket(name); err != nil {
			return err
		}
	}
	return nil
}

// sessionsByAccess is the index version 8 dropped: sha256(access token) →
// session id. An access token names its session (the sid claim) and the
// session keeps the token's hash, so the index only cost a random page
// write per new token; tokens issued before keep working.
var sessionsByAccess = []byte("sessions_by_access")

func migrateDropAccessIndex(tx *bolt.Tx) error { return dropBuckets(tx, sessionsByAccess) }

// licenseV5 is a license record of schema versions 1 to 5, which kept its
// bound devices inside: the list, and since version 2 when each was bound.
// Migrations 2 and 7 read it (version 1's JSON names these Go fields).
type licenseV5 struct {
	ID                    string
	AppID                 string
	EnvID                 string
	Key                   string
	PlanID                string
	Status                string
	UserID                string
	EntitlementIDs        []string
	DeviceIDs             []string
	DeviceBoundAt         map[string]time.Time
	ActivatedAt           *time.Time
	ExpiresAt             *time.Time
	DeviceResetsRemaining int
	CreatedAt             time.Time
	UpdatedAt             time.Time
}

// license is the record without its devices.
func (l *licenseV5) license() *store.License {
	return &store.License{ID: l.ID, AppID: l.AppID, EnvID: l.EnvID, Key: l.Key, PlanID: l.PlanID, Status: l.Status, UserID: l.UserID,
		EntitlementIDs: l.EntitlementIDs, ActivatedAt: l.ActivatedAt, ExpiresAt: l.ExpiresAt, DeviceResetsRemaining: l.DeviceResetsRemaining,
		CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
}

// migrateLicenseDevices moves every license's bound devices from its record
// into license_devices (with their count) and rewrites the record without
// them. A binding older than DeviceBoundAt gets its device's first sighting,
// the time the license detail showed for it before.
func migrateLicenseDevices(tx *bolt.Tx) error {
	t := &txn{tx: tx, ctx: context.Background()}
	return rewriteBucket(tx.Bucket(bLicenses), func(k, v []byte) ([]byte, error) {
		old := new(licenseV5)
		if err := decode(bLicenses, k, v, old); err != nil {
			return nil, err
		}
		lic := old.license()
		for _, did := range old.DeviceIDs {
			at, ok := old.DeviceBoundAt[did]
			if !ok {
				dev := new(store.Device)
				if err := t.mustGet(bDevices, did, "device", dev); err != nil {
					return nil, err
				}
				at = dev.CreatedAt
			}
			if err := t.bindDevice(lic, did, at); err != nil {
				return nil, err
			}
		}
		return encodeRecord(lic)
	})
}

// migratePartnerByMember fills partner_identities_by_member from the links
// written before it existed. Their records predate the flag that says the
// account was verified when linked, so a password reset drops them.
func migratePartnerByMember(tx *bolt.Tx) error {
	idx := tx.Bucket(bPartnerIdentitiesMember)
	return tx.Bucket(bPartnerIdentities).ForEach(func(k, v []byte) error {
		var rec storedoc.PartnerIdentity
		if err := decode(bPartnerIdentities, k, v, &rec); err != nil {
			return err
		}
		if idb(rec.MemberID) == nil {
			return fmt.Errorf("%s/%x: member id %q", bPartnerIdentities, k, rec.MemberID)
		}
		return idx.Put(memberIdentityKey(rec.MemberID, k), []byte{})
	})
}

// migrateDueByHook fills the due index by endpoint, which the claim's
// round-robin walks, from the due index by time: the pending deliveries
// written one per endpoint before version 6 keep being delivered. The
// outbox events bucket it adds starts empty.
func migrateDueByHook(tx *bolt.Tx) error {
	t := &txn{tx: tx, ctx: context.Background()}
	c := tx.Bucket(bDelivDue).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if len(k) != 8+16 {
			return fmt.Errorf("webhook_deliveries_due key of %d bytes", len(k))
		}
		d := new(deliveryRecord)
		if err := t.mustGet(bDeliveries, ids(k[8:]), "delivery", d); err != nil {
			return err
		}
		if err := tx.Bucket(bDelivDueHook).Put(key(idb(d.WebhookID), k), []byte{}); err != nil {
			return err
		}
	}
	return nil
}

// licensesInUseByPlan is the index version 4 dropped: plan|license of the
// inactive, active and suspended licenses.
var licensesInUseByPlan = []byte("licenses_in_use_by_plan")

// migrateV4 fills audit_by_target from the entries written before it
// existed, so a license's (user's, device's) history includes them; packs
// the keys of licenses_by_key (licKeyIndex); and drops
// licenses_in_use_by_plan, whose answer the counts of
// licenses_by_plan_status already give (planInUse). Together they keep a
// generated license within its budget on disk.
func migrateV4(tx *bolt.Tx) error {
	t := &txn{tx: tx, ctx: context.Background()}
	c := tx.Bucket(bAudit).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		e := new(store.AuditEntry)
		if err := decode(bAudit, k, v, e); err != nil {
			return err
		}
		if err := t.indexAuditTarget(e); err != nil {
			return err
		}
	}
	if err := packLicenseKeys(tx); err != nil {
		return err
	}
	if tx.Bucket(licensesInUseByPlan) == nil {
		return nil
	}
	if err := t.dropAll(licensesInUseByPlan, nil); err != nil { // its keys and its counts
		return err
	}
	return dropBuckets(tx, licensesInUseByPlan)
}

// packLicenseKeys rewrites licenses_by_key from key text to licKeyIndex.
func packLicenseKeys(tx *bolt.Tx) error {
	b := tx.Bucket(bLicKey)
	type entry struct{ k, v []byte }
	var all []entry
	if err := b.ForEach(func(k, v []byte) error {
		all = append(all, entry{bytes.Clone(k), bytes.Clone(v)})
		return nil
	}); err != nil {
		return err
	}
	for _, e := range all {
		if len(e.k) == 16 {
			continue // packed already: text keys are 29 bytes
		}
		packed := licKeyIndex(string(e.k))
		if packed == nil {
			return fmt.Errorf("licenses_by_key: %q is not a license key", e.k)
		}
		if err := b.Delete(e.k); err != nil {
			return err
		}
		if err := b.Put(packed, e.v); err != nil {
			return err
		}
	}
	return nil
}

// migrateOrgAuditByEvent fills the index of organization-level audit entries
// by event (audit_by_org_event, added with webhooks) from the entries
// written before it existed, so `?event=` finds them too.
func migrateOrgAuditByEvent(tx *bolt.Tx) error {
	t := &txn{tx: tx, ctx: context.Background()}
	c := tx.Bucket(bAuditOrg).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if len(k) != 16+8+16 {
			return fmt.Errorf("audit_by_org key of %d bytes", len(k))
		}
		org, ts, id := k[:16], k[16:24], ids(k[24:])
		e := new(store.AuditEntry)
		if err := t.mustGet(bAudit, id, "audit entry", e); err != nil {
			return err
		}
		if err := t.indexSorted(bAuditOrgEvent, key(org, str(e.Event)), ts, id); err != nil {
			return err
		}
	}
	return nil
}

// ErrSchemaTooNew is returned by Open for a file written by a newer binary.
type ErrSchemaTooNew struct{ File, Binary uint64 }

func (e *ErrSchemaTooNew) Error() string {
	return fmt.Sprintf("database schema version %d is newer than this binary's %d: upgrade licensectl to open it", e.File, e.Binary)
}

// Migrated lists the migrations this handle applied at open, as "N name",
// for the caller to log; empty when the file was already current.
func (db *DB) Migrated() []string { return db.migrated }

// migrate creates missing buckets and brings the file to SchemaVersion.
func (db *DB) migrate() error {
	db.migrated = nil
	return db.bolt.Update(func(tx *bolt.Tx) error {
		db.migrated = nil // a retried transaction starts over
		var v uint64
		fresh := tx.Bucket(bMeta) == nil
		if !fresh {
			if b := tx.Bucket(bMeta).Get(metaSchemaVersion); len(b) == 8 {
				v = binary.BigEndian.Uint64(b)
			}
		}
		if v > SchemaVersion {
			return &ErrSchemaTooNew{File: v, Binary: SchemaVersion}
		}
		for _, name := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("create bucket %s: %w", name, err)
			}
		}
		if fresh || v == 0 {
			// A new file (or one that never recorded a version, which only
			// an empty one can be) starts at the current layout.
			v = SchemaVersion
		}
		for _, m := range migrations {
			if m.Version <= v {
				continue
			}
			if err := m.Apply(tx); err != nil {
				return fmt.Errorf("migrate schema to version %d (%s): %w", m.Version, m.Name, err)
			}
			v = m.Version
			db.migrated = append(db.migrated, fmt.Sprintf("%d %s", m.Version, m.Name))
		}
		return tx.Bucket(bMeta).Put(metaSchemaVersion, u64(SchemaVersion))
	})
}

// recordKind is a primary bucket and a new value of its record type.
type recordKind struct {
	bucket []byte
	new    func() any
}

// v1Records lists the primary buckets of version 1 and a new value of each
// one's record type. Version 1 stored records as the JSON of the domain
// types, so a record reads with the domain type's own JSON decoding;
// unknown fields are refused, so a Go field renamed since fails loudly here
// instead of losing its value.
var v1Records = []recordKind{
	{bOrgs, func() any { return new(store.Organization) }},
	{bMembers, func() any { return new(store.Member) }},
	{bDashSessions, func() any { return new(store.DashboardSession) }},
	{bMailTokens, func() any { return new(mailToken) }},
	{bApps, func() any { return new(store.Application) }},
	{bAPIKeys, func() any { return new(store.APIKey) }},
	{bSecrets, func() any { return new(store.AppSecret) }},
	{bEnts, func() any { return new(store.Entitlement) }},
	{bPlans, func() any { return new(store.Plan) }},
	{bLicenses, func() any { return new(licenseV5) }},
	{bEndUsers, func() any { return new(store.EndUser) }},
	{bDevices, func() any { return new(store.Device) }},
	{bSessions, func() any { return new(sessionRecord) }},
	{bAudit, func() any { return new(store.AuditEntry) }},
}

// decodeV1 reads a version-1 record.
func decodeV1(raw []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// migrateCompactRecords rewrites every record from version 1's JSON into the
// compact format of codec.go. Keys and indexes are unchanged.
func migrateCompactRecords(tx *bolt.Tx) error {
	for _, rec := range v1Records {
		err := rewriteBucket(tx.Bucket(rec.bucket), func(k, v []byte) ([]byte, error) {
			old, back := rec.new(), rec.new()
			if err := decodeV1(v, old); err != nil {
				return nil, err
			}
			out, err := encodeRecord(old)
			if err != nil {
				return nil, err
			}
			// Nothing is lost: the record read back from its new form is
			// the version-1 record, id (now the key) included.
			if err := decodeRecord(k, out, back); err != nil {
				return nil, err
			}
			if a, b := mustJSON(old), mustJSON(back); !bytes.Equal(a, b) {
				return nil, fmt.Errorf("record changes in the new format:\n%s\n%s", a, b)
			}
			return out, nil
		})
		if err != nil {
			return fmt.Errorf("%s: %w", rec.bucket, err)
		}
	}
	return nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(err.Error())
	}
	return b
}

// rewriteBucket replaces every value of b with fn's answer, in chunks: a
// bucket must not be written while a cursor walks it, so each chunk is read
// first and written after.
func rewriteBucket(b *bolt.Bucket, fn func(k, v []byte) ([]byte, error)) error {
	const chunk = 1024
	type pair struct{ k, v []byte }
	var after []byte
	for {
		var batch []pair
		c := b.Cursor()
		k, v := c.First()
		if after != nil {
			if k, v = c.Seek(after); k != nil && bytes.Equal(k, after) {
				k, v = c.Next()
			}
		}
		for ; k != nil && len(batch) < chunk; k, v = c.Next() {
			nv, err := fn(k, v)
			if err != nil {
				return fmt.Errorf("%x: %w", k, err)
			}
			batch = append(batch, pair{clone(k), nv})
		}
		if len(batch) == 0 {
			return nil
		}
		for _, p := range batch {
			if err := b.Put(p.k, p.v); err != nil {
				return err
			}
		}
		after = batch[len(batch)-1].k
	}
}
