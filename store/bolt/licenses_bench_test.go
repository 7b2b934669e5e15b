package bolt

import (
	"fmt"
	"testing"

	"licensectl/store"
)

// BenchmarkGenerateLicenses1000 is one generation call of the largest
// quantity: 1,000 keys, their indexes and 1,000 audit entries in one
// transaction.
func BenchmarkGenerateLicenses1000(b *testing.B) {
	e := newEnv(b)
	p := e.mustPlan(b)
	for b.Loop() {
		e.mustGenerate(b, store.GenerateLicensesInput{PlanID: p.ID, Quantity: store.MaxGenerate})
	}
}

// BenchmarkListLicensesPage reads pages of 20 from 10,000 and 100,000
// licenses, seeded once per size. Page 1 must cost the same at both sizes;
// a page deep in the list costs its offset in index keys, never the
// collection.
func BenchmarkListLicensesPage(b *testing.B) {
	for _, size := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", size), func(b *testing.B) {
			e := newEnv(b)
			p := e.mustPlan(b)
			for range size / store.MaxGenerate {
				e.mustGenerate(b, store.GenerateLicensesInput{PlanID: p.ID, Quantity: store.MaxGenerate})
			}
			const perPage = 20
			for _, c := range []struct {
				name string
				f    store.LicenseFilter
			}{
				{"page=1", store.LicenseFilter{}},
				{"page=1/status=inactive", store.LicenseFilter{Status: store.LicenseInactive}},
				{"page=mid", store.LicenseFilter{PageRequest: store.PageRequest{Page: size / perPage / 2}}},
			} {
				c.f.PerPage = perPage
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						page, err := e.db.ListLicenses(e.ctx, e.scope, c.f)
						if err != nil || len(page.Data) != perPage || page.Total != size {
							b.Fatalf("page = %d items of %d, %v", len(page.Data), page.Total, err)
						}
					}
				})
			}
		})
	}
}
