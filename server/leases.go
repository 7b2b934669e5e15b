package server

import (
	"net/http"

	"github.com/gorilla/mux"

	"licensectl/server/api"
	"licensectl/store"
)

// Floating seats (docs/design.md §13): the runtime checks a seat out, keeps it
// with heartbeats and releases it; support lists and frees them.

// sessionPost decodes the body of a runtime POST made with an activation
// session into body, then returns the session's access token and the
// request's anti-replay fields. The body comes first, as every runtime POST
// reads it: an unknown field is validation_failed whatever the bearer.
func sessionPost(r *http.Request, body any, rp *api.Replay) (string, store.Replay, error) {
	if err := decodeRuntime(r, body); err != nil {
		return "", store.Replay{}, err
	}
	tok, err := sessionBearer(r)
	if err != nil {
		return "", store.Replay{}, err
	}
	replay, err := replayOf(*rp)
	return tok, replay, err
}

// sessionBearer is the activation session's access token of a lease call.
func sessionBearer(r *http.Request) (string, error) {
	tok, ok := cutBearer(r.Header.Get("Authorization"))
	if !ok || tok == "" {
		return "", store.Errorf(store.ECodeSessionInvalid, "send the activation session's access token as Authorization: Bearer")
	}
	return tok, nil
}

func (s *Server) rtCheckoutLease(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error {
	var in api.LeaseRequest
	tok, rp, err := sessionPost(r, &in, &in.Replay)
	if err != nil {
		return err
	}
	g, err := s.rt.store.CheckoutLease(r.Context(), c, tok, rp)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, api.LeaseGranted{LeaseID: g.ID, ExpiresAt: g.ExpiresAt.UTC(), SeatsInUse: g.SeatsInUse, MaxConcurrent: g.MaxConcurrent})
	return nil
}

func (s *Server) rtHeartbeatLease(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error {
	tok, err := sessionBearer(r)
	if err != nil {
		return err
	}
	l, err := s.rt.store.HeartbeatLease(r.Context(), c, store.LeaseInput{AccessToken: tok, LeaseID: mux.Vars(r)["leaseId"]})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.LeaseExtended{ExpiresAt: l.ExpiresAt.UTC()})
	return nil
}

func (s *Server) rtReleaseLease(w http.ResponseWriter, r *http.Request, c store.RuntimeClient) error {
	tok, err := sessionBearer(r)
	if err != nil {
		return err
	}
	if err := s.rt.store.ReleaseLease(r.Context(), c, store.LeaseInput{AccessToken: tok, LeaseID: mux.Vars(r)["leaseId"]}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) listLeases(w http.ResponseWriter, r *http.Request) error {
	sc, err := scope(r)
	if err != nil {
		return err
	}
	list, err := s.db.ListLeases(r.Context(), sc, mux.Vars(r)["licenseId"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapList(list, func(l *store.Lease) api.LeaseItem {
		return api.LeaseItem{ID: l.ID, DeviceID: l.DeviceID, Fingerprint: l.Fingerprint, ExpiresAt: l.ExpiresAt.UTC(), CreatedAt: l.CreatedAt.UTC()}
	}))
	return nil
}

func (s *Server) releaseLease(w http.ResponseWriter, r *http.Request) error {
	sc, err := scope(r)
	if err != nil {
		return err
	}
	v := mux.Vars(r)
	if err := s.db.ReleaseLicenseLease(r.Context(), sc, v["licenseId"], v["leaseId"]); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.Success{Success: true})
	return nil
}
