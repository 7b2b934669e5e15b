package server

import (
	"net/http"

	"licensectl/server/api"
	"licensectl/store"
)

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
