package store

import "context"

// Onboarding implements Onboarding.
func (sv *Service) Onboarding(ctx context.Context, memberID string) (*OnboardingProgress, error) {
	var out *OnboardingProgress
	err := sv.storage.View(ctx, func(t Tx) (err error) {
		out, err = t.Onboarding(memberID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateOnboarding implements Onboarding: the update is validated whole
// before anything changes, then applied to the member's progress, held.
func (sv *Service) UpdateOnboarding(ctx context.Context, memberID string, u OnboardingUpdate) (*OnboardingProgress, error) {
	if err := u.Validate(); err != nil {
		return nil, err
	}
	var out *OnboardingProgress
	err := sv.update(ctx, func(t Tx) error {
		p, err := t.LockOnboarding(memberID)
		if err != nil {
			return err
		}
		if err := p.Apply(u, t.Now()); err != nil {
			return err
		}
		out = p
		return t.PutOnboarding(memberID, p)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
