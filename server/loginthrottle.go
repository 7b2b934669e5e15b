package server

import (
	"time"

	"licensectl/config"
	"licensectl/store"
)

// loginThrottle counts failed logins as design §7 says: per (account,
// client address), so the rightful owner is never locked out from where they
// always log in by someone guessing elsewhere, and per account across all
// addresses with a higher hourly bound that only a distributed attack
// reaches. Every attempt is counted before the password is checked, so
// parallel guesses cannot slip past the limit while their hashes run; a
// success gives the attempt back and resets the pair.
type loginThrottle struct {
	pair   *limiter // key account|ip
	global *limiter // key account
}

// globalLoginWindow is the window of the per-account bound.
const globalLoginWindow = time.Hour

// newLoginThrottle returns nil when rate limits or login limits are off.
func newLoginThrottle(rl config.RateLimit, now store.Clock) *loginThrottle {
	if !rl.Enabled || rl.LoginFailures <= 0 {
		return nil
	}
	t := &loginThrottle{pair: newLimiter(rl.LoginFailures, rl.Window, now)}
	if rl.LoginFailuresGlobal > 0 {
		t.global = newLimiter(rl.LoginFailuresGlobal, globalLoginWindow, now)
	}
	return t
}

const loginLimitMsg = "too many failed logins for this account; retry later"

// attempt counts one login of account from ip, or refuses it with
// rate_limited. A nil throttle allows everything.
func (t *loginThrottle) attempt(account, ip string) error {
	if t == nil {
		return nil
	}
	if st := t.pair.Allow(account + "|" + ip); !st.ok {
		return rateLimited(st, loginLimitMsg)
	}
	if t.global != nil {
		if st := t.global.Allow(account); !st.ok {
			t.pair.Undo(account + "|" + ip)
			return rateLimited(st, loginLimitMsg)
		}
	}
	return nil
}

// notJudged gives back an attempt in which no password was judged (a busy
// hasher, a replayed nonce, bad input).
func (t *loginThrottle) notJudged(account, ip string) {
	if t == nil {
		return
	}
	t.pair.Undo(account + "|" + ip)
	if t.global != nil {
		t.global.Undo(account)
	}
}

// succeeded resets the pair and gives the attempt back to the global count,
// which counts failures only.
func (t *loginThrottle) succeeded(account, ip string) {
	if t == nil {
		return
	}
	t.pair.Reset(account + "|" + ip)
	if t.global != nil {
		t.global.Undo(account)
	}
}
