-- What the store promises, stated to PostgreSQL (docs/design.md §11): every
-- reference names an existing row, every status is one of its values
-- (package store: store/status.go, the status constants), no count is
-- negative. The application holds these rules already; the database now
-- refuses a write that breaks them, whoever makes it.
--
-- Foreign keys are DEFERRABLE INITIALLY DEFERRED with no ON DELETE action:
-- the store's delete paths (the purge of an application, the removal of a
-- member, of a webhook endpoint, of a device binding) remove the children
-- themselves in the same transaction, in an order of their own, and the
-- check at commit proves that they left nothing behind. Left without a key:
-- the audit log and the outbox events of an application, which outlive it
-- on purpose; a licence's plan, which may be deleted once its licences are
-- all revoked or banned (they stay, naming it); mail tokens and partner identities, which the removal of a
-- member leaves to expire or to be linked again; outbox bodies, shared by
-- deliveries and dropped with the last.
--
-- Each rule is added NOT VALID (no scan, a brief lock) and validated once
-- at the end (one scan per rule, under a lock that lets reads and writes
-- go on). A database that breaks a rule fails its validation; the
-- migration is then rolled back whole and Open names the rows that break
-- each rule (db.go: diagnoseConstraints), so the lines between here and
-- the VALIDATE statements must stay free of them.

-- References.
ALTER TABLE apps ADD CONSTRAINT apps_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE app_envs ADD CONSTRAINT app_envs_app_id_fkey FOREIGN KEY (app_id) REFERENCES apps (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE entitlements ADD CONSTRAINT entitlements_app_id_fkey FOREIGN KEY (app_id) REFERENCES apps (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE plans ADD CONSTRAINT plans_app_id_fkey FOREIGN KEY (app_id) REFERENCES apps (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE licenses ADD CONSTRAINT licenses_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE licenses ADD CONSTRAINT licenses_app_id_fkey FOREIGN KEY (app_id) REFERENCES apps (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE licenses ADD CONSTRAINT licenses_env_id_fkey FOREIGN KEY (env_id) REFERENCES app_envs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE licenses ADD CONSTRAINT licenses_user_id_fkey FOREIGN KEY (user_id) REFERENCES end_users (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE end_users ADD CONSTRAINT end_users_app_id_fkey FOREIGN KEY (app_id) REFERENCES apps (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE end_users ADD CONSTRAINT end_users_env_id_fkey FOREIGN KEY (env_id) REFERENCES app_envs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE devices ADD CONSTRAINT devices_app_id_fkey FOREIGN KEY (app_id) REFERENCES apps (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE devices ADD CONSTRAINT devices_env_id_fkey FOREIGN KEY (env_id) REFERENCES app_envs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE license_devices ADD CONSTRAINT license_devices_license_id_fkey FOREIGN KEY (license_id) REFERENCES licenses (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE license_devices ADD CONSTRAINT license_devices_device_id_fkey FOREIGN KEY (device_id) REFERENCES devices (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE sessions ADD CONSTRAINT sessions_app_id_fkey FOREIGN KEY (app_id) REFERENCES apps (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE sessions ADD CONSTRAINT sessions_env_id_fkey FOREIGN KEY (env_id) REFERENCES app_envs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE sessions ADD CONSTRAINT sessions_license_id_fkey FOREIGN KEY (license_id) REFERENCES licenses (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE sessions ADD CONSTRAINT sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES end_users (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE sessions ADD CONSTRAINT sessions_device_id_fkey FOREIGN KEY (device_id) REFERENCES devices (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE leases ADD CONSTRAINT leases_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE leases ADD CONSTRAINT leases_app_id_fkey FOREIGN KEY (app_id) REFERENCES apps (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE leases ADD CONSTRAINT leases_env_id_fkey FOREIGN KEY (env_id) REFERENCES app_envs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE leases ADD CONSTRAINT leases_license_id_fkey FOREIGN KEY (license_id) REFERENCES licenses (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE leases ADD CONSTRAINT leases_device_id_fkey FOREIGN KEY (device_id) REFERENCES devices (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE runtime_usage ADD CONSTRAINT runtime_usage_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE webhooks ADD CONSTRAINT webhooks_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE webhooks ADD CONSTRAINT webhooks_app_id_fkey FOREIGN KEY (app_id) REFERENCES apps (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_app_id_fkey FOREIGN KEY (app_id) REFERENCES apps (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES webhooks (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE members ADD CONSTRAINT members_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE dashboard_sessions ADD CONSTRAINT dashboard_sessions_member_id_fkey FOREIGN KEY (member_id) REFERENCES members (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE onboarding ADD CONSTRAINT onboarding_member_id_fkey FOREIGN KEY (member_id) REFERENCES members (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE app_secrets ADD CONSTRAINT app_secrets_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE app_secrets ADD CONSTRAINT app_secrets_app_id_fkey FOREIGN KEY (app_id) REFERENCES apps (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE nonces ADD CONSTRAINT nonces_env_id_fkey FOREIGN KEY (env_id) REFERENCES app_envs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE billing_transactions ADD CONSTRAINT billing_transactions_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) DEFERRABLE INITIALLY DEFERRED NOT VALID;

-- Values.
ALTER TABLE apps ADD CONSTRAINT apps_status_check CHECK (status IN ('active', 'disabled')) NOT VALID;
ALTER TABLE app_envs ADD CONSTRAINT app_envs_name_check CHECK (name IN ('production', 'development')) NOT VALID;
ALTER TABLE licenses ADD CONSTRAINT licenses_status_check CHECK (status IN ('inactive', 'active', 'expired', 'suspended', 'revoked', 'banned')) NOT VALID;
ALTER TABLE licenses ADD CONSTRAINT licenses_devices_count_check CHECK (devices_count >= 0) NOT VALID;
ALTER TABLE end_users ADD CONSTRAINT end_users_status_check CHECK (status IN ('active', 'banned', 'disabled')) NOT VALID;
ALTER TABLE devices ADD CONSTRAINT devices_status_check CHECK (status IN ('active', 'blocked')) NOT VALID;
ALTER TABLE webhooks ADD CONSTRAINT webhooks_status_check CHECK (status IN ('active', 'disabled')) NOT VALID;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'delivered', 'failed')) NOT VALID;
ALTER TABLE billing_transactions ADD CONSTRAINT billing_transactions_status_check CHECK (status IN ('pending', 'paid', 'expired')) NOT VALID;
ALTER TABLE members ADD CONSTRAINT members_role_check CHECK (role IN ('owner', 'admin', 'developer', 'viewer') OR (role = '' AND org_id IS NULL)) NOT VALID;
ALTER TABLE mail_tokens ADD CONSTRAINT mail_tokens_purpose_check CHECK (purpose IN ('verify_email', 'reset_password')) NOT VALID;
ALTER TABLE runtime_usage ADD CONSTRAINT runtime_usage_requests_check CHECK (requests >= 0) NOT VALID;
ALTER TABLE shared_counters ADD CONSTRAINT shared_counters_n_check CHECK (n >= 0) NOT VALID;
ALTER TABLE audit ADD CONSTRAINT audit_env_ids_check CHECK (cardinality(env_ids) <= 2) NOT VALID;

-- Validation, once per rule.
ALTER TABLE apps VALIDATE CONSTRAINT apps_org_id_fkey;
ALTER TABLE app_envs VALIDATE CONSTRAINT app_envs_app_id_fkey;
ALTER TABLE entitlements VALIDATE CONSTRAINT entitlements_app_id_fkey;
ALTER TABLE plans VALIDATE CONSTRAINT plans_app_id_fkey;
ALTER TABLE licenses VALIDATE CONSTRAINT licenses_org_id_fkey;
ALTER TABLE licenses VALIDATE CONSTRAINT licenses_app_id_fkey;
ALTER TABLE licenses VALIDATE CONSTRAINT licenses_env_id_fkey;
ALTER TABLE licenses VALIDATE CONSTRAINT licenses_user_id_fkey;
ALTER TABLE end_users VALIDATE CONSTRAINT end_users_app_id_fkey;
ALTER TABLE end_users VALIDATE CONSTRAINT end_users_env_id_fkey;
ALTER TABLE devices VALIDATE CONSTRAINT devices_app_id_fkey;
ALTER TABLE devices VALIDATE CONSTRAINT devices_env_id_fkey;
ALTER TABLE license_devices VALIDATE CONSTRAINT license_devices_license_id_fkey;
ALTER TABLE license_devices VALIDATE CONSTRAINT license_devices_device_id_fkey;
ALTER TABLE sessions VALIDATE CONSTRAINT sessions_app_id_fkey;
ALTER TABLE sessions VALIDATE CONSTRAINT sessions_env_id_fkey;
ALTER TABLE sessions VALIDATE CONSTRAINT sessions_license_id_fkey;
ALTER TABLE sessions VALIDATE CONSTRAINT sessions_user_id_fkey;
ALTER TABLE sessions VALIDATE CONSTRAINT sessions_device_id_fkey;
ALTER TABLE leases VALIDATE CONSTRAINT leases_org_id_fkey;
ALTER TABLE leases VALIDATE CONSTRAINT leases_app_id_fkey;
ALTER TABLE leases VALIDATE CONSTRAINT leases_env_id_fkey;
ALTER TABLE leases VALIDATE CONSTRAINT leases_license_id_fkey;
ALTER TABLE leases VALIDATE CONSTRAINT leases_device_id_fkey;
ALTER TABLE runtime_usage VALIDATE CONSTRAINT runtime_usage_org_id_fkey;
ALTER TABLE webhooks VALIDATE CONSTRAINT webhooks_org_id_fkey;
ALTER TABLE webhooks VALIDATE CONSTRAINT webhooks_app_id_fkey;
ALTER TABLE webhook_deliveries VALIDATE CONSTRAINT webhook_deliveries_org_id_fkey;
ALTER TABLE webhook_deliveries VALIDATE CONSTRAINT webhook_deliveries_app_id_fkey;
ALTER TABLE webhook_deliveries VALIDATE CONSTRAINT webhook_deliveries_webhook_id_fkey;
ALTER TABLE outbox_events VALIDATE CONSTRAINT outbox_events_org_id_fkey;
ALTER TABLE members VALIDATE CONSTRAINT members_org_id_fkey;
ALTER TABLE subscriptions VALIDATE CONSTRAINT subscriptions_org_id_fkey;
ALTER TABLE dashboard_sessions VALIDATE CONSTRAINT dashboard_sessions_member_id_fkey;
ALTER TABLE onboarding VALIDATE CONSTRAINT onboarding_member_id_fkey;
ALTER TABLE api_keys VALIDATE CONSTRAINT api_keys_org_id_fkey;
ALTER TABLE app_secrets VALIDATE CONSTRAINT app_secrets_org_id_fkey;
ALTER TABLE app_secrets VALIDATE CONSTRAINT app_secrets_app_id_fkey;
ALTER TABLE nonces VALIDATE CONSTRAINT nonces_env_id_fkey;
ALTER TABLE billing_transactions VALIDATE CONSTRAINT billing_transactions_org_id_fkey;
ALTER TABLE apps VALIDATE CONSTRAINT apps_status_check;
ALTER TABLE app_envs VALIDATE CONSTRAINT app_envs_name_check;
ALTER TABLE licenses VALIDATE CONSTRAINT licenses_status_check;
ALTER TABLE licenses VALIDATE CONSTRAINT licenses_devices_count_check;
ALTER TABLE end_users VALIDATE CONSTRAINT end_users_status_check;
ALTER TABLE devices VALIDATE CONSTRAINT devices_status_check;
ALTER TABLE webhooks VALIDATE CONSTRAINT webhooks_status_check;
ALTER TABLE webhook_deliveries VALIDATE CONSTRAINT webhook_deliveries_status_check;
ALTER TABLE billing_transactions VALIDATE CONSTRAINT billing_transactions_status_check;
ALTER TABLE members VALIDATE CONSTRAINT members_role_check;
ALTER TABLE mail_tokens VALIDATE CONSTRAINT mail_tokens_purpose_check;
ALTER TABLE runtime_usage VALIDATE CONSTRAINT runtime_usage_requests_check;
ALTER TABLE shared_counters VALIDATE CONSTRAINT shared_counters_n_check;
ALTER TABLE audit VALIDATE CONSTRAINT audit_env_ids_check;
