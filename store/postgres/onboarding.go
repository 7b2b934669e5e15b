package postgres

import (
	"time"

	"licensectl/store"
)

// onboardingRecord is a member's saved onboarding progress (bolt's record,
// field for field).
type onboardingRecord struct {
	TourStatus        string            `json:"ts"`
	CurrentStep       int               `json:"cs"`
	CompletedSteps    []string          `json:"st"`
	DismissedFeatures []string          `json:"df"`
	FeatureProgress   map[string]string `json:"fp"`
	CompletedAt       *time.Time        `json:"ca,omitempty"`
}

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
	rec, err := doc[onboardingRecord](t, `SELECT doc FROM onboarding WHERE member_id = $1`, memberID)
	if err != nil {
		return nil, err
	}
	p := store.NewOnboardingProgress()
	if rec == nil {
		return p, nil
	}
	p.TourStatus, p.CurrentStep, p.CompletedAt = rec.TourStatus, rec.CurrentStep, rec.CompletedAt
	p.CompletedSteps = append(p.CompletedSteps, rec.CompletedSteps...)
	p.DismissedFeatures = append(p.DismissedFeatures, rec.DismissedFeatures...)
	for k, v := range rec.FeatureProgress {
		p.FeatureProgress[k] = v
	}
	return p, nil
}

// Onboarding implements store.Tx.
func (t *txn) Onboarding(memberID string) (*store.OnboardingProgress, error) {
	return t.onboarding(memberID, false)
}

// LockOnboarding implements store.Tx.
func (t *txn) LockOnboarding(memberID string) (*store.OnboardingProgress, error) {
	return t.onboarding(memberID, true)
}

// onboardingRecordOf is the record of progress p.
func onboardingRecordOf(p *store.OnboardingProgress) *onboardingRecord {
	return &onboardingRecord{TourStatus: p.TourStatus, CurrentStep: p.CurrentStep, CompletedSteps: p.CompletedSteps,
		DismissedFeatures: p.DismissedFeatures, FeatureProgress: p.FeatureProgress, CompletedAt: p.CompletedAt}
}

// PutOnboarding implements store.Tx.
func (t *txn) PutOnboarding(memberID string, p *store.OnboardingProgress) error {
	_, err := t.exec(`INSERT INTO onboarding (member_id, doc) VALUES ($1, $2) ON CONFLICT (member_id) DO UPDATE SET doc = EXCLUDED.doc`,
		memberID, js(onboardingRecordOf(p)))
	return err
}
