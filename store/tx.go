package store

import (
	"context"
	"time"
)

// Storage is what a storage package (store/bolt, store/postgres) gives the
// orchestration of Service: transactions over its records. Everything a
// change decides is decided by Service; a Storage only reads and writes.
type Storage interface {
	// Update runs fn in one read-write transaction: what fn writes, its
	// audit entries and its outbox events commit together or not at all.
	// fn may run more than once (a retried serialization failure), so it
	// keeps no state across runs but what it assigns afresh.
	Update(ctx context.Context, fn func(Tx) error) error
	// APIKeyByHash reads, outside any write, the API key whose hash is
	// hash (HashSecret of its plaintext); not_found when none is. It is
	// the read every management request makes: a storage answers it its
	// cheapest way (one statement, no transaction, on PostgreSQL).
	APIKeyByHash(ctx context.Context, hash string) (*APIKey, error)
	// AppSecretByHash is APIKeyByHash for application secrets.
	AppSecretByHash(ctx context.Context, hash string) (*AppSecret, error)
	// View runs fn in one read-only transaction: a consistent read of
	// several records, or what the orchestration reads before it spends
	// work outside any write (a password's hash) with no writer waiting.
	// fn must not write.
	View(ctx context.Context, fn func(Tx) error) error
}

// PingPrecheck is a Storage that can tell, without waiting for its
// writer, that a test ping would pass the bounds of c now (bbolt counts
// its leases in memory): the service asks it first, so that a ping at the
// bound is refused at once however long the writer's queue, and the
// transaction's InsertPing still decides. Returns not_found and conflict.
type PingPrecheck interface {
	PingRoom(ctx context.Context, ref AppRef, webhookID string, now time.Time, c Claim) error
}

// Tx is one transaction of a Storage, narrowed to the primitives the
// orchestration needs: gets, index lookups, puts, Lock… for the rows an
// invariant depends on, session revocation, audit (with its outbox
// events). A Tx applies no rule of the domain: it stores what it is given.
//
// Reads return not_found when the record is absent or belongs to another
// environment than the one named (envID "" matches any). The Lock… reads
// return the same as their plain reads and also hold the row until the
// transaction ends where several writers can race (a row lock on
// PostgreSQL; bbolt has one writer, so there they are plain reads).
type Tx interface {
	PortalTx

	// Context is the request's context; the actor of audit entries rides in it.
	Context() context.Context
	// Now is the transaction's one clock reading: every timestamp a change
	// writes is the same.
	Now() time.Time

	// Scope loads the application of s, with the environment s names. In a
	// write it also holds the application against a permanent deletion
	// racing it.
	Scope(s Scope) (*Application, *Environment, error)
	// App loads the application ref names; another organization's is
	// not_found. In a write it holds the application as Scope does.
	App(ref AppRef) (*Application, error)
	// Application loads an application by id, of any organization.
	Application(id string) (*Application, error)
	// LockApp is App holding the application's record against another
	// change of it (on PostgreSQL a lock that writes under the application
	// do not wait for).
	LockApp(ref AppRef) (*Application, error)
	// LockAppForPurge is App holding the application against every write
	// under it until the transaction ends: a record written under it on
	// another server either commits first, and is purged, or finds the
	// application gone.
	LockAppForPurge(ref AppRef) (*Application, error)
	// InsertApplication writes a new application with its environments and
	// indexes; a slug its organization already holds is ErrSlugTaken.
	InsertApplication(a *Application) error
	// PutApplication writes a over the stored application; its slug and
	// environments never change.
	PutApplication(a *Application) error
	// PurgeApplication removes an application and every record under it
	// (docs/design.md §6).
	PurgeApplication(a *Application) error

	// License loads a license of environment envID.
	License(envID, id string) (*License, error)
	// LockLicense is License holding the row: what every change of a
	// license's status, devices or reset quota reads first, so that the
	// device limit and the reset quota hold across servers.
	LockLicense(envID, id string) (*License, error)
	// PutLicense writes next over prev, the license as this transaction
	// read it, with every index and count that follows from it (status,
	// plan, user, expiry, the organization's counted licenses).
	// DevicesCount is kept by BindDevice and UnbindDevice, not here.
	PutLicense(prev, next *License) error
	// LicenseKeysTaken reports which of keys a license already has.
	LicenseKeysTaken(keys []string) (map[string]bool, error)
	// InsertLicenses writes new licenses of application a with their
	// indexes and counts, and for each the audit entry of created with
	// the license as its target, with its outbox events. A storage may
	// write them a statement per table rather than per license.
	InsertLicenses(a *Application, items []*LicenseItem, created AuditEvent) error
	// DueLicenses returns up to limit licenses, held, whose expiry has
	// passed while their stored status still lets them lapse
	// (License.Lapsed), oldest expiry first, with their organizations;
	// more reports that others may follow.
	DueLicenses(limit int) (due []DueLicense, more bool, err error)

	// LockPlan loads a plan of application appID, held against its
	// deletion until the transaction ends (a share lock suffices: the
	// change records the plan's id, it does not change the plan).
	LockPlan(appID, id string) (*Plan, error)
	// LockEntitlement loads an entitlement of application appID, held
	// against its deletion as LockPlan holds a plan.
	LockEntitlement(appID, id string) (*Entitlement, error)
	// LockEntitlementForDelete is LockEntitlement holding the row against
	// every other change, for its deletion.
	LockEntitlementForDelete(appID, id string) (*Entitlement, error)
	// InsertEntitlement writes a new entitlement with its indexes; a key
	// its application already holds is ErrEntitlementKeyTaken.
	InsertEntitlement(e *Entitlement) error
	// DeleteEntitlement removes an entitlement with its indexes; the
	// caller has taken it out of the plans and licenses naming it.
	DeleteEntitlement(e *Entitlement) error
	// LockPlanForUpdate loads a plan of application appID with its
	// entitlements resolved, held against every other change, for a change
	// to it or its deletion.
	LockPlanForUpdate(appID, id string) (*Plan, error)
	// CountPlanInUse counts the licenses of a's environments whose status
	// keeps the plan in use (LicenseStatusesInUse).
	CountPlanInUse(a *Application, planID string) (int, error)
	// DeletePlan removes a plan with its indexes.
	DeletePlan(p *Plan) error
	// InsertPlan writes a new plan with its indexes (its resolved
	// Entitlements are not stored).
	InsertPlan(p *Plan) error
	// LockEntitlements loads those of ids (UUIDs) that are entitlements of
	// application appID, by id, held against their deletion as
	// LockEntitlement holds one.
	LockEntitlements(appID string, ids []string) (map[string]*Entitlement, error)
	// LockPlans loads, held, every plan of an application, in id order,
	// without their entitlements resolved.
	LockPlans(appID string) ([]*Plan, error)
	// PutPlan writes p over the stored plan (its resolved Entitlements are
	// not stored).
	PutPlan(p *Plan) error
	// LockLicensesNaming loads, held, the licenses of a's environments
	// that may name entitlementID among their own; the caller checks
	// EntitlementIDs (a storage may return more than name it, never fewer).
	LockLicensesNaming(a *Application, entitlementID string) ([]*License, error)
	// TierCount counts the organization's res that count against its
	// billing tier (applications disabled or not, licenses neither revoked
	// nor banned, members of every role).
	TierCount(orgID string, res Resource) (int64, error)
	// RuntimeRequests is the stored count of the organization's runtime
	// requests in the month of at.
	RuntimeRequests(orgID string, at time.Time) (int64, error)
	// Subscription loads the organization's subscription: the default one
	// since its creation when none was written. Returns not_found for an
	// unknown organization.
	Subscription(orgID string) (SubscriptionState, error)
	// LockTierCount is TierCount holding the organization until the
	// transaction ends, so that two servers cannot both take the last
	// room. Returns not_found for an unknown organization.
	LockTierCount(orgID string, res Resource) (int64, error)

	// LockSubscription is Subscription holding it.
	LockSubscription(orgID string) (SubscriptionState, error)
	// LockSubscriptions loads, held, every stored subscription, in
	// organization order.
	LockSubscriptions() ([]OrgSubscription, error)
	// PutSubscription writes the organization's subscription.
	PutSubscription(orgID string, s SubscriptionState) error
	// LockBillingTransaction loads, held, a checkout by id.
	LockBillingTransaction(id string) (*BillingTransaction, error)
	// LockExpiredCheckouts loads, held, the pending checkouts whose
	// ExpiresAt is not after now, oldest first.
	LockExpiredCheckouts() ([]*BillingTransaction, error)
	// PutBillingTransaction writes next over prev (nil for a new checkout),
	// with the index of pending checkouts by expiry.
	PutBillingTransaction(prev, next *BillingTransaction) error

	// LicensePlan loads the plan of a license; a plan without id, with the
	// default lease, when the plan is gone.
	LicensePlan(l *License) (*Plan, error)
	// Runtime is this transaction with the runtime's primitives: the
	// management API's issuance of a machine file binds the device as an
	// activation does (BindFingerprint).
	Runtime() RuntimeTx
	// EndUserIDByEmail is the id of the end-user of environment envID with
	// this address, in any letter case; "" when none.
	EndUserIDByEmail(envID, email string) (string, error)

	// IsBound reports whether the device is bound to the license.
	IsBound(licenseID, deviceID string) (bool, error)
	// UnbindDevice removes the binding of the device to l, lowering
	// l.DevicesCount, and reports whether there was one. The caller
	// writes l with PutLicense.
	UnbindDevice(l *License, deviceID string) (bool, error)

	// Device loads a device of environment envID.
	Device(envID, id string) (*Device, error)
	// LockDevice is Device holding the row.
	LockDevice(envID, id string) (*Device, error)
	// PutDevice writes next over prev, the device as this transaction read
	// it, with its indexes.
	PutDevice(prev, next *Device) error

	// LockEndUser loads, held, an end-user of environment envID.
	LockEndUser(envID, id string) (*EndUser, error)
	// PutEndUser writes next over prev, the end-user as this transaction
	// read it, with its indexes.
	PutEndUser(prev, next *EndUser) error
	// InsertEndUser writes a new end-user with its indexes; its address is
	// unique in its environment (else email_taken), also against another
	// server registering it at once.
	InsertEndUser(u *EndUser) error

	// OrgExists refuses an unknown organization with not_found.
	OrgExists(orgID string) error
	// InsertOrganization writes a new organization with its slug index; a
	// slug another organization holds is ErrOrgSlugTaken, and then nothing
	// is written and the transaction goes on.
	InsertOrganization(o *Organization) error
	// LockOrg loads, held, an organization for a change to it.
	LockOrg(id string) (*Organization, error)
	// PutOrg writes o over the stored organization; its slug never changes.
	PutOrg(o *Organization) error
	// JoinOrg writes m, a member of no organization until now, as a member
	// of m.OrgID, with that organization's index of its members.
	JoinOrg(m *Member) error
	// InsertMember writes a new member, created and updated now; its
	// address is unique across all organizations (else email_taken).
	InsertMember(m *Member) error

	// LockOrgMembers loads, held, every member of an organization, in id
	// order (so that two changes never lock them crosswise).
	LockOrgMembers(orgID string) ([]*Member, error)
	// DeleteMember removes a member with its indexes and its onboarding
	// state.
	DeleteMember(m *Member) error
	// EndDashboardSessions ends every dashboard session of a member and
	// returns how many it ended.
	EndDashboardSessions(memberID string) (int, error)

	// InsertAPIKey writes a new API key with its indexes.
	InsertAPIKey(k *APIKey) error
	// LockAPIKey loads, held, an API key of organization orgID; another
	// organization's is not_found.
	LockAPIKey(orgID, id string) (*APIKey, error)
	// PutAPIKey writes k over the stored key.
	PutAPIKey(k *APIKey) error
	// InsertAppSecret writes a new application secret with its indexes.
	InsertAppSecret(s *AppSecret) error
	// LockAppSecret loads, held, a secret of application appID; another
	// application's is not_found.
	LockAppSecret(appID, id string) (*AppSecret, error)
	// PutAppSecret writes s over the stored secret.
	PutAppSecret(s *AppSecret) error
	// MemberByEmail loads the account of an address; nil when none.
	MemberByEmail(email string) (*Member, error)
	// MailTokenMember loads the account a live mail token of purpose is
	// for, without spending it. Unknown, expired, spent and misdirected
	// tokens, and tokens of removed accounts, are all invalid_token, alike.
	MailTokenMember(plain, purpose string) (*Member, error)
	// LockMember loads, held, a member by id; nil when none.
	LockMember(id string) (*Member, error)
	// PutMember writes m over the stored member; its address and
	// organization do not change.
	PutMember(m *Member) error
	// InsertDashboardSession writes a new dashboard session; the storage
	// drops the member's expired ones on the way.
	InsertDashboardSession(s *DashboardSession) error
	// DeleteDashboardSession ends a dashboard session and returns its
	// member's id; "" when there was none.
	DeleteDashboardSession(id string) (string, error)
	// InsertPartnerAttempt stores the hash of a partner sign-in's state,
	// live for ttl from now; the storage drops expired attempts on the way.
	InsertPartnerAttempt(state string, ttl time.Duration) error
	// SpendPartnerAttempt removes the live attempt of state and reports
	// whether there was one. The removal is conditional: of two servers
	// presenting one state, one spends it.
	SpendPartnerAttempt(state string) (bool, error)
	// LockPartnerLink holds a provider's identity until the transaction
	// ends, so that two first sign-ins of it on two servers take turns,
	// and returns the id of the member it is linked to; "" when none.
	LockPartnerLink(issuer, subject string) (string, error)
	// InsertPartnerLink links an identity to a member, linked now;
	// accountVerified says the member's address was verified before.
	InsertPartnerLink(issuer, subject, memberID string, accountVerified bool) error
	// DeletePartnerLink removes the link of an identity.
	DeletePartnerLink(issuer, subject string) error
	// DropUnverifiedLinks removes the partner identities linked to the
	// member while its address was unverified, and reports how many.
	DropUnverifiedLinks(memberID string) (int, error)
	// InsertChallenge records a spent anti-bot challenge until expires
	// unless it is recorded already, and reports whether it was not: the
	// insert decides, so a challenge is spent once across servers. The
	// storage drops expired challenges on the way.
	InsertChallenge(key string, expires time.Time) (bool, error)
	// ActAs makes the audit entries of the rest of the transaction name
	// this actor, keeping the request's address and user agent.
	ActAs(actorType, id string)
	// Onboarding loads a member's onboarding progress, the initial one
	// when none was saved. Returns not_found for an unknown member.
	Onboarding(memberID string) (*OnboardingProgress, error)
	// LockOnboarding is Onboarding holding the member, so that two
	// updates on two servers apply one after the other.
	LockOnboarding(memberID string) (*OnboardingProgress, error)
	// PutOnboarding writes a member's onboarding progress.
	PutOnboarding(memberID string, p *OnboardingProgress) error

	// CountWebhooks counts the endpoints of an application.
	CountWebhooks(appID string) (int, error)
	// LockWebhook loads, held, an endpoint of application appID; another
	// application's is not_found.
	LockWebhook(appID, id string) (*Webhook, error)
	// InsertWebhook writes a new endpoint with its indexes.
	InsertWebhook(w *Webhook) error
	// PutWebhook writes w over the stored endpoint, its failure run
	// (FailingSince, TimedOut) as w has it.
	PutWebhook(w *Webhook) error
	// PauseDeliveries takes the pending deliveries of an endpoint out of
	// the queue; they wait, pending.
	PauseDeliveries(webhookID string) error
	// ResumeDeliveries puts the pending deliveries of an endpoint back in
	// the queue, due now.
	ResumeDeliveries(webhookID string) error
	// DeleteWebhook removes an endpoint, its indexes and its deliveries.
	DeleteWebhook(w *Webhook) error

	// Delivery loads a delivery by id, not held; nil when there is none.
	Delivery(id string) (*Delivery, error)
	// LockDelivery loads, held, a delivery of endpoint webhookID; another
	// endpoint's is not_found.
	LockDelivery(webhookID, id string) (*Delivery, error)
	// LockAttempted loads, held, a delivery an attempt was made of and its
	// endpoint, the endpoint first (the order of every writer of both);
	// nil, nil when the delivery is gone (its endpoint was deleted while
	// the send ran).
	LockAttempted(id string) (*Delivery, *Webhook, error)
	// PutDelivery writes next over prev, the delivery as this transaction
	// read it, with the queue's indexes: queued puts it among the due
	// deliveries at next.NextAttemptAt (else it waits, or is done), and
	// the commit wakes the dispatcher when it is due by now.
	PutDelivery(prev, next *Delivery, queued bool) error
	// EndLease ends the claim's lease of a delivery whose attempt this
	// transaction records, whoever holds it now.
	EndLease(id string) error
	// InsertPing writes the test ping d to endpoint w, not queued, leased
	// to c.Owner until now+c.Lease as a claim at now would lease it. The
	// leases are counted as a claim counts them, held against claims and
	// pings racing it, and c.AdmitPing decides.
	InsertPing(w *Webhook, d *Delivery, now time.Time, c Claim) error

	// RevokeSessions revokes every live session of one owner for reason
	// and returns how many it revoked.
	RevokeSessions(of SessionOwner, id, reason string) (int, error)
	// RevokeDeviceLicenseSessions revokes the live sessions of one device
	// opened on one license; the device's other sessions stay.
	RevokeDeviceLicenseSessions(deviceID, licenseID, reason string) (int, error)
	// DeleteLiveLease removes the live lease leaseID of a license, held by
	// the device deviceID ("": by any), with its indexes and returns it;
	// nil when there is none (unknown, another license's or device's,
	// lapsed). The deletion decides: a lease another server removed first
	// is not removed twice.
	DeleteLiveLease(licenseID, deviceID, leaseID string) (*Lease, error)
	// LicenseLeases loads the leases of a license, live or lapsed, newest
	// first.
	LicenseLeases(licenseID string) ([]*Lease, error)
	// DeviceLeases loads the leases a device holds on any license, live or
	// lapsed, newest first.
	DeviceLeases(deviceID string) ([]*Lease, error)

	// PassLock takes the lock of a background pass for this transaction
	// and reports whether it got it; a pass that does not skips its round
	// (another server runs it). A store with one process always gets it.
	PassLock(pass string) (bool, error)

	// Audit writes the change's audit entry, naming the actor of the
	// context, and the outbox events of the endpoints subscribed to it.
	Audit(ev AuditEvent) error

	// The reads below serve Service's read-only transactions (Storage.View)
	// and hold nothing. Whose record it is (the organization of an
	// application or a member, the environment of a device) is checked by
	// the caller, not by them.

	// Applications loads an organization's applications, newest first.
	Applications(orgID string) ([]*Application, error)
	// Entitlements loads the entitlements of application appID, newest
	// first.
	Entitlements(appID string) ([]*Entitlement, error)
	// Plan loads a plan of application appID with its entitlements
	// resolved.
	Plan(appID, id string) (*Plan, error)
	// Plans loads the plans of application appID with their entitlements
	// resolved, newest first.
	Plans(appID string) ([]*Plan, error)
	// Org loads an organization by id.
	Org(id string) (*Organization, error)
	// OrgBySlug loads the organization of a valid slug (ValidSlug).
	OrgBySlug(slug string) (*Organization, error)
	// Orgs loads every organization, newest first.
	Orgs() ([]*Organization, error)
	// Member loads a member by id, of any organization or of none.
	Member(id string) (*Member, error)
	// Members loads the members of an organization, oldest first.
	Members(orgID string) ([]*Member, error)
	// EndUserPage pages the end-users of environment envID, newest first:
	// all of them, or those of status when it is not "". Total counts
	// every match.
	EndUserPage(envID, status string, p PageRequest) (*Page[*EndUser], error)
	// DevicePage is EndUserPage for devices.
	DevicePage(envID, status string, p PageRequest) (*Page[*Device], error)
	// DeviceByFingerprint loads the device of environment envID with this
	// fingerprint; nil when none.
	DeviceByFingerprint(envID, fingerprint string) (*Device, error)
	// BoundDevicePage pages the devices bound to l, newest first; Total
	// counts them all.
	BoundDevicePage(l *License, p PageRequest) (*Page[*Device], error)
	// LiveDeviceSessions counts the live sessions of a device: not revoked
	// and, at Now, inside both their idle and their absolute lifetime.
	LiveDeviceSessions(deviceID string) (int, error)
	// The outbox's expansion (store/service_outbox_expand.go).

	// AppWebhooks loads the endpoints of an application, active or not, in
	// id order. A storage may answer from what this transaction read
	// before, until an endpoint changes in it; the caller only reads them.
	AppWebhooks(appID string) ([]*Webhook, error)
	// OrgWebhooks is AppWebhooks for every application of an organization.
	OrgWebhooks(orgID string) ([]*Webhook, error)
	// LockWebhookSet holds the set of endpoints of an organization until
	// the transaction ends, against another change of it and against an
	// expansion of its events (ShareWebhookSet; on PostgreSQL an advisory
	// lock, free under bbolt's one writer).
	LockWebhookSet(orgID string) error
	// ShareWebhookSet takes LockWebhookSet's hold shared, without waiting,
	// and reports whether it got it: false while a change of the
	// organization's endpoints holds it.
	ShareWebhookSet(orgID string) (bool, error)
	// PendingEvents loads up to limit outbox events, oldest first, held
	// against another expansion. Events another server's expansion holds
	// are skipped, unless it holds every waiting one: then they are waited
	// for, so that none means none waits.
	PendingEvents(limit int) ([]*OutboxEvent, error)
	// ScopeEvents loads, held, the pending outbox events of application
	// appID and those of its organization (AppID ""), waiting for one
	// another expansion holds.
	ScopeEvents(orgID, appID string) ([]*OutboxEvent, error)
	// WriteExpansion writes the deliveries of each expanded event, pending
	// and queued at their NextAttemptAt, sharing their event's payload
	// (kept once, only when some delivery has it), and removes the events.
	WriteExpansion(x []Expansion) error
	// Webhook loads an endpoint of application appID, not held; another
	// application's is not_found.
	Webhook(appID, id string) (*Webhook, error)
	// DeliveryPage loads a page of an endpoint's deliveries of f's status
	// (any when ""), newest first, with their total; f is checked.
	DeliveryPage(webhookID string, f DeliveryFilter) (*Page[*Delivery], error)
	// The maintenance passes' bulk primitives (service_maintenance.go).

	// DeleteExpiredAudit removes up to limit audit entries that c finds
	// expired for the plan of their organization's stored subscription
	// (RetentionCutoffs.Expired), oldest first from the position from (""
	// for the oldest entry), with their indexes, and returns how many. A
	// storage may stop after looking at a bounded number of entries: it
	// then returns in next the position another transaction goes on from;
	// next is "" once it looked at every entry old enough to expire.
	DeleteExpiredAudit(c *RetentionCutoffs, from string, limit int) (removed int, next string, err error)
	// DeleteExpiredDeliveries is DeleteExpiredAudit for finished webhook
	// deliveries, by the time they finished.
	DeleteExpiredDeliveries(c *RetentionCutoffs, limit int) (int, error)
	// DeleteClosedCounters removes up to limit shared counters whose
	// window closed by Now and returns how many; one a hit holds is left
	// to the next sweep.
	DeleteClosedCounters(limit int) (int, error)
	// DeleteExpiredNonces removes up to limit used nonces whose replay
	// window ended by Now and returns how many.
	DeleteExpiredNonces(limit int) (int, error)
	// DeleteExpiredSessions removes up to limit sessions past their
	// absolute lifetime by Now, oldest first, with their indexes, and
	// returns how many.
	DeleteExpiredSessions(limit int) (int, error)
	// LockOperatorTokenHash loads, held, the stored hash of the operator
	// token; "" when there is none.
	LockOperatorTokenHash() (string, error)
	// PutOperatorTokenHash writes hash ("" removes it) over prev, the hash
	// as this transaction read it, and reports whether it did. With prev
	// "" it writes only if no other transaction stored a hash first: no
	// lock holds a row that does not exist yet.
	PutOperatorTokenHash(prev, hash string) (bool, error)

	// The licence reads (service_reads_licenses.go): like the reads above
	// they hold nothing, and whose record it is is checked by the caller.

	// LicensePage pages the licenses of environment envID, newest first:
	// all of them, or those of status and of plan planID when they are not
	// "". Total counts every match.
	LicensePage(envID, status, planID string, p PageRequest) (*Page[*License], error)
	// LicenseByKey loads the license of a normalized key
	// (NormalizeLicenseKey), of any environment; nil when none.
	LicenseByKey(key string) (*License, error)
	// UserLicenses loads the licenses of environment envID assigned to an
	// end-user, newest first.
	UserLicenses(envID, userID string) ([]*License, error)
	// LicenseItems resolves licenses as listed, in order: each one's plan
	// name ("" for a deleted plan) and end-user's e-mail. A storage may
	// read them a statement per table rather than per license.
	LicenseItems(ls []*License) ([]*LicenseItem, error)
	// EntitlementsByID loads those of ids that are entitlements of
	// application appID, by id, as LockEntitlements does without holding
	// them.
	EntitlementsByID(appID string, ids []string) (map[string]*Entitlement, error)
	// LiveLicenseSessions counts the live sessions opened on a license:
	// not revoked and, at Now, inside both their idle and their absolute
	// lifetime.
	LiveLicenseSessions(licenseID string) (int, error)

	// The reads of the audit log, the credentials and the endpoints
	// (service_reads_logs.go); the caller checks the scope.

	// EnvAuditPage pages the log of environment envID (its own entries and
	// its application's) under f, newest first, with the total of what f
	// matches; f is normalized.
	EnvAuditPage(envID string, f AuditFilter) (*Page[*AuditEntry], error)
	// OrgAuditPage is EnvAuditPage for the entries of organization orgID
	// that name no environment.
	OrgAuditPage(orgID string, f AuditFilter) (*Page[*AuditEntry], error)
	// APIKeys loads the API keys of an organization, newest first.
	APIKeys(orgID string) ([]*APIKey, error)
	// AppSecrets loads the secrets of application appID, newest first.
	AppSecrets(appID string) ([]*AppSecret, error)

	// The status reads (store/service_reads_status.go), not held.

	// DashboardSessionMember loads a dashboard session, expired or not,
	// with its member: nil, nil when there is no such session, a nil
	// member when the member is gone.
	DashboardSessionMember(id string) (*DashboardSession, *Member, error)
	// OperatorTokenHash loads the stored hash of the operator token; ""
	// when there is none.
	OperatorTokenHash() (string, error)
	// QueuedDeliveries counts the deliveries waiting in the queue
	// (pending and queued) and returns the earliest next attempt of
	// them; the zero time when there are none.
	QueuedDeliveries() (int, time.Time, error)
	// UnexpandedEvents counts the outbox events not expanded yet and
	// returns when the oldest was created; the zero time when none.
	UnexpandedEvents() (int, time.Time, error)
}

// SessionOwner names whose sessions (or seats) a revocation ends.
type SessionOwner int

// The owners of sessions.
const (
	OwnerLicense SessionOwner = iota + 1
	OwnerDevice
	OwnerUser
)

// Session revocation reasons, as a revoked session records them.
const (
	RevokedLogout      = "logout"
	RevokedStatus      = "status_change"
	RevokedDeviceReset = "device_reset"
	// RevokedDeviceRebound: the device was re-bound under a new
	// fingerprint, and what held its old one holds no session.
	RevokedDeviceRebound = "device_rebound"
	RevokedRefreshReuse  = "refresh_reused"
)

// AuditEvent is what a change records about itself.
type AuditEvent struct {
	Event    string
	OrgID    string
	AppID    string
	EnvIDs   []string // environments whose log lists the entry; none for organization-level events
	Target   Target
	Metadata map[string]any
}

// OrgSubscription is an organization's stored subscription.
type OrgSubscription struct {
	OrgID string
	State SubscriptionState
}

// DueLicense is a license the expiry pass found lapsed, with the
// organization of its application (its audit entry names it).
type DueLicense struct {
	OrgID   string
	License *License
}
