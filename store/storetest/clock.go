package storetest

import (
	"sync/atomic"
	"time"
)

// Clock is the time of an implementation under test, which only the test
// moves, as influx's TimeGenerator gives a test its time: an implementation
// opened for the suite reads Now (bolt through Options.Clock, a server
// through server.WithClock), and the suite calls Advance instead of sleeping
// or reading the wall clock. Its zero value is the Unix epoch; NewClock
// starts it elsewhere. It is safe for concurrent use.
type Clock struct{ ns atomic.Int64 }

// NewClock returns a clock standing at at, truncated to microseconds as
// store.SystemClock is, so that times survive a round trip through every
// store.
func NewClock(at time.Time) *Clock {
	c := &Clock{}
	c.Set(at)
	return c
}

// Now returns the clock's time, in UTC.
func (c *Clock) Now() time.Time { return time.Unix(0, c.ns.Load()).UTC() }

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) { c.ns.Store(t.UTC().Truncate(time.Microsecond).UnixNano()) }
