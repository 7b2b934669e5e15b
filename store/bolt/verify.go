package bolt

import (
	"bytes"
	"context"
	"fmt"
	"os"

	bolt "go.etcd.io/bbolt"

	"licensectl/store"
	"licensectl/store/storedoc"
)

// records lists every primary bucket of the current schema and a new value
// of its record type: what VerifyRecords decodes. Index buckets hold ids
// and counts that no read decodes as a record, and are left out. Version 1's
// buckets are all still primary, and all but licenses (whose devices
// version 7 moved to an index) keep their record type.
var records = func() []recordKind {
	out := make([]recordKind, 0, len(v1Records)+8)
	for _, r := range v1Records {
		if bytes.Equal(r.bucket, bLicenses) {
			r.new = func() any { return new(store.License) }
		}
		out = append(out, r)
	}
	return append(out, []recordKind{
		{bSubscriptions, func() any { return new(storedoc.Subscription) }},
		{bBillingTx, func() any { return new(storedoc.BillingTransaction) }},
		{bOnboarding, func() any { return new(storedoc.Onboarding) }},
		{bPartnerAttempts, func() any { return new(partnerAttempt) }},
		{bPartnerIdentities, func() any { return new(storedoc.PartnerIdentity) }},
		{bHooks, func() any { return new(storedoc.Webhook) }},
		{bDeliveries, func() any { return new(deliveryRecord) }},
		{bOutbox, func() any { return new(outboxEvent) }},
	}...)
}()

// VerifyRecords decodes every record of every primary bucket in one read
// transaction. A record that does not decode would fail every request that
// reads it, so restore refuses the file instead (docs/design.md §11); the error
// names the bucket and the key. A read-only handle on a file of another
// schema version cannot read records and returns why.
func (db *DB) VerifyRecords(ctx context.Context) error {
	if db.stale != nil {
		return db.stale
	}
	return db.bolt.View(func(tx *bolt.Tx) error {
		for _, rec := range records {
			b := tx.Bucket(rec.bucket)
			if b == nil {
				continue
			}
			c := b.Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				if err := ctx.Err(); err != nil {
					return err
				}
				if err := decode(rec.bucket, k, v, rec.new()); err != nil {
					return fmt.Errorf("garbled record: %w", err)
				}
			}
		}
		return nil
	})
}

// CompactInto writes the buckets and records of db into a new database file
// at path, which must not exist or be empty, and returns its size. Only the
// pages the records need are written: a file padded with free pages, or
// sparse, does not carry its size into the copy.
func (db *DB) CompactInto(path string) (int64, error) {
	// As Open keeps it, so the copy opens without a rebuild.
	dst, err := bolt.Open(path, 0o600, &bolt.Options{NoFreelistSync: rebuildFreelist, FreelistType: bolt.FreelistMapType})
	if err != nil {
		return 0, err
	}
	if err := bolt.Compact(dst, db.bolt, 64<<20); err != nil {
		dst.Close()
		return 0, err
	}
	if err := dst.Close(); err != nil {
		return 0, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
