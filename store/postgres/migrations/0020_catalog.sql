-- The catalog part (docs/design.md §12): the audit logs read in order.
--
-- An environment's log is the entries whose env_ids hold it: its own
-- (one environment) and its application's (both). The GIN index of 0001
-- finds them but not in order, so a page would sort the whole log. These
-- index the first and the second environment of an entry apart, each in
-- (created_at, id) order, by event too; a page reads both as far as it
-- needs and merges them.
CREATE INDEX audit_env_first ON audit ((env_ids[1]), created_at, id);
CREATE INDEX audit_env_second ON audit ((env_ids[2]), created_at, id) WHERE cardinality(env_ids) = 2;
CREATE INDEX audit_env_first_event ON audit ((env_ids[1]), event, created_at, id);
CREATE INDEX audit_env_second_event ON audit ((env_ids[2]), event, created_at, id) WHERE cardinality(env_ids) = 2;
-- The organization's log by event.
CREATE INDEX audit_org_event ON audit (org_id, event, created_at, id) WHERE cardinality(env_ids) = 0;
