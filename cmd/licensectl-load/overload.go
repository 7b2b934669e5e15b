package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// overloadOptions sets up the overload case (docs/design.md §14).
type overloadOptions struct {
	activators int           // connections activating at once
	validators int           // connections validating meanwhile
	serverPID  int           // read for the peak RSS when > 0
	queueWait  time.Duration // the server's max_queue_wait, for the report
	// pace is the time between one validator's validations; 0 validates
	// back to back.
	pace time.Duration
	// addrs > 0 sends every request with an X-Forwarded-For address
	// drawn from addrs addresses in 10.0.0.0/8, for a server that trusts
	// loopback as its proxy: a flood from many sources.
	addrs int
}

// overloadTally is what one side of the overload case observed.
type overloadTally struct {
	mu       sync.Mutex
	answered []time.Duration // 200s
	shed     []time.Duration // 503 overloaded
	other    int             // any other answer
	broken   int             // connections that failed without an answer
	limited  int             // 429 rate_limited (only with addrs)
	noRetry  int             // shed answers without Retry-After
	sample   string
}

func (t *overloadTally) add(status int, body []byte, retryAfter string, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case status == 200:
		t.answered = append(t.answered, d)
	case status == 503 && bytes.Contains(body, []byte(`"overloaded"`)):
		t.shed = append(t.shed, d)
		if retryAfter == "" {
			t.noRetry++
		}
	case status == 429 && bytes.Contains(body, []byte(`"rate_limited"`)):
		t.limited++
	default:
		t.other++
		if t.sample == "" {
			t.sample = strconv.Itoa(status) + " " + string(body)
		}
	}
}

// overload floods the server with activations of new devices over
// o.activators connections for the run's duration (no warm-up: the flood
// starting is part of what it measures) while o.validators connections
// validate sessions, then reports the answered activations' p50 and p99,
// the share shed with 503 overloaded, the slowest answer of any kind, the
// validations' p99 and the server's peak RSS.
func (b *bench) overload(act, val endpoint, o overloadOptions) error {
	b.phase++
	runID := b.runID + "p" + strconv.Itoa(b.phase)
	var acts, vals overloadTally
	ac, err := dialAll(b.addr(0), o.activators)
	if err != nil {
		return err
	}
	vc, err := dialAll(b.addr(0), o.validators)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	deadline := time.Now().Add(b.dur)
	loop := func(c *conn, id int, ep endpoint, t *overloadTally, pace time.Duration) {
		defer wg.Done()
		defer c.close()
		w := &worker{id: id, runID: runID, c: c, rng: rand.New(rand.NewPCG(uint64(id), uint64(time.Now().UnixNano())))}
		// Bounded in time: a server that never answers fails the run
		// instead of hanging it.
		_ = c.c.SetDeadline(deadline.Add(o.queueWait + 10*time.Second))
		next := time.Now()
		for time.Now().Before(deadline) {
			if pace > 0 {
				time.Sleep(time.Until(next))
				next = next.Add(pace)
			}
			req := ep.next(w)
			if o.addrs > 0 {
				a := w.rng.IntN(o.addrs)
				r := *req
				r.headers = append(slices.Clip(req.headers), "X-Forwarded-For: 10."+strconv.Itoa(a>>16&255)+"."+strconv.Itoa(a>>8&255)+"."+strconv.Itoa(a&255))
				req = &r
			}
			t0 := time.Now()
			status, body, err := c.roundTrip(req) // no redial: a broken connection is a finding
			if err != nil {
				t.mu.Lock()
				t.broken++
				t.mu.Unlock()
				return
			}
			t.add(status, body, c.retryAfter, time.Since(t0))
		}
	}
	for i, c := range ac {
		wg.Add(1)
		go loop(c, i, act, &acts, 0)
	}
	for i, c := range vc {
		wg.Add(1)
		go loop(c, o.activators+i, val, &vals, o.pace)
	}
	wg.Wait()

	pct := func(d []time.Duration, p int) time.Duration {
		if len(d) == 0 {
			return 0
		}
		return d[len(d)*p/100]
	}
	slices.Sort(acts.answered)
	slices.Sort(acts.shed)
	slices.Sort(vals.answered)
	slowest := slices.Max(append([]time.Duration{0}, append(acts.answered, acts.shed...)...))
	total := len(acts.answered) + len(acts.shed) + acts.other
	p50, p99 := pct(acts.answered, 50), pct(acts.answered, 99)
	var sb strings.Builder
	fmt.Fprintf(&sb, "overload: %d connections activating (%s), %d validating (pace %s), %d source addresses, %s\n", o.activators, act.name, o.validators, o.pace, o.addrs, b.dur)
	fmt.Fprintf(&sb, "  activations answered 200: %d (%.0f/s)  p50 %s  p99 %s  p99/p50 %.1f\n",
		len(acts.answered), float64(len(acts.answered))/b.dur.Seconds(), fmtDur(p50), fmtDur(p99), float64(p99)/float64(max(p50, 1)))
	fmt.Fprintf(&sb, "  activations shed 503 overloaded: %d (%.1f %% of %d answers)  p50 %s  max %s\n",
		len(acts.shed), 100*float64(len(acts.shed))/float64(max(total, 1)), total, fmtDur(pct(acts.shed, 50)), fmtDur(slices.Max(append([]time.Duration{0}, acts.shed...))))
	fmt.Fprintf(&sb, "  slowest activation answer: %s (max_queue_wait + 1 s = %s)\n", fmtDur(slowest), fmtDur(o.queueWait+time.Second))
	fmt.Fprintf(&sb, "  shed answers without Retry-After: %d\n", acts.noRetry+vals.noRetry)
	fmt.Fprintf(&sb, "  rate limited 429: %d activations, %d validations\n", acts.limited, vals.limited)
	fmt.Fprintf(&sb, "  other answers: %d, connections broken: %d\n", acts.other+vals.other, acts.broken+vals.broken)
	if s := acts.sample + vals.sample; s != "" {
		fmt.Fprintf(&sb, "  first other answer: %.200s\n", s)
	}
	fmt.Fprintf(&sb, "  validations meanwhile: %d answered, %d shed, %d failed  p50 %s  p99 %s  max %s\n",
		len(vals.answered), len(vals.shed), vals.other+vals.broken, fmtDur(pct(vals.answered, 50)), fmtDur(pct(vals.answered, 99)), fmtDur(slices.Max(append([]time.Duration{0}, vals.answered...))))
	if o.serverPID > 0 {
		hwm, err := peakRSS(o.serverPID)
		if err != nil {
			return err
		}
		fmt.Fprintf(&sb, "  server peak RSS (VmHWM): %.0f MB\n", float64(hwm)/(1<<20))
	}
	_, err = os.Stdout.WriteString(sb.String())
	return err
}

// dialAll opens n connections.
func dialAll(addr string, n int) ([]*conn, error) {
	cs := make([]*conn, n)
	for i := range cs {
		c, err := dial(addr)
		if err != nil {
			for _, c := range cs[:i] {
				c.close()
			}
			return nil, fmt.Errorf("overload: dial %d: %w", i, err)
		}
		cs[i] = c
	}
	return cs, nil
}

// peakRSS is the peak resident set of process pid, from /proc.
func peakRSS(pid int) (int64, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}
