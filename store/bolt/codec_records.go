package bolt

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"licensectl/store"
	"licensectl/store/storedoc"
)

// encodeRecord encodes v, a record of a primary bucket, in the compact
// format of codec.go. The domain types (and the private records below) have
// a codec here, field by field; a private record type of this package
// without one, or a document of store/storedoc, is JSON and must tag every
// field. A domain type without a codec is refused: its Go field names would
// become the format.
func encodeRecord(v any) ([]byte, error) {
	w := &wbuf{b: make([]byte, 0, 128)}
	switch r := v.(type) {
	case *store.Organization:
		w.str(r.Name)
		w.str(r.Slug)
		w.bool(r.EmailVerified)
		w.time(r.CreatedAt)
		w.time(r.UpdatedAt)
	case *store.Member:
		w.id(r.OrgID)
		w.str(r.Email)
		w.str(r.PasswordHash)
		w.str(r.FirstName)
		w.str(r.LastName)
		w.str(r.Phone)
		w.sym(r.Role)
		w.bool(r.EmailVerified)
		w.str(r.TOSVersion)
		w.time(r.CreatedAt)
		w.time(r.UpdatedAt)
	case *store.DashboardSession:
		w.id(r.MemberID)
		w.time(r.CreatedAt)
		w.time(r.ExpiresAt)
	case *mailToken:
		w.sym(r.Purpose)
		w.id(r.MemberID)
		w.time(r.CreatedAt)
		w.time(r.ExpiresAt)
		w.time(r.UsedAt)
	case *store.Application:
		w.id(r.OrgID)
		w.str(r.Name)
		w.str(r.Slug)
		w.sym(r.Status)
		w.time(r.CreatedAt)
		w.time(r.UpdatedAt)
		w.uvarint(uint64(len(r.Environments)))
		for _, e := range r.Environments {
			w.id(e.ID)
			w.sym(e.Name)
			w.str(e.PublicKey)
			w.bytes(e.SigningKey)
			w.str(e.KeyID)
			w.time(e.CreatedAt)
		}
		// Environments is nil only in a record no code writes; keep it apart.
		w.bool(r.Environments == nil)
		// Appended last: a record written before the field reads as "".
		w.str(r.SupportEmail)
	case *store.APIKey:
		w.id(r.OrgID)
		w.str(r.Label)
		w.hash(r.Hash)
		w.ptime(r.LastUsedAt)
		w.ptime(r.RevokedAt)
		w.time(r.CreatedAt)
	case *store.AppSecret:
		w.id(r.OrgID)
		w.id(r.AppID)
		w.id(r.EnvironmentID)
		w.sym(r.Env)
		w.str(r.Label)
		w.hash(r.Hash)
		w.ptime(r.LastUsedAt)
		w.ptime(r.RevokedAt)
		w.time(r.CreatedAt)
	case *store.Entitlement:
		w.id(r.AppID)
		w.str(r.Key)
		w.str(r.Name)
		w.pstr(r.Description)
		w.time(r.CreatedAt)
	case *store.Plan:
		// Entitlements are resolved on every read and never stored.
		w.id(r.AppID)
		w.str(r.Name)
		w.bool(r.IsTrial)
		w.pint(r.DurationDays)
		w.int(r.MaxDevices)
		w.int(r.DeviceResetLimit)
		w.pstr(r.ExternalProductID)
		w.bytes(r.Policies)
		w.ids(r.EntitlementIDs)
		w.time(r.CreatedAt)
		w.time(r.UpdatedAt)
		w.int(r.DeviceResetWindowDays)
		w.int(r.MaxConcurrent)
		// A pointer, so a record written before the field reads as absent
		// and takes the default rather than 0.
		w.pint(&r.LeaseSeconds)
		w.pint(&r.MaxOfflineDays)
		// Appended: a plan written before maintenance periods reads as
		// unlimited.
		w.pint(r.MaintenanceDays)
		// Appended as a string, not a symbol (a new symbol is a schema
		// version): a plan written before re-binding reads "", the
		// default (store.Plan.RebindMode).
		w.str(r.Rebind)
	case *store.License:
		putLicense(w, r)
	case *licenseV5:
		putLicenseV5(w, r)
	case *store.EndUser:
		w.id(r.AppID)
		w.id(r.EnvID)
		w.str(r.Email)
		w.str(r.PasswordHash)
		w.sym(r.Status)
		w.strs(r.Roles)
		w.ptime(r.LastLoginAt)
		w.time(r.CreatedAt)
		w.time(r.UpdatedAt)
	case *store.Device:
		w.id(r.AppID)
		w.id(r.EnvID)
		w.str(r.Fingerprint)
		w.str(r.Name)
		w.str(r.Platform)
		w.sym(r.Status)
		w.id(r.UserID)
		w.ids(r.LicenseIDs)
		w.id(r.TrialLicenseID)
		w.ptime(r.LastSeenAt)
		w.time(r.CreatedAt)
		// Appended: a device written before components reads as none.
		w.components(r.Components)
	case *sessionRecord:
		putSession(w, r)
	case *store.AuditEntry:
		if err := putAudit(w, r); err != nil {
			return nil, err
		}
	default:
		return encodeJSONRecord(v)
	}
	return w.b, nil
}

// putLicense writes a license. Its bound devices are not in it
// (license_devices), but their count is.
func putLicense(w *wbuf, r *store.License) {
	w.id(r.AppID)
	w.id(r.EnvID)
	w.str(r.Key)
	w.id(r.PlanID)
	w.sym(r.Status)
	w.id(r.UserID)
	w.ids(r.EntitlementIDs)
	w.ptime(r.ActivatedAt)
	w.ptime(r.ExpiresAt)
	w.int(r.DeviceResetsRemaining)
	w.time(r.CreatedAt)
	w.time(r.UpdatedAt)
	// Appended: a record written before reset windows reads with none.
	w.times(r.ResetTimes)
	// Appended by schema 10, which counts every license's bindings.
	w.int(r.DevicesCount)
	// Appended: a license written before maintenance periods reads as
	// unlimited.
	w.ptime(r.MaintenanceExpiresAt)
}

// putLicenseV5 writes a license as schema versions 2 to 5 did, with its
// bound devices inside; only migration 2 still writes one, for migration 7
// to read.
func putLicenseV5(w *wbuf, r *licenseV5) {
	w.id(r.AppID)
	w.id(r.EnvID)
	w.str(r.Key)
	w.id(r.PlanID)
	w.sym(r.Status)
	w.id(r.UserID)
	w.ids(r.EntitlementIDs)
	w.ids(r.DeviceIDs)
	w.idTimes(r.DeviceBoundAt)
	w.ptime(r.ActivatedAt)
	w.ptime(r.ExpiresAt)
	w.int(r.DeviceResetsRemaining)
	w.time(r.CreatedAt)
	w.time(r.UpdatedAt)
}

func putSession(w *wbuf, r *sessionRecord) {
	w.id(r.AppID)
	w.id(r.EnvID)
	w.id(r.LicenseID)
	w.id(r.UserID)
	w.id(r.DeviceID)
	w.hash(r.AccessHash)
	w.hash(r.RefreshHash)
	w.hashes(r.RetiredRefresh)
	w.time(r.AccessExpiresAt)
	w.time(r.RefreshExpiresAt)
	w.time(r.AbsoluteExpiresAt)
	w.ptime(r.RevokedAt)
	w.sym(r.RevokeReason)
	w.time(r.CreatedAt)
	w.ptime(r.LastSeenAt)
	w.ptime(r.RotatedAt)
}

// putAudit writes an audit entry. The actor's address and user agent are
// the entry's own IP and UserAgent and are not repeated.
func putAudit(w *wbuf, r *store.AuditEntry) error {
	w.id(r.OrgID)
	w.id(r.AppID)
	w.id(r.EnvID)
	w.sym(r.Event)
	w.sym(r.Actor.Type)
	w.id(r.Actor.ID)
	w.sym(r.Target.Type)
	w.id(r.Target.ID)
	w.str(r.IP)
	w.str(r.UserAgent)
	if err := w.meta(r.Metadata); err != nil {
		return err
	}
	w.time(r.CreatedAt)
	return nil
}

// decodeRecord decodes raw, stored under key k, into v: the inverse of
// encodeRecord. A record's id is its key.
func decodeRecord(k, raw []byte, v any) error {
	r := &rbuf{b: raw}
	id := ""
	if len(k) == 16 {
		id = ids(k)
	}
	switch x := v.(type) {
	case *store.Organization:
		*x = store.Organization{ID: id, Name: r.str(), Slug: r.str(), EmailVerified: r.bool(), CreatedAt: r.time(), UpdatedAt: r.time()}
	case *store.Member:
		*x = store.Member{ID: id, OrgID: r.id(), Email: r.str(), PasswordHash: r.str(), FirstName: r.str(), LastName: r.str(), Phone: r.str(),
			Role: r.sym(), EmailVerified: r.bool(), TOSVersion: r.str(), CreatedAt: r.time(), UpdatedAt: r.time()}
	case *store.DashboardSession:
		*x = store.DashboardSession{ID: id, MemberID: r.id(), CreatedAt: r.time(), ExpiresAt: r.time()}
	case *mailToken:
		*x = mailToken{Purpose: r.sym(), MemberID: r.id(), CreatedAt: r.time(), ExpiresAt: r.time(), UsedAt: r.time()}
	case *store.Application:
		*x = store.Application{ID: id, OrgID: r.id(), Name: r.str(), Slug: r.str(), Status: r.sym(), CreatedAt: r.time(), UpdatedAt: r.time()}
		n := r.uvarint()
		if n > uint64(len(r.b)) {
			r.fail("environments")
			break
		}
		x.Environments = make([]store.Environment, 0, n)
		for range n {
			e := store.Environment{ID: r.id(), Name: r.sym(), PublicKey: r.str()}
			if key := r.bytes(); key != nil {
				e.SigningKey = ed25519.PrivateKey(key)
			}
			e.KeyID, e.CreatedAt = r.str(), r.time()
			x.Environments = append(x.Environments, e)
		}
		if r.bool() {
			x.Environments = nil
		}
		x.SupportEmail = r.str()
	case *store.APIKey:
		*x = store.APIKey{ID: id, OrgID: r.id(), Label: r.str(), Hash: r.hash(), LastUsedAt: r.ptime(), RevokedAt: r.ptime(), CreatedAt: r.time()}
	case *store.AppSecret:
		*x = store.AppSecret{ID: id, OrgID: r.id(), AppID: r.id(), EnvironmentID: r.id(), Env: r.sym(), Label: r.str(), Hash: r.hash(),
			LastUsedAt: r.ptime(), RevokedAt: r.ptime(), CreatedAt: r.time()}
	case *store.Entitlement:
		*x = store.Entitlement{ID: id, AppID: r.id(), Key: r.str(), Name: r.str(), Description: r.pstr(), CreatedAt: r.time()}
	case *store.Plan:
		*x = store.Plan{ID: id, AppID: r.id(), Name: r.str(), IsTrial: r.bool(), DurationDays: r.pint(), MaxDevices: r.int(),
			DeviceResetLimit: r.int(), ExternalProductID: r.pstr(), Policies: r.bytes(), EntitlementIDs: r.ids(), CreatedAt: r.time(), UpdatedAt: r.time(),
			DeviceResetWindowDays: r.int(), MaxConcurrent: r.int(), LeaseSeconds: orDefault(r.pint(), store.DefaultLeaseSeconds),
			MaxOfflineDays: orDefault(r.pint(), store.DefaultOfflineDays), MaintenanceDays: r.pint(), Rebind: r.str()}
	case *store.License:
		*x = store.License{ID: id, AppID: r.id(), EnvID: r.id(), Key: r.str(), PlanID: r.id(), Status: r.sym(), UserID: r.id(),
			EntitlementIDs: r.ids(), ActivatedAt: r.ptime(), ExpiresAt: r.ptime(),
			DeviceResetsRemaining: r.int(), CreatedAt: r.time(), UpdatedAt: r.time(), ResetTimes: r.times(), DevicesCount: r.int(), MaintenanceExpiresAt: r.ptime()}
	case *licenseV5:
		*x = licenseV5{ID: id, AppID: r.id(), EnvID: r.id(), Key: r.str(), PlanID: r.id(), Status: r.sym(), UserID: r.id(),
			EntitlementIDs: r.ids(), DeviceIDs: r.ids(), DeviceBoundAt: r.idTimes(), ActivatedAt: r.ptime(), ExpiresAt: r.ptime(),
			DeviceResetsRemaining: r.int(), CreatedAt: r.time(), UpdatedAt: r.time()}
	case *store.EndUser:
		*x = store.EndUser{ID: id, AppID: r.id(), EnvID: r.id(), Email: r.str(), PasswordHash: r.str(), Status: r.sym(), Roles: r.strs(),
			LastLoginAt: r.ptime(), CreatedAt: r.time(), UpdatedAt: r.time()}
	case *store.Device:
		*x = store.Device{ID: id, AppID: r.id(), EnvID: r.id(), Fingerprint: r.str(), Name: r.str(), Platform: r.str(), Status: r.sym(),
			UserID: r.id(), LicenseIDs: r.ids(), TrialLicenseID: r.id(), LastSeenAt: r.ptime(), CreatedAt: r.time(), Components: r.components()}
	case *sessionRecord:
		*x = sessionRecord{ID: id, AppID: r.id(), EnvID: r.id(), LicenseID: r.id(), UserID: r.id(), DeviceID: r.id(),
			AccessHash: r.hash(), RefreshHash: r.hash(), RetiredRefresh: r.hashes(), AccessExpiresAt: r.time(), RefreshExpiresAt: r.time(),
			AbsoluteExpiresAt: r.time(), RevokedAt: r.ptime(), RevokeReason: r.sym(), CreatedAt: r.time(), LastSeenAt: r.ptime(), RotatedAt: r.ptime()}
	case *store.AuditEntry:
		*x = store.AuditEntry{ID: id, OrgID: r.id(), AppID: r.id(), EnvID: r.id(), Event: r.sym(), Actor: store.Actor{Type: r.sym(), ID: r.id()},
			Target: store.Target{Type: r.sym(), ID: r.id()}, IP: r.str(), UserAgent: r.str(), Metadata: r.meta(), CreatedAt: r.time()}
	default:
		return decodeJSONRecord(raw, v)
	}
	return r.done()
}

// checked caches the verdict on each JSON record type.
var checked sync.Map // reflect.Type → error

// jsonDocPkg is the package of the JSON documents both stores share; its
// golden test pins their tags.
var jsonDocPkg = reflect.TypeFor[storedoc.Subscription]().PkgPath()

// jsonRecordType refuses a type that would write Go field names to disk: a
// domain type, or a private record (of this package or store/storedoc) with
// an untagged field.
func jsonRecordType(v any) error {
	t := reflect.TypeOf(v)
	if e, ok := checked.Load(t); ok {
		err, _ := e.(error)
		return err
	}
	var err error
	s := t
	if s.Kind() == reflect.Pointer {
		s = s.Elem()
	}
	switch {
	case s.PkgPath() != reflect.TypeFor[wbuf]().PkgPath() && s.PkgPath() != jsonDocPkg:
		err = fmt.Errorf("no record codec for %s: add one to encodeRecord", t)
	case s.Kind() == reflect.Struct:
		for i := range s.NumField() {
			f := s.Field(i)
			if f.IsExported() && f.Tag.Get("json") == "" {
				err = fmt.Errorf("record %s: field %s has no json tag", t, f.Name)
				break
			}
		}
	}
	checked.Store(t, err)
	return err
}

// encodeJSONRecord is the format of the private records without a codec.
func encodeJSONRecord(v any) ([]byte, error) {
	if err := jsonRecordType(v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func decodeJSONRecord(raw []byte, v any) error {
	if err := jsonRecordType(v); err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// decode decodes a record read by a cursor; a record that fails to decode
// is corruption and is reported, never skipped.
func decode(bucket, k, v []byte, out any) error {
	if err := decodeRecord(k, v, out); err != nil {
		return fmt.Errorf("decode %s/%x: %w", bucket, k, err)
	}
	return nil
}

// orDefault is *v, or def for a field the record was written without.
func orDefault(v *int, def int) int {
	if v == nil {
		return def
	}
	return *v
}

// components writes a device's components as their names, then their
// hashes, each a string list (nil apart from empty as lists are).
func (w *wbuf) components(cs []store.DeviceComponent) {
	if cs == nil {
		w.strs(nil)
		w.strs(nil)
		return
	}
	names, hashes := make([]string, len(cs)), make([]string, len(cs))
	for i, c := range cs {
		names[i], hashes[i] = c.Name, c.Hash
	}
	w.strs(names)
	w.strs(hashes)
}

// components reads what wbuf.components wrote.
func (r *rbuf) components() []store.DeviceComponent {
	names, hashes := r.strs(), r.strs()
	if len(names) != len(hashes) {
		r.fail("device components")
		return nil
	}
	if names == nil {
		return nil
	}
	out := make([]store.DeviceComponent, len(names))
	for i := range names {
		out[i] = store.DeviceComponent{Name: names[i], Hash: hashes[i]}
	}
	return out
}
