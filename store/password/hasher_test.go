package password

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/alexedwards/argon2id"

	"licensectl/store"
)

// cheapParams keep tests fast; the production parameters are exercised once,
// in TestHasherDefaults.
var cheapParams = argon2id.Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLength: 16, KeyLength: 32}

func mustHasher(tb testing.TB, opts Options) *Hasher {
	tb.Helper()
	if opts.Params == nil {
		p := cheapParams
		opts.Params = &p
	}
	return NewHasher(opts)
}

func TestHasherRoundTrip(t *testing.T) {
	h := mustHasher(t, Options{})
	ctx := context.Background()
	const pw = "zebra-violin-parsnip-47"

	encoded, err := h.Hash(ctx, pw)
	if err != nil {
		t.Fatalf("Hash: %v", err)
	}
	if !strings.HasPrefix(encoded, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("got hash %q, want a PHC argon2id string with the configured params", encoded)
	}
	again, err := h.Hash(ctx, pw)
	if err != nil {
		t.Fatalf("Hash: %v", err)
	}
	if again == encoded {
		t.Error("two hashes of one password are equal, want distinct salts")
	}

	t.Run("OK", func(t *testing.T) {
		ok, err := h.Verify(ctx, pw, encoded)
		if err != nil || !ok {
			t.Fatalf("Verify(right) = %v, %v; want true, nil", ok, err)
		}
	})
	t.Run("WrongPassword", func(t *testing.T) {
		ok, err := h.Verify(ctx, pw+"x", encoded)
		if err != nil || ok {
			t.Fatalf("Verify(wrong) = %v, %v; want false, nil", ok, err)
		}
	})
	t.Run("MalformedHash", func(t *testing.T) {
		ok, err := h.Verify(ctx, pw, "not-a-hash")
		if err == nil || ok {
			t.Fatalf("Verify(malformed) = %v, %v; want false, error", ok, err)
		}
	})
	t.Run("VerifyUnknown", func(t *testing.T) {
		for range 2 { // the second call uses the cached dummy hash
			if err := h.VerifyUnknown(ctx, pw); err != nil {
				t.Fatalf("VerifyUnknown: %v", err)
			}
		}
	})
}

// TestHasherDefaults checks that the zero Options mean the OWASP parameters.
func TestHasherDefaults(t *testing.T) {
	h := NewHasher(Options{})
	if got, want := cap(h.slots), 1; got < want {
		t.Fatalf("got %d slots, want at least %d", got, want)
	}
	if h.maxWait != 2*time.Second {
		t.Errorf("got MaxWait %v, want 2s", h.maxWait)
	}
	encoded, err := h.Hash(context.Background(), "zebra-violin-parsnip-47")
	if err != nil {
		t.Fatalf("Hash: %v", err)
	}
	if !strings.HasPrefix(encoded, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("got hash %q, want m=19456,t=2,p=1", encoded)
	}
	p, salt, key, err := argon2id.DecodeHash(encoded)
	if err != nil {
		t.Fatalf("DecodeHash: %v", err)
	}
	if len(salt) != 16 || len(key) != 32 || p.SaltLength != 16 || p.KeyLength != 32 {
		t.Errorf("got salt %d key %d bytes, want 16 and 32", len(salt), len(key))
	}
	if err := h.VerifyUnknown(context.Background(), "anything at all"); err != nil {
		t.Errorf("VerifyUnknown: %v", err)
	}
	if h.dummy[:len("$argon2id$v=19$m=19456,t=2,p=1$")] != "$argon2id$v=19$m=19456,t=2,p=1$" {
		t.Errorf("got dummy hash %q, want the same params as real hashes", h.dummy)
	}
}

func TestHasherConcurrencyBound(t *testing.T) {
	h := mustHasher(t, Options{Concurrency: 1, MaxWait: 50 * time.Millisecond})
	ctx := context.Background()

	// Hold the only slot as a long-running hash would.
	release, err := h.acquire(ctx)
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}

	t.Run("ErrRateLimited", func(t *testing.T) {
		start := time.Now()
		_, err := h.Hash(ctx, "zebra-violin-parsnip-47")
		waited := time.Since(start)
		e := store.AsError(err)
		if e == nil || e.Code != store.ECodeRateLimited {
			t.Fatalf("Hash with no free slot = %v, want rate_limited", err)
		}
		if e.RetryAfter != 1 {
			t.Errorf("got RetryAfter %d, want 1", e.RetryAfter)
		}
		if e.Message != "too many password operations; retry shortly" {
			t.Errorf("got message %q", e.Message)
		}
		if waited < 50*time.Millisecond || waited > time.Second {
			t.Errorf("waited %v, want about MaxWait (50ms)", waited)
		}
		for name, f := range map[string]func() error{
			"Verify":        func() error { _, err := h.Verify(ctx, "x", "y"); return err },
			"VerifyUnknown": func() error { return h.VerifyUnknown(ctx, "x") },
		} {
			if got := store.ErrorCode(f()); got != store.ECodeRateLimited {
				t.Errorf("%s with no free slot: got code %q, want %q", name, got, store.ECodeRateLimited)
			}
		}
	})

	t.Run("ErrCanceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(ctx)
		go func() { time.Sleep(10 * time.Millisecond); cancel() }()
		h := mustHasher(t, Options{Concurrency: 1, MaxWait: time.Minute})
		hold, err := h.acquire(context.Background())
		if err != nil {
			t.Fatalf("acquire: %v", err)
		}
		defer hold()
		if _, err := h.Hash(ctx, "x"); !errors.Is(err, context.Canceled) {
			t.Fatalf("Hash after cancel = %v, want context.Canceled", err)
		}
	})

	t.Run("OKAfterRelease", func(t *testing.T) {
		done := make(chan error, 1)
		go func() {
			_, err := h.Hash(ctx, "zebra-violin-parsnip-47")
			done <- err
		}()
		time.Sleep(10 * time.Millisecond)
		release()
		if err := <-done; err != nil {
			t.Fatalf("Hash queued behind a released slot: %v", err)
		}
	})
}
