package postgres

import (
	"licensectl/store"
)

// The state of a mail token is read by store.Service (MailTokenState) over
// the transaction's MailToken and Member.
var _ store.MailTokens = (*DB)(nil)
