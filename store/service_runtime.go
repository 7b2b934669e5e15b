package store

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"
)

// RuntimeStorage is what a storage gives the runtime's orchestration: the
// transactions of the runtime API's writes. Update runs fn in one write
// transaction, rolled back when fn returns an error (RuntimeService.update
// keeps what a refusal wrote). fn may run more than once (group commit, a
// retried deadlock) and keeps no state across runs.
type RuntimeStorage interface {
	Update(ctx context.Context, fn func(RuntimeTx) error) error
	// ReadLogin reads, outside any write, what a login checks before the
	// password (LoginCandidate). Returns invalid_application,
	// application_disabled.
	ReadLogin(ctx context.Context, c RuntimeClient, in RuntimeLoginInput) (LoginCandidate, error)
	// View is Storage.View: the runtime's reads that need no runtime
	// primitive (the runtime requests counted so far).
	View(ctx context.Context, fn func(Tx) error) error
}

// RuntimeTx is Tx with the runtime's reads: those of a client's
// application, and those by license key and fingerprint that a storage
// answers in one read.
type RuntimeTx interface {
	Tx
	SessionTx
	LeaseTx
	// ActiveApp resolves the client's application and environment.
	// Returns invalid_application, application_disabled.
	ActiveApp(c RuntimeClient) (*RuntimeApp, error)
	// LockLicenseByKey loads, held, the license of environment envID with
	// this key, and its plan (nil when the plan is gone). The license is
	// the caller's own copy; the plan may be shared and is only read.
	// Returns not_found.
	LockLicenseByKey(envID, key string) (*License, *Plan, error)
	// LockDeviceByFingerprint loads, held, the device of environment envID
	// with this fingerprint (nil when there is none) and reports whether it
	// is bound to the license.
	LockDeviceByFingerprint(envID, fingerprint, licenseID string) (*Device, bool, error)
	// ActAs makes the audit entries of the rest of the transaction name
	// this actor, keeping the request's address and user agent.
	ActAs(actorType, id string)
	// ConsumeNonce records r's nonce as used in ra's environment for the
	// replay window, or refuses the request (stale_timestamp,
	// nonce_reused) after writing the audit entry of the refusal, whose
	// target is of type kind.
	ConsumeNonce(ra *RuntimeApp, r Replay, kind string) error
	// SessionUser loads the end-user of the live login session of client c
	// (resolved as ra) whose access token this is. Returns
	// ErrEndUserToken when the token names none or its cascade fails.
	SessionUser(c RuntimeClient, ra *RuntimeApp, accessToken string) (*EndUser, error)
	// LicenseEntitlements returns the keys of l's current entitlements
	// (its plan's and its own), sorted.
	LicenseEntitlements(l *License) ([]string, error)
	// UserEntitlements returns the keys a login session of the end-user
	// on the device grants: the union of those of the user's usable
	// licenses of the environment, a license with floating seats only
	// while the device holds a live lease of it; sorted.
	UserEntitlements(envID, userID, deviceID string) ([]string, error)
	// InsertDevice writes a new device with its indexes; false when
	// another transaction wrote one with its fingerprint first.
	InsertDevice(d *Device) (bool, error)
	// BindDevice binds the device to l at Now, raising l.DevicesCount;
	// the caller writes l with PutLicense.
	BindDevice(l *License, deviceID string) error
	// BoundDevices loads the devices bound to a license, not held.
	BoundDevices(licenseID string) ([]*Device, error)
	// ListBoundDevices returns up to limit devices bound to the license,
	// newest device first, with the time each was bound.
	ListBoundDevices(envID, licenseID string, limit int) ([]LicenseDevice, error)
	// OpenSession writes a new session of ra about s, with seed's ids and
	// secret, and returns its tokens.
	OpenSession(ra *RuntimeApp, s SessionSubject, seed SessionSeed) (*RuntimeSession, error)

	// MarkSessionSeen writes at as the last-seen time of a session unless
	// the stored one is as late or later; nothing when the session is gone.
	MarkSessionSeen(sessionID string, at time.Time) error
	// AddUsage adds requests[i] to the stored count of the runtime
	// requests of organization orgs[i] (valid ids, in id order) in month
	// (MonthKey).
	AddUsage(month string, orgs []string, requests []int64) error
}

// ActivationPreparer is a RuntimeStorage that readies part of an
// activation outside its write transaction (bbolt signs the expected access
// token there, off its one writer). What it readies goes into seed and is
// used only if the transaction finds what was expected.
type ActivationPreparer interface {
	PrepareActivation(ctx context.Context, c RuntimeClient, in ActivateInput, seed *SessionSeed)
}

// SessionSeed is the randomness of a new session (and of the device the
// change may create), drawn before the transaction so that a rerun of it
// (group commit, a retried deadlock) issues the same tokens.
type SessionSeed struct {
	SessionID string
	DeviceID  string
	Secret    string
	JTI       string
	// Prepared is what an ActivationPreparer readied; only the storage
	// that set it reads it.
	Prepared any
}

// NewSessionSeed draws a session's randomness.
func NewSessionSeed() SessionSeed {
	return SessionSeed{SessionID: NewID(), DeviceID: NewID(), Secret: NewRefreshRandom(), JTI: NewID()}
}

// replayedApp starts a runtime write under anti-replay: it resolves the
// client's application, names the actor of the transaction's audit entries
// and spends the request's nonce, auditing a refusal with a target of type
// kind.
func replayedApp(t RuntimeTx, c RuntimeClient, rp Replay, actorType, actorID, kind string) (*RuntimeApp, error) {
	ra, err := t.ActiveApp(c)
	if err != nil {
		return nil, err
	}
	t.ActAs(actorType, actorID)
	if err := t.ConsumeNonce(ra, rp, kind); err != nil {
		return nil, err
	}
	return ra, nil
}

// RuntimeService is the orchestration of the runtime API's changes, over a
// RuntimeStorage; each storage's runtime embeds one. The hot paths a
// storage does faster on its own (validation and checks from a decode
// cache or in one statement) stay the storage's.
type RuntimeService struct {
	storage RuntimeStorage
	hasher  PasswordHasher
	dummy   *dummyPassword
	opts    RuntimeOptions
	seen    *seenTracker
}

// NewRuntimeService returns the runtime orchestration over storage, with
// the hasher end-user passwords are checked by (nil refuses logins) and the
// runtime's options o (the refresh token's lifetimes and grace).
func NewRuntimeService(storage RuntimeStorage, hasher PasswordHasher, o RuntimeOptions) RuntimeService {
	return RuntimeService{storage: storage, hasher: hasher, dummy: new(dummyPassword), opts: o, seen: &seenTracker{pending: map[string]seenEntry{}}}
}

// update runs fn in one write transaction of the storage. A *Error
// returned by fn is the request's answer but does not undo what fn wrote
// before it (a consumed nonce, the audit entry of a refused login, the
// revocation of a reused refresh token): the transaction commits and the
// error is handed back afterwards. Any other error rolls back.
func (rs RuntimeService) update(ctx context.Context, fn func(t RuntimeTx) error) error {
	var soft error
	err := rs.storage.Update(ctx, func(t RuntimeTx) error {
		soft = nil // fn may run again: only its last run answers
		err := fn(t)
		if err != nil && AsError(err) != nil {
			soft = err
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	return soft
}

// lockResetDevice loads, held, the device a reset names by fingerprint or by
// id, and reports whether it is bound to the license. A device of another
// license is reported unbound, so the caller answers not_found as for a
// device that does not exist: the id does not reveal other customers'
// machines.
func lockResetDevice(t RuntimeTx, envID, licenseID string, in DeviceResetInput) (*Device, bool, error) {
	if in.DeviceID == "" {
		return t.LockDeviceByFingerprint(envID, in.Fingerprint, licenseID)
	}
	d, err := t.LockDevice(envID, in.DeviceID)
	if ErrorCode(err) == ECodeNotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return d, slices.Contains(d.LicenseIDs, licenseID), nil
}

// ResetDevice unbinds the fingerprint's device from the license, revokes
// its sessions of that license and consumes one of the license's resets
// (License.CheckResetLeft, License.RecordReset); it returns the resets
// left. The license is held first, so that resets on every server never
// take the quota below zero (docs/design.md §12). Returns
// validation_failed, not_found, reset_limit_reached.
func (rs *RuntimeService) ResetDevice(ctx context.Context, c RuntimeClient, in DeviceResetInput) (int, error) {
	in, err := in.Check()
	if err != nil {
		return 0, err
	}
	remaining := 0
	err = rs.update(ctx, func(t RuntimeTx) error {
		ra, err := t.ActiveApp(c)
		if err != nil {
			return err
		}
		prevL, p, err := t.LockLicenseByKey(ra.Env.ID, in.LicenseKey)
		if err != nil {
			return err
		}
		if in.ByUser != "" && prevL.UserID != in.ByUser {
			return NotFound("license")
		}
		prevD, bound, err := lockResetDevice(t, ra.Env.ID, prevL.ID, in)
		if err != nil {
			return err
		}
		if prevD == nil || !bound {
			return NotFound("device")
		}
		if p == nil {
			p = new(Plan)
		}
		if err := prevL.CheckResetLeft(p, t.Now()); err != nil {
			return err
		}
		actor, by := ActorLicense, "runtime"
		if in.ByUser != "" {
			actor, by = ActorUser, "portal"
		}
		t.ActAs(actor, cmp.Or(in.ByUser, prevL.ID))
		l, d := *prevL, *prevD
		l.RecordReset(t.Now())
		n, err := unbind(t, prevL, &l, prevD, &d, RevokedDeviceReset)
		if err != nil {
			return err
		}
		remaining, _ = l.ResetsRemaining(p, t.Now())
		return t.Audit(AuditEvent{Event: EventLicenseDeviceReset, OrgID: ra.App.OrgID, AppID: ra.App.ID, EnvIDs: []string{ra.Env.ID},
			Target: Target{Type: "license", ID: l.ID}, Metadata: map[string]any{"device_id": d.ID, "device_resets_remaining": remaining, "by": by, "sessions_revoked": n}})
	})
	return remaining, err
}

// LicenseDevices lists the devices bound to the license of in's key, so that
// a customer on a new machine can pick the old one to reset
// (docs/design.md §17). It is anti-replay protected like an activation: the
// nonce is consumed first, so a request refused later still spends it. The
// license is refused only when it is unknown, as the reset it leads to
// refuses it. Returns validation_failed, stale_timestamp, nonce_reused,
// not_found.
func (rs *RuntimeService) LicenseDevices(ctx context.Context, c RuntimeClient, in LicenseDevicesInput) ([]SelfServiceDevice, error) {
	in, err := in.Check()
	if err != nil {
		return nil, err
	}
	var out []SelfServiceDevice
	err = rs.update(ctx, func(t RuntimeTx) error {
		out = nil
		ra, err := replayedApp(t, c, in.Replay, ActorLicense, "", "license")
		if err != nil {
			return err
		}
		l, _, err := t.LockLicenseByKey(ra.Env.ID, in.LicenseKey)
		if err != nil {
			return err
		}
		bound, err := t.ListBoundDevices(ra.Env.ID, l.ID, MaxSelfServiceDevices)
		if err != nil {
			return err
		}
		out = make([]SelfServiceDevice, 0, len(bound))
		for _, d := range bound {
			out = append(out, SelfServiceDevice{ID: d.ID, Name: d.Name, Platform: d.Platform, LastSeenAt: d.LastSeenAt, BoundAt: d.BoundAt,
				Current: in.Fingerprint != "" && d.Fingerprint == in.Fingerprint})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// seenEntry is a device (and the session it was seen through) waiting for
// its last_seen_at to be written.
type seenEntry struct {
	envID     string
	sessionID string
	at        time.Time
}

// seenTracker collects last-seen times in memory so that validation never
// writes: FlushSeen writes them in one transaction. It is this process's
// own: what it holds is only ever later than what the store says, so
// buffering it changes no answer (docs/design.md §12).
type seenTracker struct {
	mu      sync.Mutex
	pending map[string]seenEntry // device id →
}

// NoteSeen queues the last-seen time of a device a valid session was used
// on (its session sessionID) when its stored last_seen_at is older than
// RuntimeOptions.SeenInterval. The common case (recently seen) takes no
// lock.
func (rs *RuntimeService) NoteSeen(d *Device, sessionID string, now time.Time) {
	if d.LastSeenAt != nil && now.Sub(*d.LastSeenAt) < rs.opts.SeenInterval {
		return
	}
	rs.seen.mu.Lock()
	rs.seen.pending[d.ID] = seenEntry{envID: d.EnvID, sessionID: sessionID, at: now}
	rs.seen.mu.Unlock()
}

// FlushSeen implements RuntimeBackend: it writes the last-seen times
// queued by NoteSeen, of devices and their sessions, in one transaction,
// and reports how many devices it updated. A time never goes back: one
// written meanwhile by another server, later, stays. Every server flushes
// its own queue, so no pass lock is taken.
func (rs *RuntimeService) FlushSeen(ctx context.Context) (int, error) {
	rs.seen.mu.Lock()
	batch := rs.seen.pending
	rs.seen.pending = map[string]seenEntry{}
	rs.seen.mu.Unlock()
	if len(batch) == 0 {
		return 0, nil
	}
	// Rows are locked in id order, so that two servers flushing the same
	// devices wait for each other instead of deadlocking.
	ids := make([]string, 0, len(batch))
	for id := range batch {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	err := rs.storage.Update(ctx, func(t RuntimeTx) error {
		for _, id := range ids {
			e := batch[id]
			prev, err := t.LockDevice(e.envID, id)
			if ErrorCode(err) == ECodeNotFound {
				continue // deleted since
			}
			if err != nil {
				return err
			}
			if prev.LastSeenAt == nil || prev.LastSeenAt.Before(e.at) {
				d, at := *prev, e.at
				d.LastSeenAt = &at
				if err := t.PutDevice(prev, &d); err != nil {
					return err
				}
			}
			if err := t.MarkSessionSeen(e.sessionID, e.at); err != nil {
				return err
			}
		}
		return nil
	})
	return len(batch), err
}

// AddRuntimeRequests implements Runtime: one transaction adds this
// process's counts to the month's, so that on a shared store the month's
// usage is the sum over servers. Counts of no organization (an invalid
// id) or of nothing are dropped.
func (rs *RuntimeService) AddRuntimeRequests(ctx context.Context, at time.Time, counts map[string]int64) error {
	orgs := make([]string, 0, len(counts))
	for org, n := range counts {
		if ValidID(org) && n > 0 {
			orgs = append(orgs, org)
		}
	}
	if len(orgs) == 0 {
		return nil
	}
	// In id order: two servers adding to the same organizations lock their
	// rows in one order.
	slices.Sort(orgs)
	ns := make([]int64, len(orgs))
	for i, org := range orgs {
		ns[i] = counts[org]
	}
	return rs.storage.Update(ctx, func(t RuntimeTx) error { return t.AddUsage(MonthKey(at), orgs, ns) })
}
