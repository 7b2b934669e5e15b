package server

import (
	"strconv"
	"testing"
	"time"
)

// TestLimiterBoundedUnderFlood: a table fed a flood of distinct addresses
// stays at its cap, and an address sending often among them is limited
// exactly: limit events allowed in its window, every later one refused.
func TestLimiterBoundedUnderFlood(t *testing.T) {
	tests := []struct {
		name     string
		keys     int // the table's cap; 0 is the server's
		distinct int // addresses sending once or twice
		each     int // events per distinct address
		hotEvery int // the hot address sends after every hotEvery distinct ones
		limit    int
	}{
		{name: "MillionOnceDefaultCap", distinct: 1_000_000, each: 1, hotEvery: 5000, limit: 100},
		{name: "SmallCapOnce", keys: 32 * 16, distinct: 200_000, each: 1, hotEvery: 100, limit: 1000},
		{name: "SmallCapRepeat", keys: 32 * 16, distinct: 100_000, each: 2, hotEvery: 50, limit: 1000},
		{name: "LimitOne", keys: 32 * 4, distinct: 50_000, each: 1, hotEvery: 20, limit: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			keys := tc.keys
			if keys == 0 {
				keys = limiterKeys
			}
			l := newLimiterCap(tc.limit, time.Hour, func() time.Time { return now }, keys)
			allowed, refused := 0, 0
			for i := range tc.distinct {
				key := "10." + strconv.Itoa(i>>16&255) + "." + strconv.Itoa(i>>8&255) + "." + strconv.Itoa(i&255) + "#" + strconv.Itoa(i>>24)
				for range tc.each {
					if !l.Allow(key).ok {
						t.Fatalf("address %d refused within its limit", i)
					}
				}
				if i%tc.hotEvery == 0 {
					if l.Allow("192.0.2.1").ok {
						allowed++
					} else {
						refused++
					}
				}
				if i%10_000 == 0 {
					if n := l.size(); n > keys {
						t.Fatalf("after %d addresses the table holds %d keys, cap %d", i, n, keys)
					}
				}
				now = now.Add(time.Microsecond) // all within one window
			}
			if n := l.size(); n > keys {
				t.Fatalf("the table holds %d keys, cap %d", n, keys)
			}
			hot := (tc.distinct + tc.hotEvery - 1) / tc.hotEvery
			if want := min(tc.limit, hot); allowed != want || refused != hot-want {
				t.Fatalf("hot address: %d allowed, %d refused of %d, want %d allowed", allowed, refused, hot, want)
			}
			// A new window lets the hot address in again.
			now = now.Add(time.Hour)
			if !l.Allow("192.0.2.1").ok {
				t.Fatal("hot address refused in a new window")
			}
		})
	}
}
