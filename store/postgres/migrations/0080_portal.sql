-- The self-service portal's tokens are mail tokens whose subject is an
-- end-user: the one-time sign-in link and the browser's session.
ALTER TABLE mail_tokens DROP CONSTRAINT mail_tokens_purpose_check;
ALTER TABLE mail_tokens ADD CONSTRAINT mail_tokens_purpose_check
	CHECK (purpose IN ('verify_email', 'reset_password', 'portal_sign_in', 'portal_session'));
