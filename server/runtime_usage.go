package server

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"licensectl/store"
)

// usageCounter counts runtime requests per organization in memory and flushes
// them to the store in batches: counting must not write on every request.
// It also holds each organization's monthly quota, so that the quota check
// on the request path is a map read under a read lock and atomic adds, with
// no store access once the application identification has been seen.
type usageCounter struct {
	rt  store.Runtime
	db  store.Quotas
	now store.Clock
	mu  sync.RWMutex
	// clients maps what a request names to its organization's counter;
	// resolved once, on first sight.
	clients map[store.RuntimeClient]*orgUsage
	orgs    map[string]*orgUsage
}

// orgUsage is one organization's count for the current month, the months not
// yet flushed before it, and its quota.
type orgUsage struct {
	org   string
	cur   atomic.Pointer[monthUsage]
	limit atomic.Int64 // limitUnknown until read from the store
	mu    sync.Mutex   // month rollover and flush
	old   []*monthUsage
}

// monthUsage counts one UTC month: total is every request counted (the
// stored count when the month was first seen, plus every one since), flushed
// the part already in the store.
type monthUsage struct {
	month   int // year*12 + month-1
	total   atomic.Int64
	flushed atomic.Int64
}

// limitUnknown marks a quota to be read from the store on next use.
const limitUnknown = math.MinInt64

// maxUsageKeys bounds the clients map; past it, a request of a new client is
// resolved each time instead of remembered.
const maxUsageKeys = 1 << 16

func newUsageCounter(rt store.Runtime, db store.Quotas, now store.Clock) *usageCounter {
	return &usageCounter{rt: rt, db: db, now: now, clients: map[store.RuntimeClient]*orgUsage{}, orgs: map[string]*orgUsage{}}
}

func monthIndex(t time.Time) int {
	t = t.UTC()
	return t.Year()*12 + int(t.Month()) - 1
}

func monthTime(m int) time.Time { return time.Date(m/12, time.Month(m%12+1), 1, 0, 0, 0, 0, time.UTC) }

// org returns the counter of the organization c names, nil when c names no
// application (such a request is not counted).
func (u *usageCounter) org(ctx context.Context, c store.RuntimeClient) *orgUsage {
	u.mu.RLock()
	ou := u.clients[c]
	u.mu.RUnlock()
	if ou != nil {
		return ou
	}
	ra, err := u.rt.ResolveApp(ctx, c)
	if err != nil {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	ou = u.orgs[ra.App.OrgID]
	if ou == nil {
		ou = &orgUsage{org: ra.App.OrgID}
		ou.limit.Store(limitUnknown)
		u.orgs[ou.org] = ou
	}
	if len(u.clients) < maxUsageKeys {
		u.clients[c] = ou
	}
	return ou
}

// forget drops what c was resolved to, after the store refused it: a
// rotated public key must not keep being counted.
func (u *usageCounter) forget(c store.RuntimeClient) {
	u.mu.Lock()
	delete(u.clients, c)
	u.mu.Unlock()
}

// month returns the counter of the month of now, starting it from the
// stored count on the month's first request.
func (u *usageCounter) month(ctx context.Context, ou *orgUsage, now time.Time) (*monthUsage, error) {
	m := monthIndex(now)
	if mu := ou.cur.Load(); mu != nil && mu.month == m {
		return mu, nil
	}
	ou.mu.Lock()
	defer ou.mu.Unlock()
	prev := ou.cur.Load()
	if prev != nil && prev.month == m {
		return prev, nil
	}
	n, err := u.rt.RuntimeRequests(ctx, ou.org, now)
	if err != nil {
		return nil, err
	}
	mu := &monthUsage{month: m}
	mu.total.Store(n)
	mu.flushed.Store(n)
	if prev != nil {
		ou.old = append(ou.old, prev)
	}
	ou.cur.Store(mu)
	return mu, nil
}

// quota returns the organization's monthly request limit.
func (u *usageCounter) quota(ctx context.Context, ou *orgUsage) (int64, error) {
	if l := ou.limit.Load(); l != limitUnknown {
		return l, nil
	}
	l, err := u.db.MonthlyRequestLimit(ctx, ou.org)
	if err != nil {
		return 0, err
	}
	ou.limit.CompareAndSwap(limitUnknown, l)
	return l, nil
}

// admit counts one request of c against its organization's month and
// refuses it with monthly_quota_exceeded past the quota; a refused request
// is not counted. It returns the counter to undo with release when the
// request turns out not to name an application after all.
func (u *usageCounter) admit(ctx context.Context, c store.RuntimeClient) (*monthUsage, error) {
	ou := u.org(ctx, c)
	if ou == nil {
		return nil, nil
	}
	now := u.now()
	mu, err := u.month(ctx, ou, now)
	if err != nil {
		return nil, err
	}
	limit, err := u.quota(ctx, ou)
	if err != nil {
		return nil, err
	}
	if n := mu.total.Add(1); !store.Within(n, limit) {
		mu.total.Add(-1)
		next := monthTime(mu.month + 1)
		return nil, &store.Error{Code: store.ECodeMonthlyQuota, RetryAfter: int(math.Ceil(next.Sub(now).Seconds())),
			Message: "the organization's monthly runtime request quota is used up until " + next.Format(time.RFC3339)}
	}
	return mu, nil
}

// release undoes the count of admit.
func (u *usageCounter) release(mu *monthUsage) {
	if mu != nil {
		mu.total.Add(-1)
	}
}

// unflushed is what this server counted for the organization in the month
// of at and has not stored yet: the store's count plus it is the month's
// usage, but for what other servers have not stored yet either.
func (u *usageCounter) unflushed(orgID string, at time.Time) int64 {
	u.mu.RLock()
	ou := u.orgs[orgID]
	u.mu.RUnlock()
	if ou == nil {
		return 0
	}
	if mu := ou.cur.Load(); mu != nil && mu.month == monthIndex(at) {
		return max(0, mu.total.Load()-mu.flushed.Load())
	}
	return 0
}

// planChanged makes the next request of the organization read its quota
// again, after its subscription changed.
func (u *usageCounter) planChanged(orgID string) {
	u.mu.RLock()
	ou := u.orgs[orgID]
	u.mu.RUnlock()
	if ou != nil {
		ou.limit.Store(limitUnknown)
	}
}

// flush adds the counts not yet stored to each organization's monthly
// totals, one store transaction per month. A month that fails to write stays
// pending for the next flush.
func (u *usageCounter) flush(ctx context.Context) error {
	u.mu.RLock()
	orgs := make([]*orgUsage, 0, len(u.orgs))
	for _, ou := range u.orgs {
		orgs = append(orgs, ou)
	}
	u.mu.RUnlock()
	type pending struct {
		ou    *orgUsage
		mu    *monthUsage
		total int64
		old   bool
	}
	byMonth := map[int][]pending{}
	for _, ou := range orgs {
		ou.mu.Lock()
		months := ou.old
		ou.old = nil
		cur := ou.cur.Load()
		ou.mu.Unlock()
		if cur != nil {
			months = append(months, cur)
		}
		for _, mu := range months {
			total := mu.total.Load()
			// A release after the last flush can leave total below flushed:
			// later requests make up the difference; nothing is stored twice.
			if total > mu.flushed.Load() || mu != cur {
				byMonth[mu.month] = append(byMonth[mu.month], pending{ou, mu, total, mu != cur})
			}
		}
	}
	var firstErr error
	for m, ps := range byMonth {
		counts := map[string]int64{}
		for _, p := range ps {
			if d := p.total - p.mu.flushed.Load(); d > 0 {
				counts[p.ou.org] += d
			}
		}
		if err := u.rt.AddRuntimeRequests(ctx, monthTime(m), counts); err != nil {
			for _, p := range ps {
				if p.old {
					p.ou.mu.Lock()
					p.ou.old = append(p.ou.old, p.mu)
					p.ou.mu.Unlock()
				}
			}
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		for _, p := range ps {
			p.mu.flushed.Store(p.total)
		}
	}
	for _, ou := range orgs {
		if err := u.catchUp(ctx, ou); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// catchUp folds into the organization's current month what other servers
// stored since this one last looked (docs/design.md §12: the month's usage
// adds up the counts of all servers), so that its quota check and its
// usage read count their requests too, a flush interval late at most.
// flushed is what this server takes the store to hold; whatever the store
// holds beyond it, the others added.
func (u *usageCounter) catchUp(ctx context.Context, ou *orgUsage) error {
	mu := ou.cur.Load()
	if mu == nil {
		return nil
	}
	stored, err := u.rt.RuntimeRequests(ctx, ou.org, monthTime(mu.month))
	if err != nil {
		return err
	}
	if others := stored - mu.flushed.Load(); others > 0 {
		mu.flushed.Add(others)
		mu.total.Add(others)
	}
	return nil
}
