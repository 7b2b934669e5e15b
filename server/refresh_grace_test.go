package server_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"licensectl/config"
)

func (f *rtFix) refresh(t *testing.T, tok string) *session {
	t.Helper()
	r := f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": tok})
	if r.Status != http.StatusOK {
		return nil
	}
	var n session
	r.JSON(t, &n)
	return &n
}

// TestRefreshGrace (design §5): the token retired by a session's last
// rotation, presented within runtime.refresh_reuse_grace, is 409
// refresh_token_rotated and revokes nothing; older retired tokens, or that
// one after the grace, are reuse and revoke the session.
func TestRefreshGrace(t *testing.T) {
	f := newRT(t)
	key := f.license(t, planOpts{maxDevices: 5})

	t.Run("ErrRefreshTokenRotated", func(t *testing.T) {
		s0 := f.activate(t, key, "grace-1")
		s1 := f.refresh(t, s0.RefreshToken)
		f.s.Clock().Advance(9 * time.Second)
		f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": s0.RefreshToken}).WantError(t, http.StatusConflict, "refresh_token_rotated")
		f.wantValid(t, s1.AccessToken)
		s2 := f.refresh(t, s1.RefreshToken)
		if s2 == nil {
			t.Fatal("the current refresh token was refused after a rotated one came back")
		}
		// s0 is now two rotations old: reuse.
		f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": s0.RefreshToken}).WantError(t, http.StatusUnauthorized, "refresh_token_reused")
		f.wantReason(t, s2.AccessToken, "session_revoked")
	})

	t.Run("ErrRefreshTokenReusedAfterGrace", func(t *testing.T) {
		s0 := f.activate(t, key, "grace-2")
		s1 := f.refresh(t, s0.RefreshToken)
		f.s.Clock().Advance(10 * time.Second)
		f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": s0.RefreshToken}).WantError(t, http.StatusUnauthorized, "refresh_token_reused")
		f.wantReason(t, s1.AccessToken, "session_revoked")
	})

	t.Run("OKParallel", func(t *testing.T) {
		// Two threads of one client refresh the same token at once: one
		// gets the new pair, the other 409, and the client stays signed in.
		for i := range 5 {
			s0 := f.activate(t, key, "grace-par")
			var wg sync.WaitGroup
			got := make([]*session, 2)
			for j := range got {
				wg.Go(func() { got[j] = f.refresh(t, s0.RefreshToken) })
			}
			wg.Wait()
			var winner *session
			for _, g := range got {
				if g != nil {
					if winner != nil {
						t.Fatalf("round %d: both parallel refreshes succeeded", i)
					}
					winner = g
				}
			}
			if winner == nil {
				t.Fatalf("round %d: no parallel refresh succeeded", i)
			}
			f.wantValid(t, winner.AccessToken)
		}
	})
}

func TestRefreshGraceOff(t *testing.T) {
	f := newRT(t, func(c *config.Config) { c.Runtime.RefreshReuseGrace = 0 })
	s0 := f.activate(t, f.license(t, planOpts{}), "nograce")
	s1 := f.refresh(t, s0.RefreshToken)
	f.do(t, "POST", "/sessions/refresh", map[string]any{"refresh_token": s0.RefreshToken}).WantError(t, http.StatusUnauthorized, "refresh_token_reused")
	f.wantReason(t, s1.AccessToken, "session_revoked")
}
