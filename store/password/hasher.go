package password

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/alexedwards/argon2id"

	"licensectl/store"
)

// DefaultParams are the OWASP argon2id parameters (m=19 MiB, t=2, p=1).
// argon2id's own defaults are heavier (64 MiB, p=NumCPU) and would let a
// modest login flood take gigabytes, so they are not used.
//
// DefaultParams is returned by value so that no caller can change the
// parameters every other Hasher relies on.
func DefaultParams() argon2id.Params {
	return argon2id.Params{
		Memory:      19 * 1024,
		Iterations:  2,
		Parallelism: 1,
		SaltLength:  16,
		KeyLength:   32,
	}
}

// DefaultMaxWait is how long a caller queues for a hashing slot before it
// gets rate_limited (docs/design.md §8: "a request that waits over 2 s gets 429").
const DefaultMaxWait = 2 * time.Second

// Options configures a Hasher. The zero value is the production setting.
type Options struct {
	// Concurrency bounds the hashes running at once; 0 means runtime.NumCPU().
	Concurrency int
	// MaxWait bounds the wait for a free slot; 0 means DefaultMaxWait.
	MaxWait time.Duration
	// Params are used for new hashes and for the dummy hash of VerifyUnknown;
	// nil means DefaultParams(). Verify always uses the parameters recorded in
	// the encoded hash, so changing Params does not invalidate stored hashes.
	Params *argon2id.Params
}

// Hasher hashes and verifies passwords with a bounded number of argon2id
// computations in flight. It is safe for concurrent use.
type Hasher struct {
	params  argon2id.Params
	maxWait time.Duration
	slots   chan struct{}

	dummyOnce sync.Once
	dummy     string
	dummyErr  error
}

// NewHasher returns a Hasher configured by opts (zero fields take defaults).
func NewHasher(opts Options) *Hasher {
	h := &Hasher{params: DefaultParams(), maxWait: opts.MaxWait}
	if opts.Params != nil {
		h.params = *opts.Params
	}
	if h.maxWait <= 0 {
		h.maxWait = DefaultMaxWait
	}
	n := opts.Concurrency
	if n <= 0 {
		n = runtime.NumCPU()
	}
	h.slots = make(chan struct{}, n)
	return h
}

// Hash returns the PHC-encoded argon2id hash of plain.
// Returns rate_limited when no slot frees up within MaxWait, or ctx.Err()
// when ctx ends first.
func (h *Hasher) Hash(ctx context.Context, plain string) (string, error) {
	release, err := h.acquire(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return argon2id.CreateHash(plain, &h.params)
}

// Verify reports whether plain matches the encoded hash. A mismatch is
// (false, nil); an error means the hash could not be checked at all: a
// malformed stored hash, rate_limited, or ctx.Err().
func (h *Hasher) Verify(ctx context.Context, plain, encoded string) (bool, error) {
	release, err := h.acquire(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	return argon2id.ComparePasswordAndHash(plain, encoded)
}

// VerifyUnknown does the work of a failing Verify without an account to
// verify against, so that a login for an unknown e-mail takes as long as a
// wrong password and the response time does not reveal which addresses are
// registered. It returns only the errors Verify would (rate_limited,
// ctx.Err(), or an internal failure), never a result.
func (h *Hasher) VerifyUnknown(ctx context.Context, plain string) error {
	release, err := h.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	// The dummy hash is made inside the slot so that even the first call
	// stays within the concurrency bound.
	h.dummyOnce.Do(func() {
		h.dummy, h.dummyErr = argon2id.CreateHash("licensectl-unknown-account", &h.params)
	})
	if h.dummyErr != nil {
		return h.dummyErr
	}
	_, err = argon2id.ComparePasswordAndHash(plain, h.dummy)
	return err
}

// acquire takes a hashing slot and returns its release function.
func (h *Hasher) acquire(ctx context.Context) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	release := func() { <-h.slots }
	select {
	case h.slots <- struct{}{}:
		return release, nil
	default:
	}
	t := time.NewTimer(h.maxWait)
	defer t.Stop()
	select {
	case h.slots <- struct{}{}:
		return release, nil
	case <-t.C:
		return nil, &store.Error{
			Code:       store.ECodeRateLimited,
			Message:    "too many password operations; retry shortly",
			RetryAfter: 1,
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
