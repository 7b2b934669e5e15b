package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"licensectl/store"
	"licensectl/store/storedoc"
)

var _ store.CopySource = (*DB)(nil)

// ExportRecords implements store.CopySource: every record of the file, from
// one read transaction, for `licensectl store copy` (docs/design.md §12). It
// walks the primary buckets and the few index buckets that hold data of
// their own (the bindings of license_devices, the environments an audit
// entry is listed in); the other indexes and the kept counts are the
// target's to rebuild. A record that does not decode stops the export,
// naming its bucket and key: a copy never skips one.
func (db *DB) ExportRecords(ctx context.Context, emit func(store.CopyRecord) error) (_ store.CopyCounts, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = pageFault(db.Path(), p)
		}
	}()
	counts := store.CopyCounts{}
	err = db.view(ctx, func(t *txn) error {
		x := &exporter{t: t, counts: counts, emit: emit}
		return x.run()
	})
	if err != nil {
		return nil, err
	}
	return counts, nil
}

// exporter walks one read transaction.
type exporter struct {
	t      *txn
	counts store.CopyCounts
	emit   func(store.CopyRecord) error
	// orgOf maps an application to its organization, for the licenses, and
	// envsOf to its environments, for the audit log.
	orgOf  map[string]string
	envsOf map[string][]string
}

func (x *exporter) put(kind store.CopyKind, v any) error {
	if err := x.t.ctx.Err(); err != nil {
		return err
	}
	x.counts[kind]++
	return x.emit(store.CopyRecord{Kind: kind, Value: v})
}

// each calls fn with every key and value of bucket.
func (x *exporter) each(bucket []byte, fn func(k, v []byte) error) error {
	b := x.t.tx.Bucket(bucket)
	if b == nil {
		return nil
	}
	return b.ForEach(fn)
}

// exportBucket decodes every record of a primary bucket into a new T and emits
// it as kind, after fill has added what the record leaves to its key.
func exportBucket[T any](x *exporter, bucket []byte, kind store.CopyKind, fill func(k []byte, v *T) (any, error)) error {
	return x.each(bucket, func(k, raw []byte) error {
		v := new(T)
		if err := decode(bucket, k, raw, v); err != nil {
			return err
		}
		out := any(v)
		if fill != nil {
			var err error
			if out, err = fill(k, v); err != nil {
				return fmt.Errorf("%s/%x: %w", bucket, k, err)
			}
		}
		return x.put(kind, out)
	})
}

// nanos reads an 8-byte big-endian Unix-nanosecond time.
func nanos(bucket, k, v []byte) (time.Time, error) {
	if len(v) != 8 {
		return time.Time{}, fmt.Errorf("%s/%x: a time of %d bytes", bucket, k, len(v))
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC(), nil
}

// idKey checks that k is a 16-byte id key and returns the id.
func idKey(bucket, k []byte) (string, error) {
	if len(k) != 16 {
		return "", fmt.Errorf("%s/%x: a key of %d bytes, not an id", bucket, k, len(k))
	}
	return ids(k), nil
}

func (x *exporter) run() error {
	steps := []func() error{
		x.meta,
		func() error { return exportBucket[store.Organization](x, bOrgs, store.CopyOrganizations, nil) },
		func() error { return exportBucket[store.Member](x, bMembers, store.CopyMembers, nil) },
		func() error {
			return exportBucket[store.DashboardSession](x, bDashSessions, store.CopyDashboardSessions, nil)
		},
		x.mailTokens,
		x.usedChallenges,
		x.onboarding,
		x.partnerAttempts,
		x.partnerIdentities,
		x.subscriptions,
		x.billingTransactions,
		x.applications,
		func() error { return exportBucket[store.APIKey](x, bAPIKeys, store.CopyAPIKeys, nil) },
		func() error { return exportBucket[store.AppSecret](x, bSecrets, store.CopyAppSecrets, nil) },
		func() error { return exportBucket[store.Entitlement](x, bEnts, store.CopyEntitlements, nil) },
		func() error { return exportBucket[store.Plan](x, bPlans, store.CopyPlans, nil) },
		x.licenses,
		func() error { return exportBucket[store.EndUser](x, bEndUsers, store.CopyEndUsers, nil) },
		func() error { return exportBucket[store.Device](x, bDevices, store.CopyDevices, nil) },
		x.licenseDevices,
		x.sessions,
		x.leases,
		x.nonces,
		x.usage,
		x.audit,
		x.webhooks,
		x.outboxEvents,
		x.outboxBodies,
		x.deliveries,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// fileMeta are the meta keys of the file's own bookkeeping, which a copy
// leaves behind: the target keeps its own schema version and counts.
var fileMeta = [][]byte{metaSchemaVersion, metaOrgLicenseCounts}

// meta exports the values kept for the server under their names:
// MetaSecret's secrets and whatever else the server keeps there.
func (x *exporter) meta() error {
	return x.each(bMeta, func(k, v []byte) error {
		for _, own := range fileMeta {
			if bytes.Equal(k, own) {
				return nil
			}
		}
		return x.put(store.CopyMeta, &store.CopyMetaValue{Name: string(k), Value: clone(v)})
	})
}

func (x *exporter) mailTokens() error {
	return exportBucket[mailToken](x, bMailTokens, store.CopyMailTokens, func(k []byte, r *mailToken) (any, error) {
		return &store.CopyMailToken{Hash: string(k), Purpose: r.Purpose, MemberID: r.MemberID, CreatedAt: r.CreatedAt,
			ExpiresAt: r.ExpiresAt, UsedAt: r.UsedAt}, nil
	})
}

// usedChallenges exports the spent solutions, which the file keeps as
// given, under their hash.
func (x *exporter) usedChallenges() error {
	return x.each(bChallenges, func(k, v []byte) error {
		exp, err := nanos(bChallenges, k, v)
		if err != nil {
			return err
		}
		return x.put(store.CopyUsedChallenges, &store.CopyExpiring{Hash: store.HashSecret(string(k)), ExpiresAt: exp})
	})
}

func (x *exporter) onboarding() error {
	return exportBucket[storedoc.Onboarding](x, bOnboarding, store.CopyOnboarding, func(k []byte, r *storedoc.Onboarding) (any, error) {
		id, err := idKey(bOnboarding, k)
		return &store.CopyOnboardingState{MemberID: id, Progress: store.OnboardingProgress(*r)}, err
	})
}

func (x *exporter) partnerAttempts() error {
	return exportBucket[partnerAttempt](x, bPartnerAttempts, store.CopyPartnerAttempts, func(k []byte, r *partnerAttempt) (any, error) {
		// The file keys an attempt by HashSecret of its state already.
		return &store.CopyExpiring{Hash: string(k), ExpiresAt: r.ExpiresAt}, nil
	})
}

func (x *exporter) partnerIdentities() error {
	return exportBucket[storedoc.PartnerIdentity](x, bPartnerIdentities, store.CopyPartnerIdentities, func(k []byte, r *storedoc.PartnerIdentity) (any, error) {
		issuer, subject, ok := bytes.Cut(k, []byte{0})
		if !ok {
			return nil, fmt.Errorf("an identity key without its issuer")
		}
		return &store.CopyPartnerIdentity{Issuer: string(issuer), Subject: string(subject), MemberID: r.MemberID,
			LinkedAt: r.LinkedAt, AccountVerified: r.AccountVerified}, nil
	})
}

func (x *exporter) subscriptions() error {
	return exportBucket[storedoc.Subscription](x, bSubscriptions, store.CopySubscriptions, func(k []byte, r *storedoc.Subscription) (any, error) {
		id, err := idKey(bSubscriptions, k)
		return &store.CopySubscription{OrgID: id, State: store.SubscriptionState(*r)}, err
	})
}

func (x *exporter) billingTransactions() error {
	return exportBucket[storedoc.BillingTransaction](x, bBillingTx, store.CopyBillingTransactions, func(k []byte, r *storedoc.BillingTransaction) (any, error) {
		return &store.CopyBillingTransaction{ID: r.ID, OrgID: r.OrgID, Plan: r.Plan, Amount: r.Amount, Status: r.Status,
			DocKind: r.DocKind, Document: r.Document, Phone: r.Phone, CopyPaste: r.CopyPaste, CreatedAt: r.CreatedAt,
			ExpiresAt: r.ExpiresAt, PaidAt: r.PaidAt}, nil
	})
}

func (x *exporter) applications() error {
	x.orgOf, x.envsOf = map[string]string{}, map[string][]string{}
	return exportBucket[store.Application](x, bApps, store.CopyApplications, func(k []byte, a *store.Application) (any, error) {
		x.orgOf[a.ID] = a.OrgID
		for _, e := range a.Environments {
			x.envsOf[a.ID] = append(x.envsOf[a.ID], e.ID)
		}
		return a, nil
	})
}

func (x *exporter) licenses() error {
	return exportBucket[store.License](x, bLicenses, store.CopyLicenses, func(k []byte, l *store.License) (any, error) {
		org, ok := x.orgOf[l.AppID]
		if !ok {
			return nil, fmt.Errorf("license %s: its application %s is missing", l.ID, l.AppID)
		}
		return &store.CopyLicense{OrgID: org, License: *l}, nil
	})
}

func (x *exporter) licenseDevices() error {
	return x.each(bLicDevices, func(k, v []byte) error {
		if len(k) != 32 {
			return fmt.Errorf("%s/%x: a binding key of %d bytes", bLicDevices, k, len(k))
		}
		at, err := nanos(bLicDevices, k, v)
		if err != nil {
			return err
		}
		return x.put(store.CopyLicenseDevices, &store.CopyLicenseDevice{LicenseID: ids(k[:16]), DeviceID: ids(k[16:]), BoundAt: at})
	})
}

func (x *exporter) sessions() error {
	return exportBucket[sessionRecord](x, bSessions, store.CopySessions, func(k []byte, r *sessionRecord) (any, error) {
		c := store.CopySession(*r)
		return &c, nil
	})
}

func (x *exporter) leases() error {
	return exportBucket[leaseRecord](x, bLeases, store.CopyLeases, func(k []byte, r *leaseRecord) (any, error) {
		id, err := idKey(bLeases, k)
		return &store.CopyLease{ID: id, OrgID: r.OrgID, AppID: r.AppID, EnvID: r.EnvID, LicenseID: r.LicenseID,
			DeviceID: r.DeviceID, Fingerprint: r.Fingerprint, ExpiresAt: r.ExpiresAt, CreatedAt: r.CreatedAt}, err
	})
}

func (x *exporter) nonces() error {
	return x.each(bNonces, func(k, v []byte) error {
		env, nonce, ok := nonceKeyParts(k)
		if !ok {
			return fmt.Errorf("%s/%x: a key of %d bytes", bNonces, k, len(k))
		}
		exp, err := nanos(bNonces, k, v)
		if err != nil {
			return err
		}
		return x.put(store.CopyNonces, &store.CopyNonce{EnvID: ids(env), Nonce: string(nonce), ExpiresAt: exp})
	})
}

func (x *exporter) usage() error {
	return x.each(bUsage, func(k, v []byte) error {
		if len(k) <= 16 || len(v) != 8 {
			return fmt.Errorf("%s/%x: a count of %d bytes under a key of %d", bUsage, k, len(v), len(k))
		}
		return x.put(store.CopyUsage, &store.CopyUsageMonth{OrgID: ids(k[:16]), Month: string(k[16:]),
			Requests: int64(binary.BigEndian.Uint64(v))})
	})
}

// audit emits every entry with the environment logs that list it: an
// application-level entry is listed in both environments of its
// application while naming neither. Each listing is looked up in
// audit_by_env (env|time|entry) among its application's environments, so
// that the export holds no map of the log; that every listing of the index
// was found is checked at the end.
func (x *exporter) audit() error {
	index := x.t.tx.Bucket(bAuditEnv)
	listed, found := 0, 0
	if err := index.ForEach(func(k, _ []byte) error { listed++; return nil }); err != nil {
		return err
	}
	err := exportBucket[store.AuditEntry](x, bAudit, store.CopyAudit, func(k []byte, e *store.AuditEntry) (any, error) {
		var envs []string
		if e.AppID != "" {
			appEnvs, ok := x.envsOf[e.AppID]
			if !ok {
				return nil, fmt.Errorf("audit entry %s: its application %s is missing", e.ID, e.AppID)
			}
			for _, env := range appEnvs {
				if index.Get(key(idb(env), timeKey(e.CreatedAt), idb(e.ID))) != nil {
					envs = append(envs, env)
				}
			}
		}
		found += len(envs)
		return &store.CopyAuditEntry{Entry: *e, EnvIDs: envs}, nil
	})
	if err == nil && found != listed {
		err = fmt.Errorf("%s lists %d entries in environment logs, the export found %d of them", bAuditEnv, listed, found)
	}
	return err
}

func (x *exporter) webhooks() error {
	return exportBucket[storedoc.Webhook](x, bHooks, store.CopyWebhooks, func(k []byte, r *storedoc.Webhook) (any, error) {
		return &store.CopyWebhook{Webhook: store.Webhook{ID: r.ID, OrgID: r.OrgID, AppID: r.AppID, URL: r.URL, Events: r.Events,
			Status: r.Status, Secret: r.Secret, FailingSince: r.FailingSince, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt},
			TimedOut: r.TimedOut}, nil
	})
}

func (x *exporter) outboxEvents() error {
	return exportBucket[outboxEvent](x, bOutbox, store.CopyOutboxEvents, func(k []byte, r *outboxEvent) (any, error) {
		return &store.CopyOutboxEvent{ID: r.ID, OrgID: r.OrgID, AppID: r.AppID, Event: r.Event, CreatedAt: r.CreatedAt,
			Body: clone(r.Body)}, nil
	})
}

func (x *exporter) outboxBodies() error {
	return x.each(bOutboxBodies, func(k, v []byte) error {
		id, err := idKey(bOutboxBodies, k)
		if err != nil {
			return err
		}
		return x.put(store.CopyOutboxBodies, &store.CopyOutboxBody{EventID: id, Body: clone(v)})
	})
}

// deliveries exports every delivery; one is queued when the due index
// lists it (the file lists the pending deliveries of active endpoints).
func (x *exporter) deliveries() error {
	due := x.t.tx.Bucket(bDelivDue)
	return exportBucket[deliveryRecord](x, bDeliveries, store.CopyDeliveries, func(k []byte, r *deliveryRecord) (any, error) {
		d := r.domain()
		d.Body = clone(r.Body)
		queued := r.NextAttemptAt != nil && due.Get(key(timeKey(*r.NextAttemptAt), idb(r.ID))) != nil
		return &store.CopyDelivery{Delivery: *d, DoneAt: r.DoneAt, BodyOf: r.BodyOf, Queued: queued}, nil
	})
}
