package antibot

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"licensectl/store"
)

// clock is a settable test clock, anchored at the wall clock because
// MemoryUsedStore forgets keys by the wall clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func mustChallenger(tb testing.TB) (*Challenger, *clock) {
	tb.Helper()
	clk := &clock{t: time.Now()}
	c, err := NewChallenger("test-hmac-key", NewMemoryUsedStore(), clk.Now)
	if err != nil {
		tb.Fatalf("NewChallenger: %v", err)
	}
	c.MaxNumber = 1000 // keeps Solve fast
	return c, clk
}

func mustSolved(tb testing.TB, c *Challenger) (Challenge, string) {
	tb.Helper()
	ch, err := c.Create()
	if err != nil {
		tb.Fatalf("Create: %v", err)
	}
	p, err := Solve(ch)
	if err != nil {
		tb.Fatalf("Solve: %v", err)
	}
	return ch, p
}

func wantInvalid(tb testing.TB, err error, msg string) {
	tb.Helper()
	e := store.AsError(err)
	if e == nil || e.Code != store.ECodeValidation || e.Field != "altcha" {
		tb.Fatalf("got %v, want validation_failed on field altcha", err)
	}
	if !strings.Contains(e.Message, msg) {
		tb.Fatalf("got message %q, want it to contain %q", e.Message, msg)
	}
}

func TestNewChallengerErrEmptyKey(t *testing.T) {
	if c, err := NewChallenger("", NewMemoryUsedStore(), nil); err == nil {
		t.Fatalf("NewChallenger with empty key = %v, nil; want an error", c)
	}
	if c, err := NewChallenger("k", nil, nil); err == nil {
		t.Fatalf("NewChallenger without a used store = %v, nil; want an error", c)
	}
}

func TestCreate(t *testing.T) {
	c, clk := mustChallenger(t)
	c.MaxNumber = 0 // the production default
	ch, err := c.Create()
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	// Without HTML escaping, as the widget's own JSON would be; with it the
	// "&" becomes \u0026, which decodes the same.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ch); err != nil {
		t.Fatal(err)
	}
	raw := bytes.TrimSpace(buf.Bytes())
	shape := regexp.MustCompile(`^\{"algorithm":"SHA-256","challenge":"[0-9a-f]{64}","maxNumber":100000,"salt":"[0-9a-f]{24}\?expires=(\d+)&","signature":"[0-9a-f]{64}"\}$`)
	m := shape.FindStringSubmatch(string(raw))
	if m == nil {
		t.Fatalf("got %s, want %s", raw, shape)
	}
	if want := clk.Now().Add(ChallengeTTL).Unix(); m[1] != itoa(want) {
		t.Errorf("got expires=%s, want %d (now + 10 min)", m[1], want)
	}
	// The production difficulty stays cheap enough for Solve in tests.
	p, err := Solve(ch)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	if err := c.Verify(context.Background(), p); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	other, _ := c.Create()
	if other.Salt == ch.Salt || other.Signature == ch.Signature {
		t.Error("two challenges share salt or signature")
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestVerify(t *testing.T) {
	ctx := context.Background()

	t.Run("OKOnceThenErrUsed", func(t *testing.T) {
		c, _ := mustChallenger(t)
		_, p := mustSolved(t, c)
		if err := c.Verify(ctx, p); err != nil {
			t.Fatalf("first Verify: %v", err)
		}
		wantInvalid(t, c.Verify(ctx, p), "already used")
	})

	t.Run("OKOnceUnderConcurrency", func(t *testing.T) {
		c, _ := mustChallenger(t)
		_, p := mustSolved(t, c)
		const n = 8
		errs := make(chan error, n)
		for range n {
			go func() { errs <- c.Verify(ctx, p) }()
		}
		accepted := 0
		for range n {
			if err := <-errs; err == nil {
				accepted++
			} else {
				wantInvalid(t, err, "already used")
			}
		}
		if accepted != 1 {
			t.Fatalf("%d concurrent submissions accepted, want 1", accepted)
		}
	})

	t.Run("OKNearExpiry", func(t *testing.T) {
		c, clk := mustChallenger(t)
		_, p := mustSolved(t, c)
		clk.Add(ChallengeTTL - 2*time.Second)
		if err := c.Verify(ctx, p); err != nil {
			t.Fatalf("Verify just before expiry: %v", err)
		}
	})

	t.Run("ErrExpired", func(t *testing.T) {
		c, clk := mustChallenger(t)
		_, p := mustSolved(t, c)
		clk.Add(ChallengeTTL + time.Second)
		wantInvalid(t, c.Verify(ctx, p), "expired")
	})

	t.Run("ErrTamperedNumber", func(t *testing.T) {
		c, _ := mustChallenger(t)
		_, p := mustSolved(t, c)
		wantInvalid(t, c.Verify(ctx, edit(t, p, func(m map[string]any) {
			m["number"] = m["number"].(float64) + 1
		})), "not solved")
		// The untouched solution is still good: a failed attempt spends nothing.
		if err := c.Verify(ctx, p); err != nil {
			t.Fatalf("Verify of the genuine payload after a tampered one: %v", err)
		}
	})

	t.Run("ErrExtendedExpiry", func(t *testing.T) {
		c, clk := mustChallenger(t)
		_, p := mustSolved(t, c)
		clk.Add(ChallengeTTL + time.Second)
		wantInvalid(t, c.Verify(ctx, edit(t, p, func(m map[string]any) {
			salt := m["salt"].(string)
			m["salt"] = salt[:strings.Index(salt, "=")+1] + itoa(clk.Now().Add(time.Hour).Unix()) + "&"
		})), "not solved")
	})

	t.Run("ErrOtherKey", func(t *testing.T) {
		c, _ := mustChallenger(t)
		other, err := NewChallenger("another-key", NewMemoryUsedStore(), nil)
		if err != nil {
			t.Fatal(err)
		}
		other.MaxNumber = 1000
		_, p := mustSolved(t, other)
		wantInvalid(t, c.Verify(ctx, p), "not solved")
	})

	t.Run("ErrNoExpiry", func(t *testing.T) {
		c, _ := mustChallenger(t)
		_, p := mustSolved(t, c)
		wantInvalid(t, c.Verify(ctx, edit(t, p, func(m map[string]any) {
			m["salt"] = "0123456789abcdef01234567&"
		})), "malformed")
	})

	t.Run("ErrAlgorithm", func(t *testing.T) {
		c, _ := mustChallenger(t)
		_, p := mustSolved(t, c)
		wantInvalid(t, c.Verify(ctx, edit(t, p, func(m map[string]any) {
			m["algorithm"] = "SHA-1"
		})), "SHA-256")
	})

	t.Run("ErrMalformed", func(t *testing.T) {
		c, _ := mustChallenger(t)
		for _, p := range []string{"", "not base64!", base64.StdEncoding.EncodeToString([]byte("{")), strings.Repeat("A", maxPayload+4)} {
			wantInvalid(t, c.Verify(ctx, p), "malformed")
		}
	})
}

// edit decodes payload p, lets f change it and encodes it again.
func edit(tb testing.TB, p string, f func(map[string]any)) string {
	tb.Helper()
	raw, err := base64.StdEncoding.DecodeString(p)
	if err != nil {
		tb.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(raw, &m); err != nil {
		tb.Fatal(err)
	}
	f(m)
	raw, err = json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(raw)
}

func TestMemoryUsedStore(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	s := NewMemoryUsedStore()
	s.now = func() time.Time { return now }

	for i, want := range []bool{true, false, false} {
		got, err := s.UseOnce(ctx, "sig", now.Add(time.Minute))
		if err != nil || got != want {
			t.Fatalf("UseOnce #%d = %v, %v; want %v, nil", i+1, got, err, want)
		}
	}
	if first, _ := s.UseOnce(ctx, "other", now.Add(time.Minute)); !first {
		t.Fatal("UseOnce of a new key = false, want true")
	}

	now = now.Add(2 * time.Minute) // both keys expired, a sweep is due
	if first, _ := s.UseOnce(ctx, "third", now.Add(time.Minute)); !first {
		t.Fatal("UseOnce of a new key = false, want true")
	}
	if got := s.Len(); got != 1 {
		t.Fatalf("got %d keys after the sweep, want 1", got)
	}
}
