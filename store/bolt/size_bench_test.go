package bolt

import (
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"licensectl/store"
)

// pageBytes sums what bbolt's stats count for every bucket: bytes of the
// pages allocated to it, and bytes of those pages in use.
func pageBytes(tb testing.TB, db *DB) (alloc, inuse int) {
	tb.Helper()
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
			s := b.Stats()
			alloc += s.BranchAlloc + s.LeafAlloc
			inuse += s.BranchInuse + s.LeafInuse + s.InlineBucketInuse
			return nil
		})
	})
	if err != nil {
		tb.Fatal(err)
	}
	return alloc, inuse
}

// BenchmarkBytesPerLicense generates 10,000 licenses in batches of 1,000 and
// reports the pages they cost: the license record, its indexes and counts,
// and its audit entry with the audit indexes. It measures size, not time:
//
//	go test -run '^$' -bench BytesPerLicense -benchtime=1x ./store/bolt
func BenchmarkBytesPerLicense(b *testing.B) {
	const n = 10 * store.MaxGenerate
	for b.Loop() {
		e := newEnv(b)
		// The system clock has microseconds; a whole second would flatter
		// every timestamp by two bytes.
		e.clock.advance(123456 * time.Microsecond)
		p := e.mustPlan(b)
		alloc0, inuse0 := pageBytes(b, e.db)
		for range n / store.MaxGenerate {
			e.mustGenerate(b, store.GenerateLicensesInput{PlanID: p.ID, Quantity: store.MaxGenerate})
		}
		alloc1, inuse1 := pageBytes(b, e.db)
		b.ReportMetric(float64(alloc1-alloc0)/n, "alloc-bytes/license")
		b.ReportMetric(float64(inuse1-inuse0)/n, "inuse-bytes/license")
	}
}
