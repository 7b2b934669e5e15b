package store

import (
	"slices"
	"strings"
	"time"
)

// StatusRule is the one template of the status machines of docs/design.md §6:
// the statuses a PATCH may set, each with its audit event; the statuses a
// list may filter by; the final statuses, which never change again; and the
// statuses from which the usable status may be restored. Moving away from
// the usable status revokes the object's sessions.
type StatusRule struct {
	kind      string
	usable    string
	events    map[string]string // settable status → audit event
	settable  []string          // in the order messages name them
	listed    []string
	final     []string
	reinstate []string // nil: the usable status may be restored from any
}

// StatusChange is what setting a status does. Event is "" when the object
// already has the status: nothing is written and nothing is audited.
type StatusChange struct {
	From, To string
	Event    string
	Revoke   bool // the object's sessions must be revoked
}

// The status machines. Licenses: revoked and banned are final, and only a
// suspended license can be reinstated. End-users and devices may always go
// back to active.
var (
	LicenseStatus = &StatusRule{
		kind: "license", usable: LicenseActive,
		events: map[string]string{
			LicenseActive: EventLicenseReinstated, LicenseSuspended: EventLicenseSuspended,
			LicenseRevoked: EventLicenseRevoked, LicenseBanned: EventLicenseBanned,
		},
		settable:  []string{LicenseActive, LicenseSuspended, LicenseRevoked, LicenseBanned},
		listed:    []string{LicenseInactive, LicenseActive, LicenseExpired, LicenseSuspended, LicenseRevoked, LicenseBanned},
		final:     []string{LicenseRevoked, LicenseBanned},
		reinstate: []string{LicenseSuspended},
	}
	UserStatus = &StatusRule{
		kind: "user", usable: UserActive,
		events:   map[string]string{UserActive: EventUserReinstated, UserBanned: EventUserBanned, UserDisabled: EventUserDisabled},
		settable: []string{UserActive, UserBanned, UserDisabled},
		listed:   []string{UserActive, UserBanned, UserDisabled},
	}
	DeviceStatus = &StatusRule{
		kind: "device", usable: DeviceActive,
		events:   map[string]string{DeviceActive: EventDeviceUnblocked, DeviceBlocked: EventDeviceBlocked},
		settable: []string{DeviceActive, DeviceBlocked},
		listed:   []string{DeviceActive, DeviceBlocked},
	}
	AppStatus = &StatusRule{
		kind: "application", usable: AppActive,
		events:   map[string]string{AppActive: EventApplicationEnabled, AppDisabled: EventApplicationDisabled},
		settable: []string{AppActive, AppDisabled},
		listed:   []string{AppActive, AppDisabled},
	}
)

// oneOf names a set of statuses for a message.
func oneOf(list []string) string {
	if len(list) == 2 {
		return list[0] + " or " + list[1]
	}
	return "one of " + strings.Join(list, ", ")
}

// Listed returns the statuses a list may filter by.
func (r *StatusRule) Listed() []string { return slices.Clone(r.listed) }

// Check returns validation_failed unless a PATCH may set to. It needs no
// record, so callers check before they open a transaction.
func (r *StatusRule) Check(to string) error {
	if _, ok := r.events[to]; !ok {
		return Invalid("status", "status must be %s", oneOf(r.settable))
	}
	return nil
}

// CheckFilter returns validation_failed unless status is "" or a status a
// list may filter by.
func (r *StatusRule) CheckFilter(status string) error {
	if status != "" && !slices.Contains(r.listed, status) {
		return Invalid("status", "status must be %s", oneOf(r.listed))
	}
	return nil
}

// Transition decides setting to on an object whose stored status is stored
// and whose status as callers see it is effective (they differ for an
// expired license). Returns validation_failed, invalid_transition.
func (r *StatusRule) Transition(stored, effective, to string) (StatusChange, error) {
	if err := r.Check(to); err != nil {
		return StatusChange{}, err
	}
	c := StatusChange{From: effective, To: to}
	if effective == to {
		return c, nil
	}
	switch {
	case slices.Contains(r.final, stored):
		return StatusChange{}, Errorf(ECodeTransition, "a %s %s cannot change status", stored, r.kind)
	case to == r.usable && r.reinstate != nil && !slices.Contains(r.reinstate, stored):
		return StatusChange{}, Errorf(ECodeTransition, "only a %s %s can be reinstated; this one is %s", strings.Join(r.reinstate, " or "), r.kind, effective)
	}
	c.Event, c.Revoke = r.events[to], to != r.usable
	return c, nil
}

// SetStatus moves l to status to at now. Reinstating a license that was
// never activated makes it inactive again, so that "inactive" keeps meaning
// "never activated". Returns validation_failed, invalid_transition.
func (l *License) SetStatus(to string, now time.Time) (StatusChange, error) {
	c, err := LicenseStatus.Transition(l.Status, l.EffectiveStatus(now), to)
	if err != nil || c.Event == "" {
		return c, err
	}
	if to == LicenseActive && l.ActivatedAt == nil {
		c.To = LicenseInactive
	}
	l.Status, l.UpdatedAt = c.To, now
	return c, nil
}

// SetStatus moves u to status to at now. Returns validation_failed.
func (u *EndUser) SetStatus(to string, now time.Time) (StatusChange, error) {
	c, err := UserStatus.Transition(u.Status, u.Status, to)
	if err != nil || c.Event == "" {
		return c, err
	}
	u.Status, u.UpdatedAt = to, now
	return c, nil
}

// SetStatus moves d to status to. Returns validation_failed.
func (d *Device) SetStatus(to string) (StatusChange, error) {
	c, err := DeviceStatus.Transition(d.Status, d.Status, to)
	if err != nil || c.Event == "" {
		return c, err
	}
	d.Status = to
	return c, nil
}
