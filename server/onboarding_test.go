package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"licensectl/server/api"
	"licensectl/server/servertest"
)

func TestOnboarding(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	org := s.NewOrg(t)
	member := s.Member(t, org, "viewer") // any role: it is the member's own state
	patch := func(tok string, body any) *servertest.Resp {
		return s.As(t, tok, "PATCH", "/v1/mgmt/onboarding/progress", body)
	}
	progress := func(r *servertest.Resp) api.OnboardingProgress {
		t.Helper()
		var p api.OnboardingProgress
		r.Want(t, http.StatusOK).JSON(t, &p)
		return p
	}

	t.Run("OKInitial", func(t *testing.T) {
		r := s.As(t, member, "GET", "/v1/mgmt/onboarding/progress", nil).Want(t, http.StatusOK)
		if got := strings.TrimSpace(string(r.Body)); got != `{"tour_status":"not_started","current_step":0,"completed_steps":[],"dismissed_features":[],"feature_progress":{},"completed_at":null}` {
			t.Fatalf("initial progress = %s", got)
		}
	})

	t.Run("OKFieldByField", func(t *testing.T) {
		p := progress(patch(member, map[string]any{"tour_status": "in_progress", "current_step": 3}))
		if p.TourStatus != "in_progress" || p.CurrentStep != 3 || p.CompletedAt != nil {
			t.Fatalf("progress = %+v", p)
		}
		// Lists append once, in order.
		for _, step := range []string{"create-app", "make-plan", "create-app", "first.license_1"} {
			p = progress(patch(member, map[string]any{"completed_step": step}))
		}
		if strings.Join(p.CompletedSteps, ",") != "create-app,make-plan,first.license_1" {
			t.Fatalf("completed_steps = %v", p.CompletedSteps)
		}
		for _, f := range []string{"webhooks", "webhooks", "audit"} {
			p = progress(patch(member, map[string]any{"dismissed_feature": f}))
		}
		if strings.Join(p.DismissedFeatures, ",") != "webhooks,audit" {
			t.Fatalf("dismissed_features = %v", p.DismissedFeatures)
		}
		// One feature entry at a time; setting it again replaces it.
		progress(patch(member, map[string]any{"feature_key": "billing", "feature_status": "in_progress"}))
		p = progress(patch(member, map[string]any{"feature_key": "billing", "feature_status": "completed"}))
		p = progress(patch(member, map[string]any{"feature_key": "tui", "feature_status": "dismissed"}))
		if len(p.FeatureProgress) != 2 || p.FeatureProgress["billing"] != "completed" || p.FeatureProgress["tui"] != "dismissed" {
			t.Fatalf("feature_progress = %v", p.FeatureProgress)
		}
		// completed_at: set on completion, kept on a repeated completion,
		// cleared when the tour leaves completed.
		done := s.Clock().Now()
		p = progress(patch(member, map[string]any{"tour_status": "completed"}))
		if p.CompletedAt == nil || !p.CompletedAt.Equal(done) {
			t.Fatalf("completed_at = %v, want %s", p.CompletedAt, done)
		}
		s.Clock().Advance(time.Hour)
		p = progress(patch(member, map[string]any{"tour_status": "completed"}))
		if !p.CompletedAt.Equal(done) {
			t.Fatalf("completed_at moved to %v on a repeated completion", p.CompletedAt)
		}
		p = progress(patch(member, map[string]any{"tour_status": "dismissed"}))
		if p.CompletedAt != nil {
			t.Fatalf("completed_at = %v after leaving completed", p.CompletedAt)
		}
		// An empty PATCH answers the whole progress, unchanged.
		if again := progress(patch(member, map[string]any{})); again.TourStatus != "dismissed" || len(again.CompletedSteps) != 3 {
			t.Fatalf("after an empty PATCH = %+v", again)
		}
		// The progress is the member's own.
		other := progress(s.As(t, s.OwnerToken(t, org), "GET", "/v1/mgmt/onboarding/progress", nil))
		if other.TourStatus != "not_started" || len(other.CompletedSteps) != 0 {
			t.Fatalf("the owner sees %+v", other)
		}
	})

	t.Run("ErrValidationFailed", func(t *testing.T) {
		fresh := s.Member(t, org, "developer")
		for _, tc := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"tour_status": "finished"}, "tour_status"},
			{map[string]any{"tour_status": 1}, "tour_status"},
			{map[string]any{"current_step": -1}, "current_step"},
			{map[string]any{"current_step": 101}, "current_step"},
			{map[string]any{"current_step": 1.5}, "current_step"},
			{map[string]any{"current_step": "2"}, "current_step"},
			{map[string]any{"completed_step": "Create App"}, "completed_step"},
			{map[string]any{"completed_step": strings.Repeat("a", 65)}, "completed_step"},
			{map[string]any{"completed_step": []string{"a"}}, "completed_step"},
			{map[string]any{"dismissed_feature": "-x"}, "dismissed_feature"},
			{map[string]any{"feature_key": "billing"}, "feature_status"},
			{map[string]any{"feature_status": "completed"}, "feature_key"},
			{map[string]any{"feature_key": "billing", "feature_status": "done"}, "feature_status"},
			{map[string]any{"feature_key": "Bad Key", "feature_status": "completed"}, "feature_key"},
			// Validation comes before any change: the valid tour_status is not applied.
			{map[string]any{"tour_status": "completed", "current_step": 500}, "current_step"},
		} {
			wantFieldError(t, patch(fresh, tc.body), tc.field)
		}
		if p := progress(s.As(t, fresh, "GET", "/v1/mgmt/onboarding/progress", nil)); p.TourStatus != "not_started" || p.CompletedAt != nil {
			t.Fatalf("refused PATCHes changed the progress: %+v", p)
		}
	})

	t.Run("OKUnverifiedMember", func(t *testing.T) {
		email := newAddress("onboarding")
		s.Do(t, "POST", "/v1/mgmt/auth/signup", signupBody(email)).Want(t, http.StatusOK)
		l := s.Do(t, "POST", "/v1/mgmt/auth/login", map[string]any{"email": email, "password": servertest.Password}).Want(t, http.StatusOK).Map(t)
		if l["email_verified"] != false {
			t.Fatalf("login = %v", l)
		}
		if p := progress(patch(l["access_token"].(string), map[string]any{"tour_status": "in_progress"})); p.TourStatus != "in_progress" {
			t.Fatalf("progress = %+v", p)
		}
	})

	t.Run("ErrForbidden", func(t *testing.T) {
		s.As(t, org.APIKey, "GET", "/v1/mgmt/onboarding/progress", nil).WantError(t, http.StatusForbidden, "forbidden")
		patch(org.APIKey, map[string]any{"tour_status": "completed"}).WantError(t, http.StatusForbidden, "forbidden")
		s.As(t, s.OperatorToken(), "GET", "/v1/mgmt/onboarding/progress", nil, "x-organization-id", org.ID).
			WantError(t, http.StatusForbidden, "forbidden")
	})
}
