package bolt

import (
	"licensectl/store"
	"licensectl/store/storedoc"
)

// Onboarding implements store.Tx.
func (t *txn) Onboarding(memberID string) (*store.OnboardingProgress, error) {
	if err := t.mustGet(bMembers, memberID, "member", new(store.Member)); err != nil {
		return nil, err
	}
	rec := new(storedoc.Onboarding)
	ok, err := t.get(bOnboarding, memberID, rec)
	if err != nil {
		return nil, err
	}
	if !ok {
		rec = nil // nothing saved yet: the initial progress
	}
	return rec.Progress(), nil
}

// LockOnboarding implements store.Tx: one writer holds the whole file.
func (t *txn) LockOnboarding(memberID string) (*store.OnboardingProgress, error) {
	return t.Onboarding(memberID)
}

// PutOnboarding implements store.Tx.
func (t *txn) PutOnboarding(memberID string, p *store.OnboardingProgress) error {
	return t.put(bOnboarding, memberID, storedoc.OnboardingOf(p))
}
