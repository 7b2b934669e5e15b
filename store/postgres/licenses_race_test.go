package postgres

import (
	"context"
	"sync"
	"testing"

	"licensectl/store"
)

// TestGenerateRacesPlanDelete: a generation and a deletion of its plan on
// two servers at once never both succeed. Either the licenses exist and the
// deletion is refused with plan_in_use, or the plan is gone and the
// generation refused: no license is left with a deleted plan.
func TestGenerateRacesPlanDelete(t *testing.T) {
	ctx := context.Background()
	dbs := twoServers(t, Options{})
	org := catalogOrg(t, dbs[0], "generating")
	a, err := dbs[0].CreateApplication(ctx, store.CreateApplicationInput{OrgID: org, Name: "Generating"})
	if err != nil {
		t.Fatal(err)
	}
	ref := store.AppRef{OrgID: org, AppID: a.ID}
	sc := store.Scope{OrgID: org, AppID: a.ID, Env: store.EnvProduction}
	for round := range 12 {
		p, err := dbs[0].CreatePlan(ctx, ref, store.PlanInput{Name: ptrTo("Racing")})
		if err != nil {
			t.Fatal(err)
		}
		var genErr, delErr error
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, genErr = dbs[round%2].GenerateLicenses(ctx, sc, store.GenerateLicensesInput{PlanID: p.ID, Quantity: 20})
		}()
		go func() {
			defer wg.Done()
			delErr = dbs[(round+1)%2].DeletePlan(ctx, ref, p.ID)
		}()
		wg.Wait()
		switch {
		case genErr == nil && store.ErrorCode(delErr) == store.ECodePlanInUse:
		case delErr == nil && genErr != nil:
		default:
			t.Fatalf("round %d: generation %v, deletion %v; want exactly one to succeed", round, genErr, delErr)
		}
		if n := catalogCount(t, dbs[0], `SELECT count(*) FROM licenses l WHERE NOT EXISTS (SELECT 1 FROM plans p WHERE p.id = l.plan_id)`); n != 0 {
			t.Fatalf("round %d: %d licenses whose plan is gone", round, n)
		}
	}
}
