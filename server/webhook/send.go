package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"licensectl/store"
)

// maxAnswer is how much of a receiver's answer is read; the rest is dropped
// so that a receiver cannot hold a worker by streaming.
const maxAnswer = 64 << 10

// Sender signs and posts deliveries.
type Sender struct {
	Client    *http.Client
	UserAgent string
	Now       store.Clock
}

// Send makes one attempt of job. The outcome's status is 0 when no answer
// came (refused dial, timeout, bad secret), and its Error says why; it never
// returns an error, because every failure is an outcome to record. Latency
// is wall time whatever clock stamps the attempt.
func (s *Sender) Send(ctx context.Context, job *store.DeliveryJob) (a store.Attempt) {
	now := s.Now()
	a.At = now
	start := time.Now()
	defer func() { a.Latency = time.Since(start) }()
	req, err := s.request(ctx, job, now)
	if err != nil {
		a.Error = err.Error()
		return a
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		var ne net.Error
		a.Error, a.TimedOut = err.Error(), errors.As(err, &ne) && ne.Timeout()
		return a
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	resp.Body.Close()
	a.Status = resp.StatusCode
	return a
}

// request builds the signed POST of docs/design.md §9: the delivery id as
// webhook-id on every attempt, the attempt's unix time, and the v1 signature.
func (s *Sender) request(ctx context.Context, job *store.DeliveryJob, now time.Time) (*http.Request, error) {
	wh, err := standardwebhooks.NewWebhook(job.Secret)
	if err != nil {
		return nil, fmt.Errorf("webhook secret: %w", err)
	}
	sig, err := wh.Sign(job.Delivery.ID, now, job.Delivery.Body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, job.URL, bytes.NewReader(job.Delivery.Body))
	if err != nil {
		return nil, err
	}
	h := req.Header
	h.Set("webhook-id", job.Delivery.ID)
	h.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	h.Set("webhook-signature", sig)
	h.Set("content-type", "application/json")
	h.Set("user-agent", s.UserAgent)
	return req, nil
}
