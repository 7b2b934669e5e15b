package store

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestClaimRounds(t *testing.T) {
	a := &Webhook{ID: "a", AppID: "app1"}
	b := &Webhook{ID: "b", AppID: "app1"}
	slow := &Webhook{ID: "slow", AppID: "app2", TimedOut: true}
	due := map[string]int{"a": 3, "b": 1, "slow": 2}
	for _, tt := range []struct {
		name    string
		limit   int
		perApp  int
		perHook map[string]int // live leases before the claim
		want    string
	}{
		{"OKRoundRobin", 10, 10, nil, "a1 b1 slow1 a2"},
		{"OKLimit", 2, 10, nil, "a1 b1"},
		{"OKPerApp", 10, 1, nil, "a1 slow1"},
		{"OKLiveLeasesCount", 10, 10, map[string]int{"a": 1, "slow": 1}, "a1 b1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := Claim{Owner: "one", Limit: tt.limit, PerEndpoint: 2, PerApp: tt.perApp}
			perHook := map[string]int{}
			for h, n := range tt.perHook {
				perHook[h] = n
			}
			taken := map[string]int{}
			picks, err := c.Rounds([]*Webhook{a, b, slow}, perHook, map[string]int{}, func(w *Webhook) (string, error) {
				if taken[w.ID] == due[w.ID] {
					return "", nil
				}
				taken[w.ID]++
				return fmt.Sprintf("%s%d", w.ID, taken[w.ID]), nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range picks {
				if !strings.HasPrefix(p.DeliveryID, p.Webhook.ID) {
					t.Fatalf("pick %s names endpoint %s", p.DeliveryID, p.Webhook.ID)
				}
				got = append(got, p.DeliveryID)
			}
			if !slices.Equal(got, strings.Fields(tt.want)) {
				t.Fatalf("got %v, want %s", got, tt.want)
			}
		})
	}
}
