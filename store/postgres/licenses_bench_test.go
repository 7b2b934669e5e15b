package postgres

import (
	"context"
	"fmt"
	"testing"

	"licensectl/store"
)

// BenchmarkGenerateLicenses1000 is one generation call of the largest
// quantity on PostgreSQL, in an application with no endpoint and with one
// subscribed to license.created: 1,000 licenses, 1,000 audit entries and,
// with the endpoint, 1,000 outbox events in one transaction.
func BenchmarkGenerateLicenses1000(b *testing.B) {
	ctx := context.Background()
	for _, endpoints := range []int{0, 1} {
		b.Run(fmt.Sprintf("endpoints=%d", endpoints), func(b *testing.B) {
			// A schema of its own each time: -count runs the same name again.
			db := openTest(b, Options{})
			org := catalogOrg(b, db, fmt.Sprintf("generating-%d", endpoints))
			a, err := db.CreateApplication(ctx, store.CreateApplicationInput{OrgID: org, Name: "Generating"})
			if err != nil {
				b.Fatal(err)
			}
			ref := store.AppRef{OrgID: org, AppID: a.ID}
			for i := range endpoints {
				if _, err := db.CreateWebhook(ctx, ref, fmt.Sprintf("https://h%d.example.com/hook", i), []string{store.EventLicenseCreated}); err != nil {
					b.Fatal(err)
				}
			}
			p, err := db.CreatePlan(ctx, ref, store.PlanInput{Name: ptrTo("Bulk")})
			if err != nil {
				b.Fatal(err)
			}
			sc := store.Scope{OrgID: org, AppID: a.ID, Env: store.EnvProduction}
			for b.Loop() {
				if _, err := db.GenerateLicenses(ctx, sc, store.GenerateLicensesInput{PlanID: p.ID, Quantity: store.MaxGenerate}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
