package server

import (
	"context"
	"net/http"

	"github.com/gorilla/mux"

	"licensectl/server/api"
	"licensectl/store"
)

// countSessions answers GET …/{param}/sessions with the live sessions of the
// license or device the path names, in the environment the request selects
// (as the license and device reads do).
func countSessions(param string, count func(ctx context.Context, sc store.Scope, id string) (int, error)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, err := scope(r)
		if err != nil {
			return err
		}
		n, err := count(r.Context(), sc, mux.Vars(r)[param])
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, api.ActiveSessions{ActiveSessions: n})
		return nil
	}
}
