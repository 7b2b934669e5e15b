package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"licensectl/server/mail"
	"licensectl/store"
)

// portalLicense is a licence as the portal lists it: the key masked but
// for its last group, which is enough for a customer to tell two apart and
// not enough to use one seen over a shoulder.
type portalLicense struct {
	ID, Key, Status, Plan, Expires, Maintenance string
	Devices                                     []portalDevice
}

// portalDevice is a bound device as the portal shows it: never its
// fingerprint, which identifies the machine.
type portalDevice struct {
	ID, LicenseID, Name, Platform, LastSeen string
}

// portalMaxItems is how many licences, and devices of each, the list shows:
// one page of the management API's largest.
const portalMaxItems = store.MaxPerPage

// portalHome is the portal's first page: the sign-in forms, or once signed
// in the customer's licences and their devices.
func (s *Server) portalHome(_ http.ResponseWriter, r *http.Request, p *portal) (int, string, portalPage) {
	if p.user == nil {
		return http.StatusOK, "signin", portalPage{Title: "Sign in"}
	}
	sc := p.storeScope()
	page, err := s.db.ListLicenses(r.Context(), sc, store.LicenseFilter{UserID: p.user.ID, PageRequest: store.PageRequest{PerPage: portalMaxItems}})
	if err != nil {
		return s.portalFailed(r, err)
	}
	now := s.now()
	out := make([]portalLicense, 0, len(page.Data))
	for _, l := range page.Data {
		devs, err := s.db.ListDevices(r.Context(), sc, store.StatusFilter{LicenseID: l.ID, PageRequest: store.PageRequest{PerPage: portalMaxItems}})
		if err != nil {
			return s.portalFailed(r, err)
		}
		pl := portalLicenseOf(l, now)
		for _, d := range devs.Data {
			pl.Devices = append(pl.Devices, portalDeviceOf(d, l.ID))
		}
		out = append(out, pl)
	}
	return http.StatusOK, "licenses", portalPage{Title: "Your licences", Licenses: out}
}

func portalLicenseOf(l *store.LicenseItem, now time.Time) portalLicense {
	groups := strings.Split(l.Key, "-")
	for i := range len(groups) - 1 {
		groups[i] = "•••••"
	}
	return portalLicense{ID: l.ID, Key: strings.Join(groups, "-"), Status: l.EffectiveStatus(now), Plan: l.PlanName,
		Expires: portalDate(l.ExpiresAt, "never"), Maintenance: portalDate(l.MaintenanceExpiresAt, "no end")}
}

func portalDeviceOf(d *store.Device, licenseID string) portalDevice {
	name, platform := d.Name, d.Platform
	if name == "" {
		name = "Unnamed device"
	}
	if platform == "" {
		platform = "unknown platform"
	}
	return portalDevice{ID: d.ID, LicenseID: licenseID, Name: name, Platform: platform, LastSeen: portalDate(d.LastSeenAt, "never")}
}

// portalDate shows t in UTC to the minute, or none when it is unset.
func portalDate(t *time.Time, none string) string {
	if t == nil {
		return none
	}
	return t.UTC().Format("2 Jan 2006 15:04 UTC")
}

// storeScope is the management scope of the portal's environment.
func (p *portal) storeScope() store.Scope {
	return store.Scope{OrgID: p.ra.App.OrgID, AppID: p.ra.App.ID, Env: p.ra.Env.Name}
}

// home is the address of the portal's first page.
func (p *portal) home() string { return portalBase(p.ra) }

// portalSignIn checks the address and password under the runtime login's
// throttle and opens a session.
func (s *Server) portalSignIn(w http.ResponseWriter, r *http.Request, p *portal) (int, string, portalPage) {
	email, password := r.PostFormValue("email"), r.PostFormValue("password")
	var sess *store.PortalSession
	err := s.runtimeLogin(r, p.ra.Env.ID, email, r.PostFormValue("altcha"), func() (err error) {
		sess, err = s.db.PortalPasswordSignIn(r.Context(), p.scope, email, password)
		return err
	})
	refused := func(status int, msg string) (int, string, portalPage) {
		return status, "signin", portalPage{Title: "Sign in", Tone: "bad", Message: msg}
	}
	e := store.AsError(err)
	if e != nil && e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	switch store.ErrorCode(err) {
	case "":
		return s.startPortalSession(w, r, p, sess)
	case store.ECodeInvalidCreds:
		return refused(http.StatusUnauthorized, "The e-mail address or the password is wrong.")
	case store.ECodeValidation:
		if e.Field == "altcha" {
			status, name, pg := refused(http.StatusBadRequest, "The puzzle's answer was not accepted. Try again.")
			pg.Challenge = true
			return status, name, pg
		}
		return refused(http.StatusBadRequest, "Enter the e-mail address and the password of your account.")
	case store.ECodeRateLimited:
		if e.Message != loginLimitMsg { // the hasher's queue, not this account
			return refused(http.StatusTooManyRequests, "The server is busy. Try again in a moment.")
		}
		return refused(http.StatusTooManyRequests, "Too many failed sign-ins for this account from your address. Try again "+
			inWords(time.Duration(e.RetryAfter)*time.Second)+", or sign in with a link by mail.")
	case store.ECodeChallenge:
		status, name, pg := refused(http.StatusForbidden, "This account had many failed sign-ins. Sign in again: your browser first solves a short puzzle.")
		pg.Challenge = true
		return status, name, pg
	case store.ECodeForbidden:
		return http.StatusForbidden, "message", portalPage{Title: "Sign in", Tone: "bad",
			Message: "This account cannot sign in: " + e.Message + ". Ask the vendor's support why."}
	}
	return s.portalFailed(r, err)
}

// startPortalSession hands the browser the session's cookie and sends it
// to the licences.
func (s *Server) startPortalSession(w http.ResponseWriter, r *http.Request, p *portal, sess *store.PortalSession) (int, string, portalPage) {
	http.SetCookie(w, portalCookie(r, portalSessionCookie, sess.Token, int(store.PortalSessionTTL/time.Second)))
	return http.StatusSeeOther, "", portalPage{Location: p.home()}
}

// portalSendLink mails a one-time sign-in link, with the same answer
// whether or not the address has an account.
func (s *Server) portalSendLink(_ http.ResponseWriter, r *http.Request, p *portal) (int, string, portalPage) {
	ra := p.ra
	err := s.queueTokenMail(r, r.PostFormValue("email"), store.TokenPortalSignIn, func(ctx context.Context, addr string) (string, string, error) {
		u, token, err := s.db.PortalIssueLink(ctx, p.scope, addr)
		if err != nil {
			return "", "", err
		}
		return u.Email, token, nil
	}, func(to, token string) mail.Message { return s.portalLinkMail(ra, to, token) })
	if store.ErrorCode(err) == store.ECodeValidation {
		return http.StatusBadRequest, "signin", portalPage{Title: "Sign in", Tone: "bad", Message: "That is not a valid e-mail address."}
	}
	if err != nil {
		return s.portalFailed(r, err)
	}
	return http.StatusOK, "message", portalPage{Title: "Check your mail", Tone: "ok",
		Message: "If the address has an account here, we sent it a sign-in link. It works once, for 15 minutes."}
}

func (s *Server) portalLinkMail(ra *store.RuntimeApp, to, token string) mail.Message {
	link := s.publicURL() + portalBase(ra) + "/link?token=" + url.QueryEscape(token)
	return mail.Message{To: to, Subject: "Sign in to " + ra.App.Name, Text: fmt.Sprintf(`Someone, perhaps you, asked to sign in to the customer portal of %s.

Open this link to sign in:

%s

The link works once and expires in 15 minutes. If you did not ask for it,
ignore this message: nobody can sign in without it.
`, ra.App.Name, link)}
}

// portalLinkPage shows the button that spends a mailed link; opening the
// link spends nothing (mail scanners open links before people do).
func (s *Server) portalLinkPage(_ http.ResponseWriter, r *http.Request, p *portal) (int, string, portalPage) {
	tok := strings.TrimSpace(r.URL.Query().Get("token"))
	state, err := s.db.PortalLinkState(r.Context(), tok)
	if err != nil {
		return s.portalFailed(r, err)
	}
	if state != store.TokenStateValid {
		return portalLinkRefused(state)
	}
	return http.StatusOK, "link", portalPage{Title: "Sign in", Token: tok}
}

// portalUseLink spends a mailed link and opens a session.
func (s *Server) portalUseLink(w http.ResponseWriter, r *http.Request, p *portal) (int, string, portalPage) {
	tok := strings.TrimSpace(r.PostFormValue("token"))
	sess, err := s.db.PortalLinkSignIn(r.Context(), p.scope, tok)
	switch store.ErrorCode(err) {
	case "":
		return s.startPortalSession(w, r, p, sess)
	case store.ECodeInvalidToken:
		state, err := s.db.PortalLinkState(r.Context(), tok)
		if err != nil {
			return s.portalFailed(r, err)
		}
		if state == store.TokenStateValid {
			// Another environment's link: as unknown here.
			state = store.TokenStateUnknown
		}
		return portalLinkRefused(state)
	case store.ECodeForbidden:
		return http.StatusForbidden, "message", portalPage{Title: "Sign in", Tone: "bad",
			Message: "This account cannot sign in: " + store.ErrorMessage(err) + ". Ask the vendor's support why."}
	}
	return s.portalFailed(r, err)
}

// portalLinkRefused says in plain words why a sign-in link does not work.
func portalLinkRefused(state string) (int, string, portalPage) {
	pg := portalPage{Title: "Sign in", Tone: "bad"}
	switch state {
	case store.TokenStateUsed:
		pg.Message = "This link was already used. Each link works only once: ask for a new one."
		return http.StatusGone, "message", pg
	case store.TokenStateExpired:
		pg.Message = "This link has expired. Ask for a new one."
		return http.StatusGone, "message", pg
	}
	pg.Message = "This link is not valid. Check that you opened the whole link from the mail, or ask for a new one."
	return http.StatusNotFound, "message", pg
}

// portalConfirm is the page that asks before a device is deactivated.
func (s *Server) portalConfirm(_ http.ResponseWriter, r *http.Request, p *portal) (int, string, portalPage) {
	lic, dev, status, pg := s.portalBoundDevice(r, p)
	if lic == nil {
		return status, "message", pg
	}
	return http.StatusOK, "confirm", portalPage{Title: "Deactivate a device", License: &lic.portalLicense, Device: dev}
}

// portalDeactivate frees the device's seat by the runtime's reset, so that
// it spends the licence's quota within its window exactly as a reset from
// the application does, in the customer's name.
func (s *Server) portalDeactivate(w http.ResponseWriter, r *http.Request, p *portal) (int, string, portalPage) {
	lic, dev, status, pg := s.portalBoundDevice(r, p)
	if lic == nil {
		return status, "message", pg
	}
	left, err := s.rt.store.ResetDevice(r.Context(), store.RuntimeClient{AppID: p.ra.App.ID, Env: p.ra.Env.Name},
		store.DeviceResetInput{LicenseKey: lic.fullKey, DeviceID: dev.ID, ByUser: p.user.ID})
	switch store.ErrorCode(err) {
	case "":
		return http.StatusOK, "message", portalPage{Title: "Device deactivated", Tone: "ok",
			Message: fmt.Sprintf("Done: %s no longer uses the licence %s. The licence has %s left.", dev.Name, lic.Key, resetsLeft(left))}
	case store.ECodeResetLimit:
		msg := "The licence has no device resets left, so the device stays active."
		if after := store.AsError(err).RetryAfter; after > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(after))
			at := s.now().Add(time.Duration(after) * time.Second)
			msg += fmt.Sprintf(" A reset is possible again on %s, %s.", at.UTC().Format("2 Jan 2006 15:04 UTC"), inWords(time.Duration(after)*time.Second))
		} else if p.ra.App.SupportEmail != "" {
			msg += " Write to " + p.ra.App.SupportEmail + " to have it freed."
		}
		return http.StatusForbidden, "message", portalPage{Title: "No resets left", Tone: "bad", Message: msg}
	case store.ECodeNotFound:
		return portalNoDevice()
	}
	return s.portalFailed(r, err)
}

func resetsLeft(n int) string {
	if n == 1 {
		return "1 device reset"
	}
	return strconv.Itoa(n) + " device resets"
}

// portalKeyedLicense is a shown licence with its key in full, which the
// reset names; the page never shows it.
type portalKeyedLicense struct {
	portalLicense
	fullKey string
}

// portalBoundDevice finds the licence and device the address names: a
// licence of the signed-in customer and a device bound to it. Otherwise it
// returns a nil licence with the page to answer.
func (s *Server) portalBoundDevice(r *http.Request, p *portal) (*portalKeyedLicense, *portalDevice, int, portalPage) {
	if p.user == nil {
		return nil, nil, http.StatusUnauthorized, portalPage{Title: "Sign in first", Tone: "bad",
			Message: "Your session has ended. Sign in again, then choose the device once more."}
	}
	v := mux.Vars(r)
	sc := p.storeScope()
	if store.CheckID("license_id", v["license_id"]) != nil || store.CheckID("device_id", v["device_id"]) != nil {
		st, _, pg := portalNoDevice()
		return nil, nil, st, pg
	}
	l, err := s.db.FindLicense(r.Context(), sc, v["license_id"])
	if err == nil && l.UserID != p.user.ID {
		err = store.NotFound("license")
	}
	var d *store.Device
	for pg := 1; err == nil && d == nil; pg++ {
		var devs *store.Page[*store.Device]
		devs, err = s.db.ListDevices(r.Context(), sc, store.StatusFilter{LicenseID: l.ID, PageRequest: store.PageRequest{Page: pg, PerPage: store.MaxPerPage}})
		if err != nil {
			break
		}
		for _, x := range devs.Data {
			if x.ID == v["device_id"] {
				d = x
			}
		}
		if d == nil && pg*store.MaxPerPage >= devs.Total {
			err = store.NotFound("device")
		}
	}
	if store.ErrorCode(err) == store.ECodeNotFound {
		st, _, pg := portalNoDevice()
		return nil, nil, st, pg
	}
	if err != nil {
		st, _, pg := s.portalFailed(r, err)
		return nil, nil, st, pg
	}
	dev := portalDeviceOf(d, l.ID)
	return &portalKeyedLicense{portalLicense: portalLicenseOf(&l.LicenseItem, s.now()), fullKey: l.Key}, &dev, 0, portalPage{}
}

func portalNoDevice() (int, string, portalPage) {
	return http.StatusNotFound, "message", portalPage{Title: "Device not found", Tone: "bad",
		Message: "This device is not on one of your licences any more. Go back to the list: it shows the devices as they are now."}
}

// portalSignOut ends the session and removes its cookie.
func (s *Server) portalSignOut(w http.ResponseWriter, r *http.Request, p *portal) (int, string, portalPage) {
	if err := s.db.PortalSignOut(r.Context(), p.session); err != nil {
		return s.portalFailed(r, err)
	}
	http.SetCookie(w, portalCookie(r, portalSessionCookie, "", -1))
	p.user = nil
	return http.StatusOK, "message", portalPage{Title: "Signed out", Tone: "ok", Message: "You are signed out."}
}

// portalFailed is the page for an unexpected error; the cause is logged.
func (s *Server) portalFailed(r *http.Request, err error) (int, string, portalPage) {
	status, _, pg := s.failed(r, err)
	return status, "message", portalPage{Title: pg.Title, Tone: pg.Tone, Message: pg.Message}
}

// inWords says how far away d is, roughly, as a person would.
func inWords(d time.Duration) string {
	plural := func(n int, unit string) string {
		if n == 1 {
			return "in 1 " + unit
		}
		return "in " + strconv.Itoa(n) + " " + unit + "s"
	}
	switch {
	case d >= 48*time.Hour:
		return plural(int((d+12*time.Hour)/(24*time.Hour)), "day")
	case d >= 2*time.Hour:
		return plural(int((d+30*time.Minute)/time.Hour), "hour")
	case d > time.Minute:
		return plural(int((d+time.Minute-1)/time.Minute), "minute")
	}
	return "in a minute"
}
