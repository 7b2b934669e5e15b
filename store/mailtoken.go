package store

import "context"

// States of a token sent by mail, for pages that must say in plain words
// why a link no longer works.
const (
	TokenStateValid   = "valid"
	TokenStateUsed    = "used"
	TokenStateExpired = "expired"
	TokenStateUnknown = "unknown"
)

// MailTokens tells what became of a token sent by mail, without spending it.
type MailTokens interface {
	// MailTokenState returns one of the TokenState constants for a token of
	// purpose. A token of another purpose, or of a removed account, is
	// unknown.
	MailTokenState(ctx context.Context, token, purpose string) (string, error)
}
