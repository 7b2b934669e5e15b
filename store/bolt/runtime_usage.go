package bolt

import (
	"encoding/binary"
	"time"

	"licensectl/store"
)

// MarkSessionSeen implements store.RuntimeTx.
func (t runtimeTxn) MarkSessionSeen(sessionID string, at time.Time) error {
	s := new(sessionRecord)
	if ok, err := t.get(bSessions, sessionID, s); err != nil || !ok {
		return err
	}
	if s.LastSeenAt != nil && !s.LastSeenAt.Before(at) {
		return nil
	}
	s.LastSeenAt = &at
	return t.put(bSessions, s.ID, s)
}

func usageKey(orgID string, at time.Time) []byte {
	return usageMonthKey(orgID, store.MonthKey(at))
}

func usageMonthKey(orgID, month string) []byte { return key(idb(orgID), []byte(month)) }

// AddUsage implements store.RuntimeTx.
func (t runtimeTxn) AddUsage(month string, orgs []string, requests []int64) error {
	b := t.tx.Bucket(bUsage)
	for i, org := range orgs {
		k := usageMonthKey(org, month)
		var cur uint64
		if v := b.Get(k); len(v) == 8 {
			cur = binary.BigEndian.Uint64(v)
		}
		if err := b.Put(k, u64(cur+uint64(requests[i]))); err != nil {
			return err
		}
	}
	return nil
}
