package postgres

import (
	"licensectl/store"
	"licensectl/store/storedoc"
)

// auditEvent is what a change records about itself.
type auditEvent = store.AuditEvent

// audit writes one audit entry for the transaction's change, naming the
// actor of the request context, and the outbox event of it when an active
// endpoint hears it: the change, its entry and its outbox row commit
// together.
func (t *txn) audit(ev auditEvent) error {
	return t.auditEach(ev, []store.Target{ev.Target}, snapshots{t})
}

// auditEach writes the entry audit would write for ev once per target, with
// one statement for all the entries and, when an active endpoint hears the
// event, one for their outbox events, whatever their number. src gives the
// snapshots of the events' payloads.
func (t *txn) auditEach(ev auditEvent, targets []store.Target, src store.SnapshotSource) error {
	a := store.ActorFrom(t.ctx)
	envs := ev.EnvIDs
	if envs == nil {
		envs = []string{}
	}
	entries := make([]store.AuditEntry, len(targets))
	ids, targetIDs, docs := make([]string, len(targets)), make([]string, len(targets)), make([][]byte, len(targets))
	for i, target := range targets {
		e := store.AuditEntry{ID: store.NewID(), OrgID: ev.OrgID, AppID: ev.AppID, Event: ev.Event, Actor: a, Target: target,
			IP: a.IP, UserAgent: a.UserAgent, Metadata: ev.Metadata, CreatedAt: t.now}
		if len(ev.EnvIDs) == 1 {
			e.EnvID = ev.EnvIDs[0]
		}
		entries[i] = e
		ids[i], targetIDs[i], docs[i] = e.ID, target.ID, js(&e)
	}
	if _, err := t.exec(`INSERT INTO audit (id, org_id, app_id, env_ids, event, target_id, created_at, ip, user_agent, doc)
		SELECT u.id, $4, $5, $6, $7, u.target_id, $8, $9, $10, u.doc FROM unnest($1::uuid[], $2::text[], $3::json[]) AS u(id, target_id, doc)`,
		ids, targetIDs, docs, nullID(ev.OrgID), nullID(ev.AppID), envs, ev.Event, t.now, a.IP, a.UserAgent); err != nil {
		return err
	}
	if heard, err := store.Heard(t, ev.OrgID, ev.AppID, ev.Event); err != nil || !heard {
		return err
	}
	eventIDs, bodies := make([]string, len(targets)), make([][]byte, len(targets))
	for i := range entries {
		one := ev
		one.Target = entries[i].Target
		var err error
		if bodies[i], err = store.EventBody(one, entries[i].ID, src, t.now); err != nil {
			return err
		}
		eventIDs[i] = store.NewID()
	}
	if _, err := t.exec(`INSERT INTO outbox_events (id, org_id, app_id, event, created_at, body)
		SELECT u.id, $3, $4, $5, $6, u.body FROM unnest($1::uuid[], $2::bytea[]) AS u(id, body)`,
		eventIDs, bodies, ev.OrgID, nullID(ev.AppID), ev.Event, t.now); err != nil {
		return err
	}
	t.queued = true
	return nil
}

// decodeAudit reads an audit row: its doc and the columns the doc leaves
// out (the request's address and user agent).
func decodeAudit(raw []byte, ip, userAgent string) (*store.AuditEntry, error) {
	e, err := decode[store.AuditEntry](raw)
	if err != nil {
		return nil, err
	}
	e.IP, e.UserAgent = ip, userAgent
	return e, nil
}

// outboxChannel is the channel committing servers notify and every server
// listens on (listen.go).
const outboxChannel = "licensectl_outbox"

// snapshots loads the records of event snapshots for store.Snapshot, in
// the change's transaction.
type snapshots struct{ t *txn }

func (s snapshots) LicenseItem(id string) (*store.LicenseItem, error) {
	var raw []byte
	var n int
	err := s.t.tx.QueryRow(s.t.ctx, `SELECT doc, devices_count FROM licenses WHERE id = $1`, uuidOrNil(id)).Scan(&raw, &n)
	if noRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	l, err := decodeLicense(raw, n)
	if err != nil {
		return nil, err
	}
	return s.t.licenseItem(l)
}

func (s snapshots) EndUser(id string) (*store.EndUser, error) {
	return doc[store.EndUser](s.t, `SELECT doc FROM end_users WHERE id = $1`, uuidOrNil(id))
}

func (s snapshots) Device(id string) (*store.Device, error) {
	return doc[store.Device](s.t, `SELECT doc FROM devices WHERE id = $1`, uuidOrNil(id))
}

func (s snapshots) Plan(id string) (*store.Plan, error) {
	p, err := doc[store.Plan](s.t, `SELECT doc FROM plans WHERE id = $1`, uuidOrNil(id))
	if err != nil || p == nil {
		return nil, err
	}
	p.Entitlements, err = s.t.entitlementRefs(p.AppID, nil, p.EntitlementIDs)
	return p, err
}

func (s snapshots) Entitlement(id string) (*store.Entitlement, error) {
	return doc[store.Entitlement](s.t, `SELECT doc FROM entitlements WHERE id = $1`, uuidOrNil(id))
}

func (s snapshots) Application(id string) (*store.Application, error) {
	return doc[store.Application](s.t, `SELECT doc FROM apps WHERE id = $1`, uuidOrNil(id))
}

func (s snapshots) Webhook(id string) (*store.Webhook, error) {
	w, err := doc[storedoc.Webhook](s.t, `SELECT doc FROM webhooks WHERE id = $1`, uuidOrNil(id))
	if err != nil || w == nil {
		return nil, err
	}
	return w.Domain(), nil
}

func (s snapshots) AppSecret(id string) (*store.AppSecret, error) {
	return doc[store.AppSecret](s.t, `SELECT doc FROM app_secrets WHERE id = $1`, uuidOrNil(id))
}

func (s snapshots) APIKey(id string) (*store.APIKey, error) {
	return doc[store.APIKey](s.t, `SELECT doc FROM api_keys WHERE id = $1`, uuidOrNil(id))
}

func (s snapshots) Member(id string) (*store.Member, error) {
	return doc[store.Member](s.t, `SELECT doc FROM members WHERE id = $1`, uuidOrNil(id))
}

func (s snapshots) Organization(id string) (*store.Organization, error) {
	return doc[store.Organization](s.t, `SELECT doc FROM orgs WHERE id = $1`, uuidOrNil(id))
}
