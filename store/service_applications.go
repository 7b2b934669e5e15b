package store

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
)

// ErrSlugTaken is the answer to an application slug its organization
// already holds, whichever storage found it taken.
func ErrSlugTaken(slug string) error {
	return Errorf(ECodeSlugTaken, "an application with slug %q already exists", slug)
}

// newEnvironments draws the two environments of a new application, their
// keys included. It runs before the transaction: a transaction retried
// draws nothing again, and the drawing holds no writer up.
func newEnvironments() ([]Environment, error) {
	envs := make([]Environment, 0, 2)
	for _, name := range []string{EnvDevelopment, EnvProduction} {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		prefix := PrefixPublicLive
		if name == EnvDevelopment {
			prefix = PrefixPublicTest
		}
		envs = append(envs, Environment{ID: NewID(), Name: name, PublicKey: NewSecret(prefix), SigningKey: priv, KeyID: NewID()})
	}
	return envs, nil
}

// CreateApplication implements Applications.
func (sv *Service) CreateApplication(ctx context.Context, in CreateApplicationInput) (*Application, error) {
	in, err := in.Check()
	if err != nil {
		return nil, err
	}
	envs, err := newEnvironments()
	if err != nil {
		return nil, err
	}
	id := NewID()
	var out *Application
	err = sv.update(ctx, func(t Tx) error {
		if err := t.OrgExists(in.OrgID); err != nil {
			return err
		}
		if err := sv.EnforceLimit(t, in.OrgID, ResApplications, 1); err != nil {
			return err
		}
		now := t.Now()
		a := &Application{ID: id, OrgID: in.OrgID, Name: in.Name, Slug: in.Slug, SupportEmail: in.SupportEmail, Status: AppActive,
			CreatedAt: now, UpdatedAt: now}
		for _, e := range envs {
			e.CreatedAt = now
			a.Environments = append(a.Environments, e)
		}
		if err := t.InsertApplication(a); err != nil {
			return err
		}
		out = a
		return t.Audit(AuditEvent{Event: EventApplicationCreated, OrgID: a.OrgID, AppID: a.ID, EnvIDs: a.EnvIDs(),
			Target: Target{Type: "application", ID: a.ID}, Metadata: map[string]any{"name": a.Name, "slug": a.Slug}})
	})
	return out, err
}

// UpdateApplication implements Applications.
func (sv *Service) UpdateApplication(ctx context.Context, ref AppRef, u ApplicationUpdate) (*Application, error) {
	u, err := u.Check()
	if err != nil {
		return nil, err
	}
	var out *Application
	err = sv.update(ctx, func(t Tx) error {
		a, err := t.LockApp(ref)
		if err != nil {
			return err
		}
		meta := map[string]any{}
		if u.Name != nil && *u.Name != a.Name {
			a.Name, meta["name"] = *u.Name, *u.Name
		}
		if u.SupportEmail != nil && *u.SupportEmail != a.SupportEmail {
			a.SupportEmail, meta["support_email"] = *u.SupportEmail, *u.SupportEmail
		}
		event := EventApplicationUpdated
		if u.Status != nil {
			change, err := AppStatus.Transition(a.Status, a.Status, *u.Status)
			if err != nil {
				return err
			}
			if change.Event != "" {
				meta["status"] = change.To
				a.Status, event = change.To, change.Event
			}
		}
		out = a
		if len(meta) == 0 {
			return nil
		}
		a.UpdatedAt = t.Now()
		if err := t.PutApplication(a); err != nil {
			return err
		}
		return t.Audit(AuditEvent{Event: event, OrgID: a.OrgID, AppID: a.ID, EnvIDs: a.EnvIDs(),
			Target: Target{Type: "application", ID: a.ID}, Metadata: meta})
	})
	return out, err
}

// DeleteApplication implements Applications. A permanent deletion first
// disables the application in a transaction of its own: from then on the
// runtime refuses it without holding it, so the purge waits only for the
// writes already under way instead of being starved by new ones. A purge
// that fails leaves the application disabled, as a deletion that is not
// permanent would.
func (sv *Service) DeleteApplication(ctx context.Context, ref AppRef, permanent bool) error {
	if !permanent {
		disabled := AppDisabled
		_, err := sv.UpdateApplication(ctx, ref, ApplicationUpdate{Status: &disabled})
		return err
	}
	err := sv.update(ctx, func(t Tx) error {
		a, err := t.LockApp(ref)
		if err != nil || a.Status == AppDisabled {
			return err
		}
		a.Status = AppDisabled
		return t.PutApplication(a)
	})
	if err != nil {
		return err
	}
	return sv.update(ctx, func(t Tx) error {
		a, err := t.LockAppForPurge(ref)
		if err != nil {
			return err
		}
		if err := t.PurgeApplication(a); err != nil {
			return err
		}
		// The entry outlives the application in the organization's log.
		return t.Audit(AuditEvent{Event: EventApplicationDeleted, OrgID: a.OrgID, Target: Target{Type: "application", ID: a.ID},
			Metadata: map[string]any{"name": a.Name, "slug": a.Slug, "permanent": true}})
	})
}
