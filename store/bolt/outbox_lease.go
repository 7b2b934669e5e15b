package bolt

import (
	"bytes"
	"sync"
	"time"
)

// The bbolt store runs in one process, so its claims live in memory: a
// restart forgets them and finds every unsent delivery due again, which is
// what an expired lease means on a shared database. The lease table is
// consulted and changed under its mutex together with a read transaction,
// so two dispatchers on one store never take the same delivery; a lease
// ends after the commit that records its attempt, never before, so a claim
// sees either the lease or the recorded outcome.

// lease is one delivery handed to a dispatcher.
type lease struct {
	owner string
	hook  string
	app   string
	until time.Time
}

// leaseTable holds the live claims and where the round-robin resumes.
type leaseTable struct {
	mu   sync.Mutex
	byID map[string]lease
	next []byte // the endpoint the next claim starts from
}

// loads counts the live leases per endpoint (every owner) and per
// application (owner's own), dropping the expired ones. Call with mu held.
func (lt *leaseTable) loads(now time.Time, owner string) (perHook, perApp map[string]int) {
	perHook, perApp = map[string]int{}, map[string]int{}
	for id, l := range lt.byID {
		if !now.Before(l.until) {
			delete(lt.byID, id)
			continue
		}
		perHook[l.hook]++
		if l.owner == owner {
			perApp[l.app]++
		}
	}
	return perHook, perApp
}

// release ends the lease of a delivery.
func (lt *leaseTable) release(id string) {
	lt.mu.Lock()
	delete(lt.byID, id)
	lt.mu.Unlock()
}

// hooksWithDue lists the endpoints whose earliest due delivery is due at
// now, starting at from and wrapping around: one seek per endpoint with
// pending work, never a walk through one endpoint's backlog.
func (t *txn) hooksWithDue(now time.Time, from []byte) []string {
	end := timeKey(now)
	c := t.tx.Bucket(bDelivDueHook).Cursor()
	var out []string
	visit := func(k []byte, stop []byte) {
		for k != nil && (stop == nil || bytes.Compare(k[:16], stop) < 0) {
			hook := k[:16]
			if bytes.Compare(k[16:24], end) <= 0 {
				out = append(out, ids(hook))
			}
			next := after(hook)
			if next == nil {
				return
			}
			k, _ = c.Seek(next)
		}
	}
	if from == nil {
		k, _ := c.First()
		visit(k, nil)
		return out
	}
	k, _ := c.Seek(from)
	visit(k, nil)
	k, _ = c.First()
	visit(k, from)
	return out
}

// after is the smallest key greater than every key that starts with prefix.
func after(prefix []byte) []byte {
	end := bytes.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
