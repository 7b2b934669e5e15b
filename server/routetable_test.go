package server

import (
	"net/http"
	"strings"
	"testing"

	"licensectl/server/api"
)

// TestRouteTableComplete: every route of the table is fully described
// (summary, success answer, request body, handler of its access, error
// statuses), and the check itself fails on a route that is not.
func TestRouteTableComplete(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, rt := range routeTable() {
		key := rt.method + " " + rt.path
		if seen[key] {
			t.Errorf("%s is in the table twice", key)
		}
		seen[key] = true
		if miss := describe(rt); len(miss) > 0 {
			t.Errorf("%s lacks %s", key, strings.Join(miss, ", "))
		}
	}
	if len(seen) < 90 {
		t.Fatalf("the table has %d routes", len(seen))
	}

	full := mgmtOp(permWrite, http.MethodPost, "/v1/mgmt/applications", "Create an application", (*Server).createApplication).
		in(api.CreateApplicationRequest{}, "name").out(http.StatusCreated, api.ApplicationCreated{})
	if miss := describe(full); len(miss) > 0 {
		t.Fatalf("a full route lacks %v", miss)
	}
	for name, broken := range map[string]route{
		"no summary":        func() route { r := full; r.summary = " "; return r }(),
		"no status":         func() route { r := full; r.status = 0; return r }(),
		"no answer":         func() route { r := full; r.resp = nil; return r }(),
		"any JSON answer":   full.out(http.StatusCreated, map[string]any{}),
		"no body":           full.in(nil),
		"unknown required":  full.in(api.CreateApplicationRequest{}, "nmae"),
		"no handler":        func() route { r := full; r.fn = nil; return r }(),
		"runtime unnamed":   rtOp(runtimeApp, http.MethodPost, "/v1/runtime/x", "", "X", (*Server).rtInit).out(http.StatusOK, api.Success{}).in(api.AccessToken{}),
		"body on bodiless":  mgmtOp(permAccount, http.MethodPost, "/v1/mgmt/auth/logout", "Log out", (*Server).logout).in(api.TokenRequest{}).out(http.StatusOK, api.Success{}),
		"page without page": {method: http.MethodGet, path: "/account/x", summary: "X", access: pageCall, status: http.StatusOK, contentType: "text/html"},
	} {
		if len(describe(broken)) == 0 {
			t.Errorf("%s: the route passes as fully described", name)
		}
	}
}
