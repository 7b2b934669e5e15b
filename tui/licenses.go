package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// The status words of the lists' filters.
var (
	licenseStatuses  = []string{store.LicenseInactive, store.LicenseActive, store.LicenseExpired, store.LicenseSuspended, store.LicenseRevoked, store.LicenseBanned}
	userStatuses     = []string{store.UserActive, store.UserBanned, store.UserDisabled}
	deviceStatuses   = []string{store.DeviceActive, store.DeviceBlocked}
	deliveryStatuses = []string{store.DeliveryPending, store.DeliveryDelivered, store.DeliveryFailed}
)

// Bindings of the license actions.
var (
	keySuspend   = mutating(bind(groupScreen, "s", "suspend", "s"))
	keyReinstate = mutating(bind(groupScreen, "u", "reinstate", "u"))
	keyRevoke    = irreversible(bind(groupScreen, "X", "revoke", "X"))
	keyBanLic    = irreversible(bind(groupScreen, "B", "ban", "B"))
	keyGenerate  = mutating(bind(groupScreen, "n", "generate", "n"))
	keyRenew     = mutating(bind(groupScreen, "R", "renew", "R"))
	keySetPlan   = mutating(bind(groupScreen, "P", "change plan", "P"))
	keyTransfer  = mutating(bind(groupScreen, "O", "transfer (owner)", "O"))
)

func licenseStatusAction(b *binding, verb, ing, did, to, word string, from ...string) *action {
	return &action{
		b: b, verb: verb, ing: ing, did: did, word: word,
		when: func(it any) bool { return slices.Contains(from, it.(*store.LicenseItem).Status) },
		consequence: func(c *ctx, it any) []string {
			return licenseConsequence(to, c.liveSessions(it.(*store.LicenseItem).ID))
		},
		run: func(ctx context.Context, c *ctx, it any) error {
			_, err := c.data.SetLicenseStatus(ctx, c.scope(), it.(*store.LicenseItem).ID, to)
			return err
		},
	}
}

// licenseConsequence says what else a status change does (docs/design.md §6);
// sessions names the sessions it ends ("Its 2 active sessions").
func licenseConsequence(to, sessions string) []string {
	switch to {
	case store.LicenseSuspended:
		return []string{sessions + " become invalid (license_suspended). Reinstating later",
			"does not restore them; clients activate again."}
	case store.LicenseActive:
		return []string{"New activations and validations work again; sessions revoked before stay revoked."}
	case store.LicenseRevoked:
		return []string{sessions + " end (license_revoked). Revoked is final: it cannot be reinstated."}
	case store.LicenseBanned:
		return []string{sessions + " end (license_banned). Banned is final: it cannot be reinstated."}
	}
	return nil
}

var licenseActions = []*action{
	licenseStatusAction(keySuspend, "Suspend", "Suspending", "suspended", store.LicenseSuspended, "", store.LicenseActive, store.LicenseInactive),
	licenseStatusAction(keyReinstate, "Reinstate", "Reinstating", "reinstated", store.LicenseActive, "", store.LicenseSuspended),
	licenseStatusAction(keyRevoke, "Revoke", "Revoking", "revoked", store.LicenseRevoked, "revoke", store.LicenseActive, store.LicenseInactive, store.LicenseSuspended, store.LicenseExpired),
	licenseStatusAction(keyBanLic, "Ban", "Banning", "banned", store.LicenseBanned, "ban", store.LicenseActive, store.LicenseInactive, store.LicenseSuspended, store.LicenseExpired),
}

var licensesSpec = &listSpec{
	name: "Licenses", noun: "license", paged: true,
	cols: []column{
		{title: "KEY", min: 29, max: 29},
		{title: "STATUS", min: 9, max: 9},
		{title: "PLAN", priority: 2, min: 4, max: 16},
		{title: "USER", priority: 3, min: 4, max: 24},
		{title: "DEV", priority: 3, min: 3, max: 7},
		{title: "EXPIRES", priority: 4, min: 7, max: 16},
		{title: "CREATED", priority: 5, min: 7, max: 16},
		{title: "ID", priority: 6, min: 12, max: 12},
	},
	cells: func(c *ctx, it any) []string {
		l := it.(*store.LicenseItem)
		user := l.UserEmail
		if user == "" {
			user = c.g.dash
		}
		return []string{l.Key, l.EffectiveStatus(c.now()), l.PlanName, user,
			c.bound(l), c.when(l.ExpiresAt), c.at(l.CreatedAt), tail(l.ID)}
	},
	id:      func(it any) string { return it.(*store.LicenseItem).ID },
	state:   func(it any) string { return it.(*store.LicenseItem).Status },
	primary: func(it any) string { return it.(*store.LicenseItem).Key },
	fetch: withDeviceLimits(func(ctx context.Context, c *ctx, page store.PageRequest, q query) (fetched, error) {
		f := store.LicenseFilter{Status: q.status, PlanID: q.planID, Key: q.key, UserEmail: q.email, PageRequest: page}
		if strings.HasPrefix(q.planID, "name:") {
			plans, err := c.data.ListPlans(ctx, c.app())
			if err != nil {
				return fetched{}, err
			}
			f.PlanID = ""
			for _, p := range plans {
				if strings.EqualFold(p.Name, q.planID[5:]) {
					f.PlanID = p.ID
				}
			}
			if f.PlanID == "" {
				return fetched{}, store.Errorf(store.ECodeNotFound, "plan %q not found", q.planID[5:])
			}
		}
		p, err := c.data.ListLicenses(ctx, c.scope(), f)
		return pageItems(p, err)
	}),
	statuses: licenseStatuses,
	parse: func(c *ctx, text string) query {
		q := parseQuery(text, licenseStatuses, func(q *query, tok string) bool {
			switch {
			case strings.HasPrefix(tok, "plan:"):
				q.planID = "name:" + tok[5:]
			case store.NormalizeLicenseKey(tok) != "":
				q.key = tok
			case strings.Contains(tok, "@"):
				q.email = tok
			default:
				return false
			}
			return true
		})
		if q.status == store.LicenseExpired && !c.remote {
			// The stored status is what the filter reads, and only a running
			// server's sweeper stores expiry (docs/tui.md §9.5); rows still show
			// the effective status.
			q.note = "(stored; the server's sweeper updates it)"
		}
		return q
	},
	open:    func(c *ctx, it any) screen { return newLicense(c, it.(*store.LicenseItem).ID) },
	preview: licensePreview,
	create:  func(c *ctx, l *list) tea.Cmd { return openGenerate(c, l) },
	newKey:  keyGenerate,
	actions: licenseActions,
	empty:   "No licenses in ENV yet. n generate · E switch to OTHER",
}

// withDeviceLimits reads the application's plans beside what fetch reads,
// for DEV's bound/max (docs/tui.md §5.4). A plan's max_devices applies to its
// licenses live, so the limits are read again with every page, not kept
// from an earlier one; plans are few.
func withDeviceLimits(fetch fetchFunc) fetchFunc {
	return func(cx context.Context, c *ctx, page store.PageRequest, q query) (fetched, error) {
		f, err := fetch(cx, c, page, q)
		if err != nil {
			return f, err
		}
		plans, err := c.data.ListPlans(cx, c.app())
		if err != nil {
			return fetched{}, err
		}
		limits := make(map[string]int, len(plans))
		for _, p := range plans {
			limits[p.ID] = p.MaxDevices
		}
		f.learn = func(c *ctx) { c.maxDevices = limits }
		return f, nil
	}
}

// bound is a license's devices as bound/max ("1/2"); the max is a dash when
// its plan is gone (a deleted plan's revoked or expired licenses stay).
func (c *ctx) bound(l *store.LicenseItem) string {
	limit, ok := c.maxDevices[l.PlanID]
	if !ok {
		return fmt.Sprintf("%d/%s", l.DevicesCount, c.g.dash)
	}
	return fmt.Sprintf("%d/%d", l.DevicesCount, limit)
}

// pageItems turns a typed page into the list's items.
func pageItems[T any](p *store.Page[T], err error) (fetched, error) {
	if err != nil {
		return fetched{}, err
	}
	out := make([]any, len(p.Data))
	for i, v := range p.Data {
		out[i] = v
	}
	return fetched{items: out, total: p.Total, next: p.NextCursor}, nil
}

// parseQuery reads a filter: a status word (or status:WORD), the tokens
// special tells apart, and the rest as page-local text.
func parseQuery(text string, statuses []string, special func(q *query, tok string) bool) query {
	var q query
	var local []string
	toks := strings.Fields(text)
	// A license key may be typed with spaces: try the whole text first.
	if k := store.NormalizeLicenseKey(text); k != "" && len(toks) > 1 {
		toks = []string{k}
	}
	for _, tok := range toks {
		lower := strings.ToLower(tok)
		st := lower
		if word, ok := strings.CutPrefix(lower, "status:"); ok {
			// Said to be a status: a unique prefix is enough.
			st = statusWord(statuses, word)
		}
		switch {
		case slices.Contains(statuses, st):
			// A bare status word reads as what it does (docs/tui.md §6's chips).
			q.status, tok = st, "status:"+st
		case special != nil && special(&q, tok):
		default:
			local = append(local, strings.ToLower(tok))
			continue
		}
		q.chips = append(q.chips, tok)
	}
	q.local = strings.Join(local, " ")
	return q
}

// statusWord is the status that word names: the status itself, or the only
// one it begins; "" when none or several do.
func statusWord(statuses []string, word string) string {
	found := ""
	for _, st := range statuses {
		switch {
		case st == word:
			return st
		case word != "" && strings.HasPrefix(st, word):
			if found != "" {
				return ""
			}
			found = st
		}
	}
	return found
}

// paletteArg reads a palette argument in docs/tui.md §7.3's forms as the
// filter it means: NAME=VALUE is NAME:VALUE (plan=Pro, since=24h); a word
// that begins exactly one of the list's statuses means that status, as the
// whole word does (":lic susp"); and on a list with a bare prefix (Audit's
// event:) any other plain word takes it. The / filter wants "status:"
// before an abbreviation, since a bare word there may be page-local text.
func (s *listSpec) paletteArg(text string) string {
	if store.NormalizeLicenseKey(text) != "" {
		return text // a key typed in groups: its groups are no words
	}
	toks := strings.Fields(text)
	for i, tok := range toks {
		if name, val, ok := strings.Cut(tok, "="); ok && isWord(name) {
			toks[i] = strings.ToLower(name) + ":" + val
			continue
		}
		switch st := statusWord(s.statuses, strings.ToLower(tok)); {
		case st != "":
			toks[i] = "status:" + st
		case s.bare != "" && !strings.Contains(tok, ":"):
			toks[i] = s.bare + tok
		}
	}
	return strings.Join(toks, " ")
}

// isWord reports whether s is a filter's name (letters only): the NAME of
// NAME=VALUE, not part of an e-mail or a key.
func isWord(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) < 0
}

// licensePreview is the selected license at a glance, and what its own
// state says about validation (the application, user and device are in
// the detail, enter).
func licensePreview(c *ctx, it any) []string {
	l := it.(*store.LicenseItem)
	user := c.g.dash
	if l.UserEmail != "" {
		user = store.Printable(l.UserEmail)
	}
	verdict := "yes, as far as the license goes"
	if r := store.LicenseReason(&l.License, c.now()); r != "" {
		verdict = "NO " + c.g.to + " " + r
	}
	return []string{
		" " + l.Key,
		" status    " + l.EffectiveStatus(c.now()),
		" plan      " + store.Printable(l.PlanName),
		" user      " + user,
		" devices   " + c.bound(l) + " bound",
		" expires   " + c.when(l.ExpiresAt),
		" activated " + c.when(l.ActivatedAt),
		" created   " + c.at(l.CreatedAt),
		" id        " + tail(l.ID) + " (Y copies it whole)",
		"",
		" validates " + verdict,
		" enter: the full cascade and history",
	}
}
