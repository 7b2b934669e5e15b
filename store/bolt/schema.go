package bolt

// SchemaVersion is the version of the bucket layout below and of the record
// format (codec.go); the migrations in migrate.go bring older files to it.
const SchemaVersion = 11

// Every bucket is named here and nowhere else. Primary buckets map a 16-byte
// UUID to a record in the compact format of codec.go. Index buckets hold composite keys "prefix|id" with
// empty values (newest first is a reverse walk, as ids are UUIDv7), or unique
// keys "value → id". Counts of index prefixes live in bCounts so that totals
// are O(1).
var (
	bMeta = []byte("meta")

	bCounts = []byte("counts") // index name 0x00 prefix → uint64

	bOrgs     = []byte("orgs")
	bOrgsSlug = []byte("orgs_by_slug") // slug → org id

	bMembers      = []byte("members")
	bMembersEmail = []byte("members_by_email") // email → member id
	bMembersOrg   = []byte("members_by_org")   // org|member

	bDashSessions = []byte("dashboard_sessions") // id → dashboardSession
	bDashSessMem  = []byte("dashboard_sessions_by_member")
	bMailTokens   = []byte("mail_tokens") // sha256(token) → mailToken
	bChallenges   = []byte("used_challenges")

	bApps       = []byte("apps")
	bAppsOrg    = []byte("apps_by_org")        // org|app
	bAppsSlug   = []byte("apps_by_slug")       // org|slug → app id
	bAppsPubKey = []byte("apps_by_public_key") // public key → app|env

	bAPIKeys     = []byte("api_keys")
	bAPIKeysOrg  = []byte("api_keys_by_org")  // org|key
	bAPIKeysHash = []byte("api_keys_by_hash") // hash → key id

	bSecrets     = []byte("secrets")
	bSecretsApp  = []byte("secrets_by_app")  // app|secret
	bSecretsHash = []byte("secrets_by_hash") // hash → secret id

	bEnts    = []byte("entitlements")
	bEntsApp = []byte("entitlements_by_app") // app|ent
	bEntsKey = []byte("entitlements_by_key") // app|key → ent id

	bPlans    = []byte("plans")
	bPlansApp = []byte("plans_by_app") // app|plan

	bLicenses          = []byte("licenses")
	bLicKey            = []byte("licenses_by_key")         // key → license id
	bLicEnv            = []byte("licenses_by_env")         // env|license
	bLicEnvStatus      = []byte("licenses_by_env_status")  // env|status 0x00|license
	bLicEnvPlan        = []byte("licenses_by_env_plan")    // env|plan|license
	bLicEnvPlanStatus  = []byte("licenses_by_plan_status") // env|plan|status 0x00|license
	bLicExpiry         = []byte("licenses_by_expiry")      // expiry unix nanos|license
	bEndUsers          = []byte("end_users")
	bEndUsersEnv       = []byte("end_users_by_env")        // env|user
	bEndUsersEnvStatus = []byte("end_users_by_env_status") // env|status 0x00|user
	bEndUsersEmail     = []byte("end_users_by_email")      // env|email → user id
	bDevices           = []byte("devices")
	bDevicesEnv        = []byte("devices_by_env")        // env|device
	bDevicesEnvStatus  = []byte("devices_by_env_status") // env|status 0x00|device
	bDevicesFP         = []byte("devices_by_fingerprint")

	bSessions        = []byte("sessions")
	bSessionsRefresh = []byte("sessions_by_refresh") // sha256(refresh) → session id
	bSessionsUser    = []byte("sessions_by_user")    // user|session
	bSessionsDevice  = []byte("sessions_by_device")  // device|session
	bNonces          = []byte("used_nonces")         // expiry bucket end|env|nonce → expiry (nonces.go)

	bAudit      = []byte("audit")
	bAuditEnv   = []byte("audit_by_env")       // env|entry
	bAuditEvent = []byte("audit_by_env_event") // env|event 0x00|entry
	bAuditOrg   = []byte("audit_by_org")       // org|entry (organization-level events)
)

// Runtime buckets.
var (
	bLicEnvUser = []byte("licenses_by_env_user") // env|user|license: a login session's licenses
	bUsage      = []byte("runtime_usage")        // org|"YYYY-MM" → uint64 runtime requests
)

// Billing buckets.
var (
	bSubscriptions  = []byte("subscriptions")               // org id → storedoc.Subscription
	bBillingTx      = []byte("billing_transactions")        // id → storedoc.BillingTransaction
	bBillingPending = []byte("billing_transactions_by_exp") // expiry unix nanos|id of pending transactions
	bOnboarding     = []byte("onboarding")                  // member id → storedoc.Onboarding

	// bLicOrgActive names a count, not a bucket: the licenses of an
	// organization that are neither revoked nor banned, kept in bCounts.
	bLicOrgActive = []byte("licenses_active_by_org")
)

// Partner sign-in buckets.
var (
	bPartnerAttempts   = []byte("partner_attempts")   // sha256(state) → partnerAttempt
	bPartnerIdentities = []byte("partner_identities") // issuer 0x00 subject → storedoc.PartnerIdentity
)

// Partner identities by account (schema version 5): member|issuer 0x00
// subject, so a password reset finds the account's links.
var bPartnerIdentitiesMember = []byte("partner_identities_by_member")

// Devices bound to a license (schema version 7, "license devices index"):
// license|device → bound at (unix nanos), counted in the license record
// (schema version 10; in bCounts before).
// The bindings used to be a list inside the license record, which made
// every activation, reset and read of a site license cost its device count.
var bLicDevices = []byte("license_devices")

// Webhook buckets (outbox.go, webhooks.go).
var (
	bHooks           = []byte("webhooks")
	bHooksApp        = []byte("webhooks_by_app")              // app|webhook
	bHooksOrg        = []byte("webhooks_by_org")              // org|webhook
	bDeliveries      = []byte("webhook_deliveries")           // id → deliveryRecord
	bDelivHook       = []byte("webhook_deliveries_by_hook")   // webhook|delivery
	bDelivHookStatus = []byte("webhook_deliveries_by_status") // webhook|status 0x00|delivery
	bDelivDue        = []byte("webhook_deliveries_due")       // next attempt unix nanos|delivery (active endpoints)
	bDelivDone       = []byte("webhook_deliveries_done")      // delivered/failed unix nanos|delivery, walked by pruning
	bAuditOrgEvent   = []byte("audit_by_org_event")           // org|event 0x00|entry (organization-level events)
)

// Outbox buckets (schema version 6, outbox_expand.go): one event per change
// whatever the number of endpoints, and the due index by endpoint that the
// claim's round-robin walks.
var (
	bOutbox       = []byte("outbox_events")                  // id → outboxEvent
	bOutboxScope  = []byte("outbox_events_by_scope")         // org|app (16 zero bytes: organization-level)|event
	bDelivDueHook = []byte("webhook_deliveries_due_by_hook") // webhook|next attempt unix nanos|delivery (active endpoints)
	bOutboxBodies = []byte("outbox_bodies")                  // event id → the payload its deliveries share (counted per event)
)

// Audit by target (schema version 4): target|time|entry, one key per entry
// whichever logs list it (auditTargetKey). Entries without a target id are
// not listed.
var bAuditTarget = []byte("audit_by_target")

// Shared counters (counters.go): key → count and window end (unix nanos),
// 8 bytes each. Created at open like every bucket, so an older file gains
// it without a schema change, and an older binary ignores it.
var bCounters = []byte("shared_counters")

// allBuckets is created at open.
var allBuckets = [][]byte{
	bMeta, bCounts,
	bOrgs, bOrgsSlug,
	bMembers, bMembersEmail, bMembersOrg, bDashSessions, bDashSessMem, bMailTokens, bChallenges,
	bApps, bAppsOrg, bAppsSlug, bAppsPubKey,
	bAPIKeys, bAPIKeysOrg, bAPIKeysHash,
	bSecrets, bSecretsApp, bSecretsHash,
	bEnts, bEntsApp, bEntsKey,
	bPlans, bPlansApp,
	bLicenses, bLicKey, bLicEnv, bLicEnvStatus, bLicEnvPlan, bLicEnvPlanStatus, bLicExpiry,
	bEndUsers, bEndUsersEnv, bEndUsersEnvStatus, bEndUsersEmail,
	bDevices, bDevicesEnv, bDevicesEnvStatus, bDevicesFP,
	bSessions, bSessionsRefresh, bSessionsUser, bSessionsDevice, bNonces,
	bAudit, bAuditEnv, bAuditEvent, bAuditOrg,
	bLicEnvUser, bUsage,
	bSubscriptions, bBillingTx, bBillingPending, bOnboarding,
	bPartnerAttempts, bPartnerIdentities,
	bHooks, bHooksApp, bHooksOrg, bDeliveries, bDelivHook, bDelivHookStatus, bDelivDue, bDelivDone, bAuditOrgEvent,
	bAuditTarget,
	bPartnerIdentitiesMember,
	bOutbox, bOutboxScope, bDelivDueHook, bOutboxBodies,
	bLicDevices,
	bLeases, bLeasesLicense, bLeasesDevice, bLeasesExpiry,
	bCounters,
}

// Meta keys.
var (
	metaSchemaVersion = []byte("schema_version")
)
