package server

import (
	"licensectl/server/api"
	"net/http"

	"github.com/gorilla/mux"

	"licensectl/store"
)

func (s *Server) getOrganization(w http.ResponseWriter, r *http.Request) error {
	o, err := s.db.FindOrganization(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.OrganizationDetailOf(o))
	return nil
}

func (s *Server) updateOrganization(w http.ResponseWriter, r *http.Request) error {
	var req api.UpdateOrganizationRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	o, err := s.db.UpdateOrganization(r.Context(), principalFrom(r.Context()).OrgID, store.OrganizationUpdate{Name: req.Name})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.OrganizationUpdated{ID: o.ID, Name: o.Name, Slug: o.Slug, UpdatedAt: o.UpdatedAt})
	return nil
}

func (s *Server) listMembers(w http.ResponseWriter, r *http.Request) error {
	ms, err := s.db.ListMembers(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapList(ms, api.MemberItemOf))
	return nil
}

// ownerOnly is the refusal when a non-owner acts on the owner role.
func ownerOnly() error {
	return store.Errorf(store.ECodeForbidden, "only an owner may add or remove an owner")
}

func (s *Server) addMember(w http.ResponseWriter, r *http.Request) error {
	var req api.AddMemberRequest
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
	writeJSON(w, http.StatusCreated, api.MemberAdded{Success: true, Message: "The member was added and can sign in now.", MemberID: m.ID})
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
	writeJSON(w, http.StatusOK, api.Success{Success: true})
	return nil
}
