package postgres

import (
	"licensectl/store"
	"licensectl/store/storedoc"
)

// onboarding loads the member's progress, the initial one when none was
// saved. With lock, the member's row is locked until the transaction ends,
// so that two updates on two servers apply one after the other rather than
// both to the same progress.
func (t *txn) onboarding(memberID string, lock bool) (*store.OnboardingProgress, error) {
	q := `SELECT count(*) FROM members WHERE id = $1`
	if lock {
		q = `SELECT count(*) FROM (SELECT 1 FROM members WHERE id = $1 FOR NO KEY UPDATE) m`
	}
	n, err := t.count(q, uuidOrNil(memberID))
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, store.NotFound("member")
	}
	rec, err := doc[storedoc.Onboarding](t, `SELECT doc FROM onboarding WHERE member_id = $1`, memberID)
	if err != nil {
		return nil, err
	}
	return rec.Progress(), nil
}

// Onboarding implements store.Tx.
func (t *txn) Onboarding(memberID string) (*store.OnboardingProgress, error) {
	return t.onboarding(memberID, false)
}

// LockOnboarding implements store.Tx.
func (t *txn) LockOnboarding(memberID string) (*store.OnboardingProgress, error) {
	return t.onboarding(memberID, true)
}

// PutOnboarding implements store.Tx.
func (t *txn) PutOnboarding(memberID string, p *store.OnboardingProgress) error {
	_, err := t.exec(`INSERT INTO onboarding (member_id, doc) VALUES ($1, $2) ON CONFLICT (member_id) DO UPDATE SET doc = EXCLUDED.doc`,
		memberID, js(storedoc.OnboardingOf(p)))
	return err
}
