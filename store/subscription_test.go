package store

import (
	"testing"
	"time"
)

func TestSubscriptionTransitions(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	grace := 3 * 24 * time.Hour
	trial := at(-time.Hour)
	running := SubscriptionState{Status: SubscriptionActive, Provider: ProviderPix, Plan: "pro", TrialEndsAt: trial, PeriodStart: now.Add(-PaidPeriod + time.Hour), PeriodEnd: at(time.Hour)}
	fresh := SubscriptionState{Status: SubscriptionActive, Provider: ProviderPix, Plan: "pro", PeriodStart: now, PeriodEnd: at(PaidPeriod)}

	paid := []struct {
		name string
		from SubscriptionState
		plan string
		want SubscriptionState
	}{
		{"OK/FromDefault", DefaultSubscription(now.Add(-time.Hour)), "pro", fresh},
		{"OK/SameTierExtends", running, "pro", SubscriptionState{Status: SubscriptionActive, Provider: ProviderPix, Plan: "pro", TrialEndsAt: trial,
			PeriodStart: running.PeriodStart, PeriodEnd: at(time.Hour + PaidPeriod)}},
		{"OK/OtherTierStartsOver", running, "team", SubscriptionState{Status: SubscriptionActive, Provider: ProviderPix, Plan: "team", PeriodStart: now, PeriodEnd: at(PaidPeriod)}},
		{"OK/EndedStartsOver", SubscriptionState{Status: SubscriptionActive, Provider: ProviderPix, Plan: "pro", PeriodStart: now.Add(-PaidPeriod), PeriodEnd: at(0)}, "pro", fresh},
		{"OK/PastDueStartsOver", SubscriptionState{Status: SubscriptionPastDue, Provider: ProviderPix, Plan: "pro", PeriodEnd: at(time.Hour)}, "pro", fresh},
	}
	for _, tt := range paid {
		t.Run("Paid/"+tt.name, func(t *testing.T) {
			if got := tt.from.Paid(tt.plan, now); !sameState(got, tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}

	aged := []struct {
		name    string
		from    SubscriptionState
		want    SubscriptionState
		changed bool
	}{
		{"OK/NoPeriod", DefaultSubscription(now.Add(-time.Hour)), DefaultSubscription(now.Add(-time.Hour)), false},
		{"OK/Running", running, running, false},
		{"OK/EndedIsPastDue", withEnd(running, at(0)), withStatus(withEnd(running, at(0)), SubscriptionPastDue), true},
		{"OK/PastDueInGrace", withStatus(withEnd(running, at(-grace+time.Second)), SubscriptionPastDue), withStatus(withEnd(running, at(-grace+time.Second)), SubscriptionPastDue), false},
		{"OK/PastDueAfterGraceIsDefault", withStatus(withEnd(running, at(-grace)), SubscriptionPastDue), DefaultSubscription(now), true},
		{"OK/ActiveLongAgoIsDefault", withEnd(running, at(-grace-time.Hour)), DefaultSubscription(now), true},
	}
	for _, tt := range aged {
		t.Run("Aged/"+tt.name, func(t *testing.T) {
			got, changed := tt.from.Aged(now, grace)
			if !sameState(got, tt.want) || changed != tt.changed {
				t.Fatalf("got %+v, %v; want %+v, %v", got, changed, tt.want, tt.changed)
			}
		})
	}
	t.Run("Paid/OK/LeavesTheOriginal", func(t *testing.T) {
		before := *running.PeriodEnd
		running.Paid("pro", now)
		if !running.PeriodEnd.Equal(before) {
			t.Fatalf("Paid moved the original's period end to %v", running.PeriodEnd)
		}
	})
}

func TestCheckPayable(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name      string
		status    string
		expires   time.Time
		wantPaid  bool
		wantError bool
	}{
		{"OK/Pending", TransactionPending, now.Add(time.Second), false, false},
		{"OK/AlreadyPaid", TransactionPaid, now.Add(-time.Hour), true, false},
		{"ErrInvalidTransition/Expired", TransactionExpired, now.Add(time.Hour), false, true},
		{"ErrInvalidTransition/PastLifetime", TransactionPending, now, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			paid, err := CheckPayable(tt.status, tt.expires, now)
			if paid != tt.wantPaid || (err != nil) != tt.wantError {
				t.Fatalf("got %v, %v", paid, err)
			}
			if err != nil && (ErrorCode(err) != ECodeTransition || ErrorMessage(err) != "the transaction expired at "+tt.expires.Format(time.RFC3339)+": start a new checkout") {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func withEnd(s SubscriptionState, end *time.Time) SubscriptionState { s.PeriodEnd = end; return s }

func withStatus(s SubscriptionState, st string) SubscriptionState { s.Status = st; return s }

func sameState(a, b SubscriptionState) bool {
	sameTime := func(x, y *time.Time) bool { return (x == nil) == (y == nil) && (x == nil || x.Equal(*y)) }
	return a.Status == b.Status && a.Provider == b.Provider && a.Plan == b.Plan && sameTime(a.TrialEndsAt, b.TrialEndsAt) &&
		a.PeriodStart.Equal(b.PeriodStart) && sameTime(a.PeriodEnd, b.PeriodEnd)
}
