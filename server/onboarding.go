package server

import (
	"net/http"

	"licensectl/server/api"
	"licensectl/store"
)

// Onboarding progress is the signed-in member's own state: permMember
// refuses API keys, application secrets and the operator, and lets
// unverified members change it.
func (s *Server) registerOnboardingRoutes(m group) {
	m.Handle("/onboarding/progress", s.mgmt(permMember, s.getOnboarding)).Methods(http.MethodGet)
	m.Handle("/onboarding/progress", s.mgmt(permMember, s.updateOnboarding)).Methods(http.MethodPatch)
}

func (s *Server) getOnboarding(w http.ResponseWriter, r *http.Request) error {
	p, err := s.db.Onboarding(r.Context(), principalFrom(r.Context()).ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.OnboardingProgressOf(p))
	return nil
}

func (s *Server) updateOnboarding(w http.ResponseWriter, r *http.Request) error {
	var u api.OnboardingUpdate
	if err := decode(r, &u); err != nil {
		return err
	}
	p, err := s.db.UpdateOnboarding(r.Context(), principalFrom(r.Context()).ID, store.OnboardingUpdate(u))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.OnboardingProgressOf(p))
	return nil
}
