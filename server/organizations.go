package server

import (
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"licensectl/store"
)

// Members are organization-wide administration (design.md §4: developers
// and viewers have no access to members), so even listing them needs an
// owner or admin; the organization itself is readable by every member.
func (s *Server) registerOrganizationRoutes(r group) {
	r.Handle("/organizations/me", s.mgmt(permOrgRead, s.getOrganization)).Methods(http.MethodGet)
	r.Handle("/organizations/me", s.mgmt(permAdmin, s.updateOrganization)).Methods(http.MethodPatch)
	r.Handle("/organizations/members", s.mgmt(permAdmin, s.listMembers)).Methods(http.MethodGet)
	r.Handle("/organizations/members", s.mgmt(permAdmin, s.addMember)).Methods(http.MethodPost)
	r.Handle("/organizations/members/{memberId}", s.mgmt(permAdmin, s.removeMember)).Methods(http.MethodDelete)
}

// OrganizationDetail answers GET /organizations/me.
type OrganizationDetail struct {
	ID            string    `json:"id"`
	Name          string    `json:"name"`
	Slug          string    `json:"slug"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
	EmailVerified bool      `json:"email_verified"`
}

// OrganizationUpdated answers PATCH /organizations/me.
type OrganizationUpdated struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	UpdatedAt time.Time `json:"updated_at"`
}

// MemberItem is a member in lists; exactly the fields of the interface.
type MemberItem struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// UpdateOrganizationRequest is the body of PATCH /organizations/me.
type UpdateOrganizationRequest struct {
	Name *string `json:"name"`
}

// AddMemberRequest is the body of POST /organizations/members.
type AddMemberRequest struct {
	Email     string `json:"email"`
	Password  string `json:"password"`
	Role      string `json:"role"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
}

// MemberAdded answers POST /organizations/members.
type MemberAdded struct {
	Success  bool   `json:"success"`
	Message  string `json:"message"`
	MemberID string `json:"member_id"`
}

func (s *Server) getOrganization(w http.ResponseWriter, r *http.Request) error {
	o, err := s.db.FindOrganization(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, OrganizationDetail{ID: o.ID, Name: o.Name, Slug: o.Slug, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt, EmailVerified: o.EmailVerified})
	return nil
}

func (s *Server) updateOrganization(w http.ResponseWriter, r *http.Request) error {
	var req UpdateOrganizationRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	o, err := s.db.UpdateOrganization(r.Context(), principalFrom(r.Context()).OrgID, store.OrganizationUpdate{Name: req.Name})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, OrganizationUpdated{ID: o.ID, Name: o.Name, Slug: o.Slug, UpdatedAt: o.UpdatedAt})
	return nil
}

func (s *Server) listMembers(w http.ResponseWriter, r *http.Request) error {
	ms, err := s.db.ListMembers(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapList(ms, func(m *store.Member) MemberItem {
		return MemberItem{ID: m.ID, Email: m.Email, Role: m.Role, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
	}))
	return nil
}

// ownerOnly is the refusal when a non-owner acts on the owner role.
func ownerOnly() error {
	return store.Errorf(store.ECodeForbidden, "only an owner may add or remove an owner")
}

func (s *Server) addMember(w http.ResponseWriter, r *http.Request) error {
	var req AddMemberRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	p := principalFrom(r.Context())
	if req.Role == store.RoleOwner && p.Role != store.RoleOwner {
		return ownerOnly()
	}
	m, err := s.db.AddMember(r.Context(), store.AddMemberInput{OrgID: p.OrgID, Email: req.Email, Password: req.Password, Role: req.Role,
		FirstName: req.FirstName, LastName: req.LastName})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, MemberAdded{Success: true, Message: "The member was added and can sign in now.", MemberID: m.ID})
	return nil
}

func (s *Server) removeMember(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	id := mux.Vars(r)["memberId"]
	m, err := s.db.FindMember(r.Context(), p.OrgID, id)
	if err != nil {
		return err
	}
	if m.Role == store.RoleOwner && p.Role != store.RoleOwner {
		return ownerOnly()
	}
	if err := s.db.RemoveMember(r.Context(), p.OrgID, id); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, success{true})
	return nil
}
