package store

import (
	"context"
	"time"
)

// Partner sign-in: an identity of a provider signs in the account it is
// linked to, or is linked to the account of its address, or to a new
// account without organization that completes its profile later.

// PartnerSignIn implements Partners.
func (sv *Service) PartnerSignIn(ctx context.Context, id PartnerIdentity, sessionTTL time.Duration) (*PartnerSignInResult, error) {
	email, err := id.Check()
	if err != nil {
		return nil, err
	}
	var out *PartnerSignInResult
	err = sv.update(ctx, func(t Tx) error {
		out = &PartnerSignInResult{}
		m, err := sv.linkedMember(t, id)
		if err != nil {
			return err
		}
		if m == nil {
			if m, err = sv.linkIdentity(t, id, email, out); err != nil {
				return err
			}
		}
		sess, err := sv.OpenDashboardSession(t, m.ID, sessionTTL)
		if err != nil {
			return err
		}
		out.Member, out.Session = m, sess
		t.ActAs(ActorMember, m.ID)
		return t.Audit(AuditEvent{Event: EventMemberLogin, OrgID: m.OrgID, Target: Target{Type: "member", ID: m.ID},
			Metadata: map[string]any{"method": "partner"}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// linkedMember returns, held, the account the identity is linked to, or
// nil. A link whose account was removed is dropped, so the identity can
// sign up afresh.
func (sv *Service) linkedMember(t Tx, id PartnerIdentity) (*Member, error) {
	memberID, err := t.LockPartnerLink(id.Issuer, id.Subject)
	if err != nil || memberID == "" {
		return nil, err
	}
	m, err := t.LockMember(memberID)
	if err != nil || m != nil {
		return m, err
	}
	return nil, t.DeletePartnerLink(id.Issuer, id.Subject)
}

// linkIdentity links a new identity to the account of its address, or to a
// new account without organization, and records it in out. Only the
// provider's word that the address is verified lets an identity in: anyone
// can open an account at a provider with someone else's address, and an
// account made or joined that way would be waiting for its owner.
func (sv *Service) linkIdentity(t Tx, id PartnerIdentity, email string, out *PartnerSignInResult) (*Member, error) {
	if err := id.CheckLinkable(); err != nil {
		return nil, err
	}
	// No password: the account signs in through the provider, or sets one
	// with forgot-password (Login treats it as having none).
	m := &Member{ID: NewID(), Email: email, EmailVerified: true}
	err := t.InsertMember(m)
	switch ErrorCode(err) {
	case "":
		out.Created = true
	case ECodeEmailTaken:
		// The address has an account (perhaps committed on another server
		// a moment ago): hold it, the link may verify it.
		if m, err = sv.memberOfAddress(t, email); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	// Read before the link marks the account verified (the provider vouches
	// for the address): the reset mail, not this link, settles who holds it.
	accountVerified := m.EmailVerified
	dropped := id.LinkTo(m)
	if dropped {
		if _, err := t.EndDashboardSessions(m.ID); err != nil {
			return nil, err
		}
	}
	if err := sv.MarkVerified(t, m); err != nil {
		return nil, err
	}
	if err := t.InsertPartnerLink(id.Issuer, id.Subject, m.ID, accountVerified); err != nil {
		return nil, err
	}
	out.Linked = true
	t.ActAs(ActorMember, m.ID)
	return m, t.Audit(AuditEvent{Event: EventMemberPartnerLinked, OrgID: m.OrgID, Target: Target{Type: "member", ID: m.ID},
		Metadata: map[string]any{"issuer": id.Issuer, "new_account": out.Created, "email_verified": id.EmailVerified, "account_verified": accountVerified, "password_dropped": dropped}})
}

// memberOfAddress loads, held, the account of a registered address;
// not_found when it was removed since.
func (sv *Service) memberOfAddress(t Tx, email string) (*Member, error) {
	m, err := t.MemberByEmail(email)
	if err == nil && m != nil {
		m, err = t.LockMember(m.ID)
	}
	if err == nil && m == nil {
		err = NotFound("member")
	}
	return m, err
}

// CompleteProfile implements Partners: the account, held, becomes the
// owner of its new organization, once.
func (sv *Service) CompleteProfile(ctx context.Context, memberID string, in ProfileInput) (*Organization, error) {
	in, err := in.Check()
	if err != nil {
		return nil, err
	}
	var o *Organization
	err = sv.update(ctx, func(t Tx) error {
		m, err := t.LockMember(memberID)
		if err != nil {
			return err
		}
		if m == nil {
			return NotFound("account")
		}
		if err := m.CheckProfileOpen(); err != nil {
			return err
		}
		if o, err = NewOrganization(t, NewID(), in.OrganizationName, m.EmailVerified); err != nil {
			return err
		}
		m.CompleteProfile(o.ID, in, t.Now())
		if err := t.JoinOrg(m); err != nil {
			return err
		}
		t.ActAs(ActorMember, m.ID)
		return t.Audit(AuditEvent{Event: EventOrganizationCreated, OrgID: o.ID, Target: Target{Type: "organization", ID: o.ID},
			Metadata: map[string]any{"name": o.Name, "owner_id": m.ID, "partner": true}})
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}
