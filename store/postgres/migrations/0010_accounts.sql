-- The accounts part (docs/design.md §12).

-- An account made by partner sign-in has no organization until it completes
-- its profile (CompleteProfile): its org_id is NULL meanwhile.
ALTER TABLE members ALTER COLUMN org_id DROP NOT NULL;

-- A mail token is spent once by one conditional UPDATE … WHERE used_at IS
-- NULL, so two servers presenting the same link cannot both spend it; a
-- spent token is kept until it expires, to say "already used".
ALTER TABLE mail_tokens ADD COLUMN used_at timestamptz;

-- The entries of such an account before it has an organization (its
-- partner link and sign-ins) belong to no organization's log.
ALTER TABLE audit ALTER COLUMN org_id DROP NOT NULL;
