package store

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"
)

// A refresh token is `<session id>.<secret>` (docs/design.md §5): a refresh
// finds its session by the id. The secret is 32 random bytes and a tag,
// the first 16 bytes of an HMAC-SHA256 over `<session id>.<random>` keyed
// from the environment's signing key. The store keeps the hashes of a session's
// current token and of the few it retired last; the tag is what recognizes
// any older token the session ever had: a token that carries a valid tag
// for its session but is not the current one was issued to that session
// and retired since, so presenting it is reuse (and revokes the session),
// however many rotations ago it was retired. Without the tag the session id
// alone, which is public (the access token's `sid`), would let anyone end
// someone else's session.
//
// Tokens issued before the tag (the 32 bytes alone) carry none: they keep
// working, and reuse of one of them is recognized by its stored hash only.

const (
	refreshRandomSize = 32
	refreshTagSize    = 16
)

// NewRefreshRandom draws the random part of a refresh token, before the
// transaction that issues it (so that a rerun issues the same token).
func NewRefreshRandom() string {
	var b [refreshRandomSize]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// RefreshToken is the refresh token of session sessionID in env with the
// random part random (from NewRefreshRandom).
func RefreshToken(env *Environment, sessionID, random string) string {
	body := sessionID + "." + random
	return body + base64.RawURLEncoding.EncodeToString(refreshTag(env, body))
}

// RefreshTokenIssued reports whether token carries a valid tag of env for
// the session it names: env issued it to that session, current or retired.
func RefreshTokenIssued(env *Environment, token string) bool {
	sid, secret, ok := strings.Cut(token, ".")
	if !ok || sid == "" {
		return false
	}
	randLen := base64.RawURLEncoding.EncodedLen(refreshRandomSize)
	if len(secret) != randLen+base64.RawURLEncoding.EncodedLen(refreshTagSize) {
		return false
	}
	tag, err := base64.RawURLEncoding.Strict().DecodeString(secret[randLen:])
	if err != nil {
		return false
	}
	return hmac.Equal(tag, refreshTag(env, sid+"."+secret[:randLen]))
}

// RefreshState tells what a presented refresh token, hashed as hash, is to a
// session whose current token hashes to current and whose last retired
// ones to retired: its current token, or known (current, retired, or issued
// to it, per RefreshTokenIssued), or neither. The session id in a token is
// public, so the hashes are compared in constant time: anyone may name a
// session, only its holder knows a secret whose hash it stored.
func RefreshState(hash, current string, retired []string, issued bool) (isCurrent, known bool) {
	cur := subtle.ConstantTimeCompare([]byte(current), []byte(hash))
	old := 0
	for _, h := range retired {
		old |= subtle.ConstantTimeCompare([]byte(h), []byte(hash))
	}
	return cur == 1, cur == 1 || old == 1 || issued
}

// refreshTag is the tag of a token's body under env's key.
func refreshTag(env *Environment, body string) []byte {
	mac := hmac.New(sha256.New, refreshTagKey(env))
	mac.Write([]byte(body))
	return mac.Sum(nil)[:refreshTagSize]
}

// refreshTagKey is derived from the environment's signing key, which the
// store already keeps secret, so that no second secret needs keeping. A
// different label keeps the two uses apart.
func refreshTagKey(env *Environment) []byte {
	h := sha256.New()
	h.Write([]byte("licensectl refresh-token tag v1\x00"))
	if len(env.SigningKey) > 0 {
		h.Write(env.SigningKey.Seed())
	}
	h.Write([]byte(env.ID))
	return h.Sum(nil)
}
