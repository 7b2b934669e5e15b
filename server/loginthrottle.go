package server

import (
	"context"
	"log/slog"
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
//
// Both counts live in the store, shared by every server of it, so that a
// guesser spreading attempts over the servers behind a balancer gets no more
// of them (docs/design.md §12, "Shared counters").
type loginThrottle struct {
	pair       *sharedLimiter // key account|address key (IPv6: its /64)
	global     *sharedLimiter // key account
	challenges challengeVerifier
	logger     *slog.Logger
}

// challengeVerifier accepts each solved anti-bot challenge once
// (*antibot.Challenger).
type challengeVerifier interface {
	Verify(ctx context.Context, encoded string) error
}

// globalLoginWindow is the window of the per-account bound.
const globalLoginWindow = time.Hour

// newLoginThrottle returns nil when rate limits or login limits are off.
// kind names the logins it counts ("dashboard", "runtime"), so that the two
// keep apart in the store. challenges checks the altcha field once the
// per-account bound trips.
func newLoginThrottle(rl config.RateLimit, counters store.Counters, kind string, challenges challengeVerifier, logger *slog.Logger) *loginThrottle {
	if !rl.Enabled || rl.LoginFailures <= 0 {
		return nil
	}
	t := &loginThrottle{pair: newSharedLimiter(counters, "login:"+kind+":pair", rl.LoginFailures, rl.Window), challenges: challenges, logger: logger}
	if rl.LoginFailuresGlobal > 0 {
		t.global = newSharedLimiter(counters, "login:"+kind+":account", rl.LoginFailuresGlobal, globalLoginWindow)
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
	if st, err := t.pair.Allow(ctx, pair); err != nil {
		return err
	} else if !st.ok {
		return rateLimited(st, loginLimitMsg)
	}
	if t.global == nil {
		return nil
	}
	st, err := t.global.Allow(ctx, account)
	if err != nil {
		t.undo(ctx, t.pair, pair)
		return err
	}
	if st.ok {
		return nil
	}
	if altcha == "" {
		t.undo(ctx, t.pair, pair)
		return &store.Error{Code: store.ECodeChallenge, Message: loginChallengeMsg, RetryAfter: st.retryAfter()}
	}
	if err := verifyAltcha(ctx, t.challenges, altcha); err != nil {
		t.undo(ctx, t.pair, pair)
		return err
	}
	// Counted past the bound: a success takes one back, and that must
	// leave the bound tripped for the rest of its hour.
	return t.global.Force(ctx, account)
}

// undo takes back an attempt of key. A failure is logged and otherwise
// left: the attempt stays counted, which errs on the guarded side.
func (t *loginThrottle) undo(ctx context.Context, l *sharedLimiter, key string) {
	if err := l.Undo(ctx, key); err != nil {
		t.logger.Error("login throttle: take back an attempt", "err", err)
	}
}

// notJudged gives back an attempt in which no password was judged (a busy
// hasher, a replayed nonce, bad input).
func (t *loginThrottle) notJudged(ctx context.Context, account, addr string) {
	if t == nil {
		return
	}
	t.undo(ctx, t.pair, account+"|"+addr)
	if t.global != nil {
		t.undo(ctx, t.global, account)
	}
}

// succeeded resets the pair and gives the attempt back to the global count,
// which counts failures only.
func (t *loginThrottle) succeeded(ctx context.Context, account, addr string) {
	if t == nil {
		return
	}
	if err := t.pair.Reset(ctx, account+"|"+addr); err != nil {
		t.logger.Error("login throttle: clear the failures of a signed-in pair", "err", err)
	}
	if t.global != nil {
		t.undo(ctx, t.global, account)
	}
}
