package main

import (
	"context"
	"strings"

	"licensectl/store"
)

// Commands name licenses, users and devices the way a support person has
// them at hand: a license by id, by the key the customer reads out or by the
// customer's e-mail (when they hold one license); a user by id or e-mail; a
// device by id or fingerprint. Each resolves through the list filters, so it
// works the same on a data file and against a server.

// refResolver resolves a record named on the command line to its id.
type refResolver func(s *session, ctx context.Context, sc store.Scope, ref string) (string, error)

// licenseRef resolves ref to a license id of the scope.
func (s *session) licenseRef(ctx context.Context, sc store.Scope, ref string) (string, error) {
	switch {
	case store.ValidID(ref):
		return ref, nil
	case strings.Contains(ref, "@"):
		page, err := s.svc.ListLicenses(ctx, sc, store.LicenseFilter{UserEmail: ref, PageRequest: store.PageRequest{PerPage: 4}})
		if err != nil {
			return "", err
		}
		switch page.Total {
		case 0:
			return "", store.Errorf(store.ECodeNotFound, "no license of a user %q in %s", ref, sc.Env)
		case 1:
			return page.Data[0].ID, nil
		}
		keys := make([]string, 0, len(page.Data))
		for _, l := range page.Data {
			keys = append(keys, l.Key)
		}
		more := ""
		if page.Total > len(keys) {
			more = ", …"
		}
		return "", store.Errorf(store.ECodeConflict, "%s holds %d licenses (%s%s): name one by key or id", ref, page.Total, strings.Join(keys, ", "), more)
	}
	if store.NormalizeLicenseKey(ref) == "" {
		return "", store.Errorf(store.ECodeNotFound, "%q is neither a license id, a license key nor an e-mail", ref)
	}
	page, err := s.svc.ListLicenses(ctx, sc, store.LicenseFilter{Key: ref, PageRequest: store.PageRequest{PerPage: 1}})
	return only(page, err, func(l *store.LicenseItem) string { return l.ID }, "no license with key %q in %s", ref, sc.Env)
}

// endUserRef resolves ref, an id or an e-mail, to an end-user id of the scope.
func (s *session) endUserRef(ctx context.Context, sc store.Scope, ref string) (string, error) {
	if store.ValidID(ref) {
		return ref, nil
	}
	page, err := s.svc.ListEndUsers(ctx, sc, store.StatusFilter{Email: ref, PageRequest: store.PageRequest{PerPage: 1}})
	return only(page, err, func(u *store.EndUser) string { return u.ID }, "no user with e-mail %q in %s", ref, sc.Env)
}

// deviceRef resolves ref to a device id of the scope. The fingerprint is
// tried first: applications often use a machine UUID as fingerprint, which
// would otherwise read as a device id.
func (s *session) deviceRef(ctx context.Context, sc store.Scope, ref string) (string, error) {
	page, err := s.svc.ListDevices(ctx, sc, store.StatusFilter{Fingerprint: ref, PageRequest: store.PageRequest{PerPage: 1}})
	if err == nil && len(page.Data) == 1 {
		return page.Data[0].ID, nil
	}
	if store.ValidID(ref) {
		return ref, nil
	}
	if err != nil {
		return "", err
	}
	return "", store.Errorf(store.ECodeNotFound, "no device with fingerprint %q in %s", ref, sc.Env)
}

// only returns the id of the item an exact lookup found, or not_found with
// the formatted message.
func only[T any](page *store.Page[T], err error, id func(T) string, format string, args ...any) (string, error) {
	if err != nil {
		return "", err
	}
	if len(page.Data) == 0 {
		return "", store.Errorf(store.ECodeNotFound, format, args...)
	}
	return id(page.Data[0]), nil
}
