package licensing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Lease is a floating seat this device holds (a plan with max_concurrent).
// A goroutine heartbeats it at a third of the plan's lease_seconds; Close
// releases it.
type Lease struct {
	// ID is the server's lease id.
	ID string
	// SeatsInUse and MaxConcurrent are the license's seats at checkout.
	SeatsInUse, MaxConcurrent int
	// Lost receives one error when the seat is gone: the server freed it
	// (support, a suspended license: lease_not_found, session_invalid) or
	// it ran out while the server could not be reached. Stop the licensed
	// work and take a new Lease when the user asks.
	Lost <-chan error

	c         *Client
	lost      chan error
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	mu        sync.Mutex
	expiresAt time.Time
}

// Lease takes a floating seat for this device's activation session, or
// extends the one it holds. Refusals are *Error: seats_exhausted (with
// RetryAfter, when the first seat frees), session_invalid.
func (c *Client) Lease(ctx context.Context) (*Lease, error) {
	now, err := c.checkClock()
	if err != nil {
		return nil, err
	}
	sess, err := c.fresh(ctx, now)
	if err != nil {
		return nil, err
	}
	var out struct {
		LeaseID       string    `json:"lease_id"`
		ExpiresAt     time.Time `json:"expires_at"`
		SeatsInUse    int       `json:"seats_in_use"`
		MaxConcurrent int       `json:"max_concurrent"`
	}
	a, err := c.call(ctx, http.MethodPost, "/v1/runtime/leases", nil, map[string]string{
		"timestamp": now.UTC().Format(time.RFC3339Nano), "nonce": newNonce(),
	}, sess.AccessToken, &out)
	if err != nil {
		return nil, err
	}
	// lease_seconds is the life the server gave, read off its own clock.
	life := out.ExpiresAt.Sub(a.created)
	every := max(life/3, time.Second)
	l := &Lease{ID: out.LeaseID, SeatsInUse: out.SeatsInUse, MaxConcurrent: out.MaxConcurrent, c: c,
		lost: make(chan error, 1), stop: make(chan struct{}), done: make(chan struct{}), expiresAt: time.Now().Add(life)}
	l.Lost = l.lost
	go l.heartbeat(every)
	return l, nil
}

func (l *Lease) heartbeat(every time.Duration) {
	defer close(l.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		err := l.beat(every)
		if err == nil {
			continue
		}
		switch code(err) {
		case "lease_not_found", "session_invalid", "refresh_token_reused":
			l.lost <- err
			return
		}
		l.mu.Lock()
		gone := !time.Now().Before(l.expiresAt)
		l.mu.Unlock()
		if gone {
			l.lost <- fmt.Errorf("licensing: the seat ran out without a heartbeat: %w", err)
			return
		}
	}
}

func (l *Lease) beat(every time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), every)
	defer cancel()
	sess, err := l.c.fresh(ctx, l.c.cfg.Now())
	if err != nil {
		return err
	}
	var out struct {
		ExpiresAt time.Time `json:"expires_at"`
	}
	a, err := l.c.call(ctx, http.MethodPost, "/v1/runtime/leases/"+url.PathEscape(l.ID)+"/heartbeat", nil, nil, sess.AccessToken, &out)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.expiresAt = time.Now().Add(out.ExpiresAt.Sub(a.created))
	l.mu.Unlock()
	return nil
}

// Close stops the heartbeat and releases the seat, freeing it at once for
// another device. A seat already lost is not an error.
func (l *Lease) Close() error {
	var err error
	l.closeOnce.Do(func() {
		close(l.stop)
		<-l.done
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		var sess *session
		if sess, err = l.c.fresh(ctx, l.c.cfg.Now()); err != nil {
			return
		}
		_, err = l.c.call(ctx, http.MethodDelete, "/v1/runtime/leases/"+url.PathEscape(l.ID), nil, nil, sess.AccessToken, nil)
		if code(err) == "lease_not_found" || errors.Is(err, errNoSession) {
			err = nil
		}
	})
	return err
}
