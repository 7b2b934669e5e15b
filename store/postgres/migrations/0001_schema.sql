-- The tables every part of the store shares. A record's key and every column
-- a query filters, orders or constrains on is a column; the rest of the
-- record is its doc (json, not jsonb: kept byte for byte, so a plan's
-- policies read back verbatim). Ids are UUIDv7, so ordering by id is
-- ordering by creation (newest first = ORDER BY id DESC). Counts are
-- count(*) over an index, never a kept counter that two servers would race on.

CREATE TABLE meta (
	name  text PRIMARY KEY,
	value bytea NOT NULL
);

CREATE TABLE orgs (
	id   uuid PRIMARY KEY,
	slug text NOT NULL CONSTRAINT orgs_slug_key UNIQUE,
	doc  json NOT NULL
);

CREATE TABLE apps (
	id     uuid PRIMARY KEY,
	org_id uuid NOT NULL,
	slug   text NOT NULL,
	status text NOT NULL,
	doc    json NOT NULL,
	CONSTRAINT apps_org_slug_key UNIQUE (org_id, slug)
);

-- An application's environments, for the runtime's one-query lookup by
-- public key (ResolveApp) and for scoping by environment id.
CREATE TABLE app_envs (
	id         uuid PRIMARY KEY,
	app_id     uuid NOT NULL,
	name       text NOT NULL,
	public_key text NOT NULL CONSTRAINT app_envs_public_key_key UNIQUE
);
CREATE INDEX app_envs_app ON app_envs (app_id);

CREATE TABLE entitlements (
	id     uuid PRIMARY KEY,
	app_id uuid NOT NULL,
	key    text NOT NULL,
	doc    json NOT NULL,
	CONSTRAINT entitlements_app_key_key UNIQUE (app_id, key)
);

CREATE TABLE plans (
	id     uuid PRIMARY KEY,
	app_id uuid NOT NULL,
	doc    json NOT NULL
);
CREATE INDEX plans_app ON plans (app_id, id);

CREATE TABLE licenses (
	id            uuid PRIMARY KEY,
	org_id        uuid NOT NULL,
	app_id        uuid NOT NULL,
	env_id        uuid NOT NULL,
	key           text NOT NULL CONSTRAINT licenses_key_key UNIQUE,
	plan_id       uuid NOT NULL,
	status        text NOT NULL,
	user_id       uuid,
	expires_at    timestamptz,
	-- devices_count is the number of rows in license_devices: kept here so
	-- that the license row lock taken by an activation covers the limit.
	devices_count integer NOT NULL DEFAULT 0,
	doc           json NOT NULL
);
CREATE INDEX licenses_env ON licenses (env_id, id);
CREATE INDEX licenses_env_status ON licenses (env_id, status, id);
CREATE INDEX licenses_env_plan ON licenses (env_id, plan_id, status, id);
CREATE INDEX licenses_env_user ON licenses (env_id, user_id) WHERE user_id IS NOT NULL;
CREATE INDEX licenses_org_status ON licenses (org_id, status);
CREATE INDEX licenses_expiry ON licenses (expires_at) WHERE expires_at IS NOT NULL AND status IN ('active', 'inactive');

CREATE TABLE end_users (
	id     uuid PRIMARY KEY,
	app_id uuid NOT NULL,
	env_id uuid NOT NULL,
	email  text NOT NULL,
	status text NOT NULL,
	doc    json NOT NULL,
	CONSTRAINT end_users_env_email_key UNIQUE (env_id, email)
);
CREATE INDEX end_users_env ON end_users (env_id, id);
CREATE INDEX end_users_env_status ON end_users (env_id, status, id);

CREATE TABLE devices (
	id          uuid PRIMARY KEY,
	app_id      uuid NOT NULL,
	env_id      uuid NOT NULL,
	fingerprint text NOT NULL,
	status      text NOT NULL,
	doc         json NOT NULL,
	CONSTRAINT devices_env_fingerprint_key UNIQUE (env_id, fingerprint)
);
CREATE INDEX devices_env ON devices (env_id, id);
CREATE INDEX devices_env_status ON devices (env_id, status, id);

-- The devices bound to a license: an index beside the license, never a
-- list inside it (docs/design.md §6).
CREATE TABLE license_devices (
	license_id uuid NOT NULL,
	device_id  uuid NOT NULL,
	bound_at   timestamptz NOT NULL,
	PRIMARY KEY (license_id, device_id)
);
CREATE INDEX license_devices_device ON license_devices (device_id);

-- Runtime sessions. Every field is a column: revocation by license, user
-- or device is one UPDATE, and the refresh winner one conditional UPDATE.
CREATE TABLE sessions (
	id                  uuid PRIMARY KEY,
	app_id              uuid NOT NULL,
	env_id              uuid NOT NULL,
	license_id          uuid,
	user_id             uuid,
	device_id           uuid NOT NULL,
	access_hash         text NOT NULL,
	refresh_hash        text NOT NULL,
	retired_refresh     text[] NOT NULL DEFAULT '{}',
	access_expires_at   timestamptz NOT NULL,
	refresh_expires_at  timestamptz NOT NULL,
	absolute_expires_at timestamptz NOT NULL,
	revoked_at          timestamptz,
	revoke_reason       text NOT NULL DEFAULT '',
	created_at          timestamptz NOT NULL,
	last_seen_at        timestamptz,
	rotated_at          timestamptz
);
CREATE INDEX sessions_license ON sessions (license_id) WHERE license_id IS NOT NULL;
CREATE INDEX sessions_user ON sessions (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX sessions_device ON sessions (device_id);
CREATE INDEX sessions_access ON sessions (access_hash);
CREATE INDEX sessions_refresh ON sessions (refresh_hash);
CREATE INDEX sessions_absolute ON sessions (absolute_expires_at);

-- Floating seats (docs/design.md §13).
CREATE TABLE leases (
	id          uuid PRIMARY KEY,
	org_id      uuid NOT NULL,
	app_id      uuid NOT NULL,
	env_id      uuid NOT NULL,
	license_id  uuid NOT NULL,
	device_id   uuid NOT NULL,
	fingerprint text NOT NULL,
	expires_at  timestamptz NOT NULL,
	created_at  timestamptz NOT NULL,
	CONSTRAINT leases_license_device_key UNIQUE (license_id, device_id)
);
CREATE INDEX leases_expiry ON leases (expires_at);

-- Runtime requests per organization and month, added to by every server:
-- the monthly usage is the sum over servers by construction.
CREATE TABLE runtime_usage (
	org_id   uuid NOT NULL,
	month    text NOT NULL,
	requests bigint NOT NULL,
	PRIMARY KEY (org_id, month)
);

CREATE TABLE webhooks (
	id     uuid PRIMARY KEY,
	org_id uuid NOT NULL,
	app_id uuid NOT NULL,
	status text NOT NULL,
	doc    json NOT NULL
);
CREATE INDEX webhooks_app ON webhooks (app_id, id);
CREATE INDEX webhooks_org ON webhooks (org_id, id);

-- The audit log. env_ids lists the environment logs that show an entry
-- (none: the organization's log); target_id its history.
CREATE TABLE audit (
	id         uuid PRIMARY KEY,
	org_id     uuid NOT NULL,
	app_id     uuid,
	env_ids    uuid[] NOT NULL,
	event      text NOT NULL,
	target_id  text NOT NULL,
	created_at timestamptz NOT NULL,
	ip         text NOT NULL,
	user_agent text NOT NULL,
	doc        json NOT NULL
);
CREATE INDEX audit_envs ON audit USING gin (env_ids);
CREATE INDEX audit_org_level ON audit (org_id, created_at, id) WHERE cardinality(env_ids) = 0;
CREATE INDEX audit_target ON audit (target_id, created_at, id) WHERE target_id <> '';
CREATE INDEX audit_created ON audit (created_at);

-- Outbox events: one per change that an endpoint hears, written in the
-- change's transaction, expanded into deliveries by the dispatcher. body is
-- the payload byte for byte (bytea: signatures cover exactly these bytes).
CREATE TABLE outbox_events (
	id         uuid PRIMARY KEY,
	org_id     uuid NOT NULL,
	app_id     uuid,
	event      text NOT NULL,
	created_at timestamptz NOT NULL,
	body       bytea NOT NULL
);
CREATE INDEX outbox_events_scope ON outbox_events (org_id, app_id, id);

-- Dashboard members (every part counts them against a tier).
CREATE TABLE members (
	id     uuid PRIMARY KEY,
	org_id uuid NOT NULL,
	email  text NOT NULL CONSTRAINT members_email_key UNIQUE,
	role   text NOT NULL,
	doc    json NOT NULL
);
CREATE INDEX members_org ON members (org_id, id);

-- An organization's subscription; absent, the default one since the
-- organization's creation.
CREATE TABLE subscriptions (
	org_id uuid PRIMARY KEY,
	doc    json NOT NULL
);

CREATE TABLE dashboard_sessions (
	id         uuid PRIMARY KEY,
	member_id  uuid NOT NULL,
	expires_at timestamptz NOT NULL,
	doc        json NOT NULL
);
CREATE INDEX dashboard_sessions_member ON dashboard_sessions (member_id);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at);

-- E-mail tokens (verification, password reset) by the hash of the token.
CREATE TABLE mail_tokens (
	hash       bytea PRIMARY KEY,
	member_id  uuid NOT NULL,
	purpose    text NOT NULL,
	expires_at timestamptz NOT NULL,
	doc        json NOT NULL
);
CREATE INDEX mail_tokens_member ON mail_tokens (member_id);
CREATE INDEX mail_tokens_expiry ON mail_tokens (expires_at);

-- Anti-bot solutions spent: shared by every server, so one solution buys
-- one attempt in all.
CREATE TABLE used_challenges (
	hash       bytea PRIMARY KEY,
	expires_at timestamptz NOT NULL
);
CREATE INDEX used_challenges_expiry ON used_challenges (expires_at);

CREATE TABLE onboarding (
	member_id uuid PRIMARY KEY,
	doc       json NOT NULL
);

CREATE TABLE partner_attempts (
	hash       bytea PRIMARY KEY,
	expires_at timestamptz NOT NULL
);
CREATE INDEX partner_attempts_expiry ON partner_attempts (expires_at);

CREATE TABLE partner_identities (
	issuer    text NOT NULL,
	subject   text NOT NULL,
	member_id uuid NOT NULL,
	doc       json NOT NULL,
	PRIMARY KEY (issuer, subject)
);
CREATE INDEX partner_identities_member ON partner_identities (member_id);

CREATE TABLE api_keys (
	id     uuid PRIMARY KEY,
	org_id uuid NOT NULL,
	hash   text NOT NULL CONSTRAINT api_keys_hash_key UNIQUE,
	doc    json NOT NULL
);
CREATE INDEX api_keys_org ON api_keys (org_id, id);

CREATE TABLE app_secrets (
	id     uuid PRIMARY KEY,
	org_id uuid NOT NULL,
	app_id uuid NOT NULL,
	hash   text NOT NULL CONSTRAINT app_secrets_hash_key UNIQUE,
	doc    json NOT NULL
);
CREATE INDEX app_secrets_app ON app_secrets (app_id, id);

-- Runtime request nonces: used once per environment within the window
-- (primary key + INSERT … ON CONFLICT DO NOTHING); the sweeper deletes the
-- expired ones.
CREATE TABLE nonces (
	env_id     uuid NOT NULL,
	nonce      text NOT NULL,
	expires_at timestamptz NOT NULL,
	PRIMARY KEY (env_id, nonce)
);
CREATE INDEX nonces_expiry ON nonces (expires_at);

CREATE TABLE billing_transactions (
	id         uuid PRIMARY KEY,
	org_id     uuid NOT NULL,
	status     text NOT NULL,
	expires_at timestamptz NOT NULL,
	doc        json NOT NULL
);
CREATE INDEX billing_transactions_org ON billing_transactions (org_id, id);
CREATE INDEX billing_transactions_pending ON billing_transactions (expires_at) WHERE status = 'pending';

-- Webhook deliveries. A pending delivery of an active endpoint is due at
-- next_attempt_at; a server claims it by setting leased_until and
-- leased_by (… FOR UPDATE SKIP LOCKED), and another server sends it once
-- the lease has run out. body_of names the outbox event whose payload,
-- kept once in outbox_bodies, the deliveries of one event share.
CREATE TABLE webhook_deliveries (
	id              uuid PRIMARY KEY,
	org_id          uuid NOT NULL,
	app_id          uuid NOT NULL,
	webhook_id      uuid NOT NULL,
	status          text NOT NULL,
	next_attempt_at timestamptz,
	done_at         timestamptz,
	leased_until    timestamptz,
	leased_by       text NOT NULL DEFAULT '',
	body_of         uuid,
	body            bytea,
	doc             json NOT NULL
);
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (webhook_id, id);
CREATE INDEX webhook_deliveries_hook_status ON webhook_deliveries (webhook_id, status, id);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_done ON webhook_deliveries (done_at) WHERE done_at IS NOT NULL;

CREATE TABLE outbox_bodies (
	event_id uuid PRIMARY KEY,
	body     bytea NOT NULL
);
