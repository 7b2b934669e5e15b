package server

import (
	"time"

	"licensectl/config"
	"licensectl/store"
)

// loginThrottle counts failed logins as design §7 says: per (account,
// client address), so that someone who knows an address cannot lock its
// owner out from where the owner logs in, and per account across all
// addresses with a higher hourly bound that only a distributed attack
// reaches. Dashboard and runtime logins each have one.
//
// Every attempt is counted before the password is checked and taken back
// when it did not fail, so parallel guesses cannot slip past the limit
// while their hashes run.
type loginThrottle struct {
	pair   *limiter
	global *limiter // nil when ratelimit.login_failures_global is 0
}

// loginGlobalWindow is the window of the account-wide bound.
const loginGlobalWindow = time.Hour

// newLoginThrottle returns nil when login throttling is off.
func newLoginThrottle(rl config.RateLimit, now store.Clock) *loginThrottle {
	if !rl.Enabled || rl.LoginFailures <= 0 {
		return nil
	}
	t := &loginThrottle{pair: newLimiter(rl.LoginFailures, rl.Window, now)}
	if rl.LoginFailuresGlobal > 0 {
		t.global = newLimiter(rl.LoginFailuresGlobal, loginGlobalWindow, now)
	}
	return t
}

// loginAttempt is one counted attempt; its end says how it went.
type loginAttempt struct {
	t             *loginThrottle
	account, pair string
}

// begin counts an attempt on account from ip, or refuses it with
// rate_limited when the pair or the account is over its bound. A nil
// throttle allows everything.
func (t *loginThrottle) begin(account, ip string) (loginAttempt, error) {
	if t == nil {
		return loginAttempt{}, nil
	}
	a := loginAttempt{t: t, account: account, pair: account + "\x00" + ip}
	if st := t.pair.Allow(a.pair); !st.ok {
		return loginAttempt{}, rateLimited(st, "too many failed logins for this account; retry later")
	}
	if t.global != nil {
		if st := t.global.Allow(account); !st.ok {
			t.pair.Undo(a.pair)
			return loginAttempt{}, rateLimited(st, "too many failed logins for this account; retry later")
		}
	}
	return a, nil
}

// end settles the attempt: a success clears the pair's failures, an error
// that judged no password (busy hasher, replay, bad input) is not a
// failure, anything else stays counted.
func (a loginAttempt) end(err error, judged bool) {
	if a.t == nil {
		return
	}
	switch {
	case err == nil:
		a.t.pair.Reset(a.pair)
		a.undoGlobal()
	case !judged:
		a.t.pair.Undo(a.pair)
		a.undoGlobal()
	}
}

func (a loginAttempt) undoGlobal() {
	if a.t.global != nil {
		a.t.global.Undo(a.account)
	}
}

// limiters names the throttle's limiters for the metrics under prefix.
func (t *loginThrottle) limiters(out map[string]*limiter, pair, global string) {
	if t == nil {
		return
	}
	out[pair], out[global] = t.pair, t.global
}
