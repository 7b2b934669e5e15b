package antibot

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	altcha "github.com/altcha-org/altcha-lib-go"

	"licensectl/store"
)

// ChallengeTTL is how long a challenge may be solved and submitted.
const ChallengeTTL = 10 * time.Minute

// DefaultMaxNumber bounds the secret number of a challenge. A browser tries
// about half of it on average; 100,000 SHA-256 hashes take well under a
// second there, a cost felt only by someone signing up thousands of times.
const DefaultMaxNumber = 100_000

// maxPayload bounds the accepted payload before decoding it: a genuine one
// is about 300 bytes.
const maxPayload = 4096

// Algorithm is the only ALTCHA algorithm issued and accepted.
const Algorithm = "SHA-256"

// Challenge is what GET /v1/mgmt/auth/challenge returns, field for field the
// JSON that altcha-lib-go v1 emits, so the ALTCHA widget can consume it.
type Challenge struct {
	Algorithm string `json:"algorithm"`
	Challenge string `json:"challenge"`
	MaxNumber int64  `json:"maxNumber"`
	Salt      string `json:"salt"`
	Signature string `json:"signature"`
}

// payload is a solved challenge as the widget submits it, base64 of this
// JSON.
type payload struct {
	Algorithm string `json:"algorithm"`
	Challenge string `json:"challenge"`
	Number    int64  `json:"number"`
	Salt      string `json:"salt"`
	Signature string `json:"signature"`
}

// UsedStore remembers which solved challenges were spent. The library keeps
// no such record, and without one a single solution could be replayed for
// every signup until it expires.
type UsedStore interface {
	// UseOnce records key until expires and reports whether this was the
	// first use of key. After expires the key may be forgotten: the
	// challenge it names is refused as expired anyway.
	UseOnce(ctx context.Context, key string, expires time.Time) (first bool, err error)
}

// Challenger issues ALTCHA challenges and verifies their solutions.
type Challenger struct {
	// MaxNumber bounds the secret number of new challenges: the work a
	// client does. Zero means DefaultMaxNumber; tests lower it.
	MaxNumber int64

	hmacKey string
	used    UsedStore
	now     func() time.Time
}

// NewChallenger returns a Challenger signing with hmacKey and remembering
// spent solutions in used. now is the clock (nil means time.Now).
// An empty key is refused: the signature is what stops clients from making
// up their own easy challenges.
func NewChallenger(hmacKey string, used UsedStore, now func() time.Time) (*Challenger, error) {
	if hmacKey == "" {
		return nil, errors.New("antibot: empty ALTCHA HMAC key")
	}
	if used == nil {
		return nil, errors.New("antibot: no store for used challenges")
	}
	if now == nil {
		now = time.Now
	}
	return &Challenger{hmacKey: hmacKey, used: used, now: now}, nil
}

// Create returns a new challenge expiring ChallengeTTL from now. The expiry
// travels in the salt (as "?expires=<unix seconds>"), which the signature
// covers, so the client cannot extend it.
func (c *Challenger) Create() (Challenge, error) {
	maxNumber := c.MaxNumber
	if maxNumber <= 0 {
		maxNumber = DefaultMaxNumber
	}
	expires := c.now().Add(ChallengeTTL)
	ch, err := altcha.CreateChallenge(altcha.ChallengeOptions{
		Algorithm: altcha.SHA256,
		MaxNumber: maxNumber,
		HMACKey:   c.hmacKey,
		Expires:   &expires,
	})
	if err != nil {
		return Challenge{}, fmt.Errorf("antibot: create challenge: %w", err)
	}
	return Challenge(ch), nil
}

// Verify accepts the base64 payload of a solved challenge once.
// Returns validation_failed on field "altcha" when the payload is malformed,
// wrongly solved, not signed by this key, expired, or already used; any
// other error comes from the UsedStore.
func (c *Challenger) Verify(ctx context.Context, encoded string) error {
	p, err := decodePayload(encoded)
	if err != nil {
		return store.Invalid("altcha", "the anti-bot challenge answer is malformed; reload the form and try again")
	}
	if p.Algorithm != Algorithm {
		return store.Invalid("altcha", "the anti-bot challenge must use %s", Algorithm)
	}
	// The library checks expiry only when the salt carries one, and against
	// the wall clock; a challenge without expiry is not ours, and the
	// injected clock must rule so that tests can move time.
	expires, err := strconv.ParseInt(altcha.ExtractParams(altcha.Payload(p)).Get("expires"), 10, 64)
	if err != nil {
		return store.Invalid("altcha", "the anti-bot challenge answer is malformed; reload the form and try again")
	}
	expiry := time.Unix(expires, 0)
	if !c.now().Before(expiry) {
		return store.Invalid("altcha", "the anti-bot challenge expired; reload the form and try again")
	}
	ok, err := altcha.VerifySolutionSafe(altcha.Payload(p), c.hmacKey, false)
	if err != nil || !ok {
		return store.Invalid("altcha", "the anti-bot challenge was not solved; reload the form and try again")
	}
	// The signature names the challenge: it is the HMAC of the challenge
	// hash, which covers salt and number, so each challenge has exactly one.
	first, err := c.used.UseOnce(ctx, p.Signature, expiry)
	if err != nil {
		return fmt.Errorf("antibot: record used challenge: %w", err)
	}
	if !first {
		return store.Invalid("altcha", "the anti-bot challenge was already used; reload the form and try again")
	}
	return nil
}

func decodePayload(encoded string) (payload, error) {
	var p payload
	if len(encoded) > maxPayload {
		return p, errors.New("payload too long")
	}
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return p, err
	}
	err = json.Unmarshal(raw, &p)
	return p, err
}

// Solve finds the number that solves c and returns the base64 payload a
// browser would submit. It does the client's work, for tests of the signup
// flow and for scripted signups against one's own server.
func Solve(c Challenge) (string, error) {
	sol, err := altcha.SolveChallenge(c.Challenge, c.Salt, altcha.Algorithm(c.Algorithm), int(c.MaxNumber), 0, nil)
	if err != nil {
		return "", fmt.Errorf("antibot: solve: %w", err)
	}
	if sol == nil {
		return "", errors.New("antibot: challenge has no solution up to maxNumber")
	}
	raw, err := json.Marshal(payload{
		Algorithm: c.Algorithm,
		Challenge: c.Challenge,
		Number:    int64(sol.Number),
		Salt:      c.Salt,
		Signature: c.Signature,
	})
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(raw), nil
}
