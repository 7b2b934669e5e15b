package server

import (
	"context"
	"time"

	"licensectl/config"
	"licensectl/store"
)

// loginThrottle counts failed logins as docs/design.md §7 says: per (account,
// client address), so the rightful owner is never locked out from where they
// always log in by someone guessing elsewhere, and per account across all
// addresses with a higher hourly bound that only a distributed attack
// reaches. Past that bound the account's logins need a solved challenge
// instead of being refused, so the attacker pays per guess and the owner
// still gets in. Every attempt is counted before the password is checked,
// so parallel guesses cannot slip past the limit while their hashes run; a
// success gives the attempt back and resets the pair.
type loginThrottle struct {
	pair       *limiter // key account|address key (IPv6: its /64)
	global     *limiter // key account
	challenges challengeVerifier
}

// challengeVerifier accepts each solved anti-bot challenge once
// (*antibot.Challenger).
type challengeVerifier interface {
	Verify(ctx context.Context, encoded string) error
}

// globalLoginWindow is the window of the per-account bound.
const globalLoginWindow = time.Hour

// newLoginThrottle returns nil when rate limits or login limits are off.
// challenges checks the altcha field once the per-account bound trips.
func newLoginThrottle(rl config.RateLimit, now store.Clock, challenges challengeVerifier) *loginThrottle {
	if !rl.Enabled || rl.LoginFailures <= 0 {
		return nil
	}
	t := &loginThrottle{pair: newLimiter(rl.LoginFailures, rl.Window, now), challenges: challenges}
	if rl.LoginFailuresGlobal > 0 {
		t.global = newLimiter(rl.LoginFailuresGlobal, globalLoginWindow, now)
	}
	return t
}

const (
	loginLimitMsg     = "too many failed logins for this account; retry later"
	loginChallengeMsg = "too many failed logins for this account: solve the challenge of GET /v1/mgmt/auth/challenge and send it as altcha"
)

// attempt counts one login of account from the client address key addr, or
// refuses it: rate_limited when the pair has failed too often;
// challenge_required (with the bound's reset as Retry-After) when the
// account-wide bound has tripped and altcha is empty; validation_failed on
// field altcha when the solution is malformed, wrong, expired or spent. A
// nil throttle allows everything.
func (t *loginThrottle) attempt(ctx context.Context, account, addr, altcha string) error {
	if t == nil {
		return nil
	}
	pair := account + "|" + addr
	if st := t.pair.Allow(pair); !st.ok {
		return rateLimited(st, loginLimitMsg)
	}
	if t.global == nil {
		return nil
	}
	st := t.global.Allow(account)
	if st.ok {
		return nil
	}
	if altcha == "" {
		t.pair.Undo(pair)
		return &store.Error{Code: store.ECodeChallenge, Message: loginChallengeMsg, RetryAfter: st.retryAfter()}
	}
	if err := verifyAltcha(ctx, t.challenges, altcha); err != nil {
		t.pair.Undo(pair)
		return err
	}
	// Counted past the bound: a success takes one back, and that must
	// leave the bound tripped for the rest of its hour.
	t.global.Force(account)
	return nil
}

// notJudged gives back an attempt in which no password was judged (a busy
// hasher, a replayed nonce, bad input).
func (t *loginThrottle) notJudged(account, addr string) {
	if t == nil {
		return
	}
	t.pair.Undo(account + "|" + addr)
	if t.global != nil {
		t.global.Undo(account)
	}
}

// succeeded resets the pair and gives the attempt back to the global count,
// which counts failures only.
func (t *loginThrottle) succeeded(account, addr string) {
	if t == nil {
		return
	}
	t.pair.Reset(account + "|" + addr)
	if t.global != nil {
		t.global.Undo(account)
	}
}
