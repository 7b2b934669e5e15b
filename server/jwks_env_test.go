package server_test

import (
	"context"
	"net/http"
	"testing"

	"licensectl/server/rttoken"
	"licensectl/store"
)

// jwks fetches the application's key set with the given query and headers.
func (f *rtFix) jwks(t *testing.T, query string, hdr ...string) rttoken.JWKS {
	t.Helper()
	var ks rttoken.JWKS
	r := f.s.Do(t, "GET", "/v1/runtime/applications/"+f.appID+"/jwks.json"+query, nil, hdr...).Want(t, http.StatusOK)
	if r.Header.Get("Vary") == "" {
		t.Fatal("a key set chosen by headers is served without Vary")
	}
	r.JSON(t, &ks)
	return ks
}

// devSession activates a development license of the application with the
// development public key.
func (f *rtFix) devSession(t *testing.T) session {
	t.Helper()
	var plan struct {
		ID string `json:"plan_id"`
	}
	f.mgmt(t, "POST", "/plans", map[string]any{"name": "Dev Plan"}).Want(t, http.StatusCreated).JSON(t, &plan)
	var gen struct {
		Licenses []struct {
			Key string `json:"key"`
		} `json:"licenses"`
	}
	f.s.As(t, f.org.APIKey, "POST", "/v1/mgmt/applications/"+f.appID+"/licenses", map[string]any{"plan_id": plan.ID}, "x-environment", "development").
		Want(t, http.StatusCreated).JSON(t, &gen)
	var out session
	f.s.Do(t, "POST", "/v1/runtime/licenses/activate", f.activateBody(gen.Licenses[0].Key, "dev-box"), "x-api-key", f.devPub).
		Want(t, http.StatusOK).JSON(t, &out)
	return out
}

// Issue 19 #4, docs/design.md §5: the JWKS document holds the key of one
// environment: the one ?environment= names, else the request's runtime
// credential's, else production; so a development token fails a production
// build's offline check.
func TestRuntimeJWKSOneEnvironment(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	app, err := f.s.Store().FindApplication(context.Background(), f.scope.App())
	if err != nil {
		t.Fatal(err)
	}
	kid := map[string]string{"production": app.Env("production").KeyID, "development": app.Env("development").KeyID}

	t.Run("OK", func(t *testing.T) {
		for _, tt := range []struct {
			name, query string
			hdr         []string
			want        string
		}{
			{"Default", "", nil, "production"},
			{"QueryDevelopment", "?environment=development", nil, "development"},
			{"QueryProduction", "?environment=production", nil, "production"},
			{"QueryWinsOverKey", "?environment=production", []string{"x-api-key", f.devPub}, "production"},
			{"DevelopmentKey", "", []string{"x-api-key", f.devPub}, "development"},
			{"ProductionKey", "", []string{"x-api-key", f.pub}, "production"},
			{"EnvironmentHeader", "", []string{"x-application-id", f.appID, "x-environment", "development"}, "development"},
			{"EnvironmentHeaderAlone", "", []string{"x-environment", "development"}, "development"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				ks := f.jwks(t, tt.query, tt.hdr...)
				if len(ks.Keys) != 1 || ks.Keys[0].Kid != kid[tt.want] {
					t.Fatalf("keys = %+v, want the %s key %s alone", ks.Keys, tt.want, kid[tt.want])
				}
			})
		}
	})

	t.Run("ErrDevelopmentTokenAgainstProduction", func(t *testing.T) {
		iss := f.s.Config.Runtime.Issuer
		devTok := f.devSession(t).AccessToken
		prodTok := f.activate(t, f.license(t, planOpts{}), "prod-box").AccessToken
		prodSet, devSet := f.jwks(t, ""), f.jwks(t, "?environment=development")
		if _, err := rttoken.VerifyKeySet(devTok, prodSet, f.appID, iss, "production"); err == nil {
			t.Fatal("a development token verified against the production document")
		}
		// The document alone refuses it, whatever environment the check expects.
		if _, err := rttoken.VerifyKeySet(devTok, prodSet, f.appID, iss, "development"); err == nil {
			t.Fatal("the production document holds the development key")
		}
		if _, err := rttoken.VerifyKeySet(prodTok, prodSet, f.appID, iss, "production"); err != nil {
			t.Fatalf("production token against the production document: %v", err)
		}
		if _, err := rttoken.VerifyKeySet(devTok, devSet, f.appID, iss, "development"); err != nil {
			t.Fatalf("development token against the development document: %v", err)
		}
	})

	t.Run("ErrValidationFailed", func(t *testing.T) {
		path := "/v1/runtime/applications/" + f.appID + "/jwks.json"
		f.s.Do(t, "GET", path+"?environment=staging", nil).WantError(t, http.StatusBadRequest, "validation_failed")
		f.s.Do(t, "GET", path, nil, "x-environment", "staging").WantError(t, http.StatusBadRequest, "validation_failed")
	})

	t.Run("ErrInvalidApplication", func(t *testing.T) {
		path := "/v1/runtime/applications/" + f.appID + "/jwks.json"
		other := attachRT(t, f.s) // another application of the same server
		f.s.Do(t, "GET", path, nil, "x-api-key", other.pub).WantError(t, http.StatusUnauthorized, "invalid_application")
		f.s.Do(t, "GET", path, nil, "x-api-key", store.PrefixPublicLive+"unknown").WantError(t, http.StatusUnauthorized, "invalid_application")
	})
}
