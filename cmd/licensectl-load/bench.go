package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// bench holds the prepared state of a run.
type bench struct {
	// addrs are the servers' host:port; connection i goes to addrs[i %
	// len(addrs)], so a run on several servers spreads evenly over them.
	addrs []string
	sf    seedFile
	conns int
	dur   time.Duration
	runID string
	phase int // bumped per run, so that nonces and fingerprints never repeat

	over overloadOptions

	sessions []benchSession // one per license, opened by prepare
	users    []string       // one end-user e-mail per connection
}

type benchSession struct {
	access, refresh string
}

const benchPassword = "bench password 4711 lorem"

// newBench takes the servers' base addresses, comma-separated.
func newBench(bases string, sf seedFile, conns int, dur time.Duration) (*bench, error) {
	b := &bench{sf: sf, conns: conns, dur: dur, runID: strconv.FormatInt(time.Now().UnixNano(), 36)}
	for _, base := range splitList(bases) {
		u, err := url.Parse(base)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("bad -url %q", base)
		}
		b.addrs = append(b.addrs, u.Host)
	}
	if len(b.addrs) == 0 {
		return nil, fmt.Errorf("-url names no server")
	}
	return b, nil
}

// addr is the server connection i talks to.
func (b *bench) addr(i int) string { return b.addrs[i%len(b.addrs)] }

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// worker is one connection's state during a benchmark.
type worker struct {
	id    int
	runID string
	c     *conn
	rng   *rand.Rand
	iter  int
	own   []int // refresh: indexes of the sessions this worker rotates
	lat   []time.Duration
	errs  int
	last  string // one failing body, for the report
}

// endpoint is one benchmark: next builds a request, check inspects the answer.
type endpoint struct {
	name  string
	next  func(w *worker) *request
	check func(w *worker, status int, body []byte) bool
}

func (b *bench) apiKey() string { return "x-api-key: " + b.sf.PublicKey }

func replayFields(w *worker, runID string) string {
	w.iter++
	return `"timestamp":"` + time.Now().UTC().Format(time.RFC3339Nano) + `","nonce":"n-` + runID + "-" + strconv.Itoa(w.id) + "-" + strconv.Itoa(w.iter) + `-pad"`
}

func want200(_ *worker, status int, _ []byte) bool { return status == 200 }

func (b *bench) endpoints() map[string]endpoint {
	key := b.apiKey()
	validateBodies := make([][]byte, len(b.sessions))
	bearers := make([]string, len(b.sessions))
	for i, s := range b.sessions {
		validateBodies[i] = []byte(`{"access_token":"` + s.access + `"}`)
		bearers[i] = "Authorization: Bearer " + s.access
	}
	validTrue := []byte(`"valid":true`)
	return map[string]endpoint{
		"healthz": {name: "GET /healthz", next: func(w *worker) *request {
			return &request{method: "GET", path: "/healthz"}
		}, check: want200},
		"validate": {name: "POST sessions/validate", next: func(w *worker) *request {
			return &request{method: "POST", path: "/v1/runtime/sessions/validate", headers: []string{key}, body: validateBodies[w.rng.IntN(len(validateBodies))]}
		}, check: func(_ *worker, status int, body []byte) bool { return status == 200 && bytes.Contains(body, validTrue) }},
		// The same validation asking for a signed answer (docs/design.md
		// §15): a fresh nonce per request, and an answer that is not
		// signed counts as an error. The signature is not verified here:
		// the load generator shares the cores with the server.
		"validate-signed": {name: "POST sessions/validate (signed)", next: func(w *worker) *request {
			w.iter++
			accept := `Accept-Signature: lc=();nonce="n-` + w.runID + "-" + strconv.Itoa(w.id) + "-" + strconv.Itoa(w.iter) + `-pad"`
			return &request{method: "POST", path: "/v1/runtime/sessions/validate", headers: []string{key, accept}, body: validateBodies[w.rng.IntN(len(validateBodies))]}
		}, check: func(w *worker, status int, body []byte) bool {
			return status == 200 && w.c.signed && bytes.Contains(body, validTrue)
		}},
		"entitlements/check": {name: "GET entitlements/check", next: func(w *worker) *request {
			return &request{method: "GET", path: "/v1/runtime/entitlements/check?key=pro", headers: []string{key, bearers[w.rng.IntN(len(bearers))]}}
		}, check: func(_ *worker, status int, body []byte) bool {
			return status == 200 && bytes.Contains(body, []byte(`true`))
		}},
		"refresh": {name: "POST sessions/refresh", next: func(w *worker) *request {
			i := w.own[w.iter%len(w.own)]
			return &request{method: "POST", path: "/v1/runtime/sessions/refresh", headers: []string{key}, body: []byte(`{"refresh_token":"` + b.sessions[i].refresh + `"}`)}
		}, check: func(w *worker, status int, body []byte) bool {
			i := w.own[w.iter%len(w.own)]
			w.iter++
			if status != 200 {
				return false
			}
			var s struct {
				Access  string `json:"access_token"`
				Refresh string `json:"refresh_token"`
			}
			if json.Unmarshal(body, &s) != nil || s.Refresh == "" {
				return false
			}
			b.sessions[i] = benchSession{s.Access, s.Refresh}
			return true
		}},
		"activate": {name: "POST licenses/activate (new device)", next: func(w *worker) *request {
			lic := b.sf.Licenses[w.rng.IntN(len(b.sf.Licenses))]
			body := `{"license_key":"` + lic + `","device_fingerprint":"dev-` + w.runID + "-" + strconv.Itoa(w.id) + "-" + strconv.Itoa(w.iter) + `",` + replayFields(w, w.runID) + `}`
			return &request{method: "POST", path: "/v1/runtime/licenses/activate", headers: []string{key}, body: []byte(body)}
		}, check: want200},
		// A device that is bound already activates again on its license
		// (one device per license, "again-<index>"): after its first
		// activation nothing is bound or created, a session and its audit
		// entry are all an activation writes.
		"activate-again": {name: "POST licenses/activate (bound device again)", next: func(w *worker) *request {
			i := w.rng.IntN(len(b.sf.Licenses))
			body := `{"license_key":"` + b.sf.Licenses[i] + `","device_fingerprint":"again-` + strconv.Itoa(i) + `",` + replayFields(w, w.runID) + `}`
			return &request{method: "POST", path: "/v1/runtime/licenses/activate", headers: []string{key}, body: []byte(body)}
		}, check: want200},
		"activate-one": {name: "POST licenses/activate (one license)", next: func(w *worker) *request {
			body := `{"license_key":"` + b.sf.GrowthKey + `","device_fingerprint":"one-` + w.runID + "-" + strconv.Itoa(w.id) + "-" + strconv.Itoa(w.iter) + `",` + replayFields(w, w.runID) + `}`
			return &request{method: "POST", path: "/v1/runtime/licenses/activate", headers: []string{key}, body: []byte(body)}
		}, check: want200},
		"login": {name: "POST auth/login (argon2id)", next: func(w *worker) *request {
			body := `{"email":"` + b.users[w.id] + `","password":"` + benchPassword + `","device_fingerprint":"login-` + strconv.Itoa(w.id) + `",` + replayFields(w, w.runID) + `}`
			return &request{method: "POST", path: "/v1/runtime/auth/login", headers: []string{key}, body: []byte(body)}
		}, check: want200},
	}
}

// result is one benchmark's measurements.
type result struct {
	name          string
	n, errs       int
	rps           float64
	p50, p99, max time.Duration
	sample        string
}

// run drives one endpoint from every connection for the duration.
func (b *bench) run(ep endpoint, dur time.Duration) (result, error) {
	b.phase++
	runID := b.runID + "p" + strconv.Itoa(b.phase)
	workers := make([]*worker, b.conns)
	for i := range workers {
		c, err := dial(b.addr(i))
		if err != nil {
			return result{}, err
		}
		workers[i] = &worker{id: i, runID: runID, c: c, rng: rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano()))), lat: make([]time.Duration, 0, 1<<16)}
		for j := i; j < len(b.sessions); j += b.conns {
			workers[i].own = append(workers[i].own, j)
		}
	}
	var wg sync.WaitGroup
	var failed atomic.Value
	start := time.Now()
	deadline := start.Add(dur)
	for _, w := range workers {
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			defer w.c.close()
			for {
				t0 := time.Now()
				if t0.After(deadline) {
					return
				}
				status, body, err := w.c.do(ep.next(w))
				if err != nil {
					failed.Store(err)
					return
				}
				w.lat = append(w.lat, time.Since(t0))
				if !ep.check(w, status, body) {
					w.errs++
					if w.last == "" {
						w.last = strconv.Itoa(status) + " " + string(body)
					}
				}
			}
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err, _ := failed.Load().(error); err != nil {
		return result{}, fmt.Errorf("%s: %w", ep.name, err)
	}
	var all []time.Duration
	r := result{name: ep.name}
	for _, w := range workers {
		all = append(all, w.lat...)
		r.errs += w.errs
		if r.sample == "" {
			r.sample = w.last
		}
	}
	slices.Sort(all)
	r.n = len(all)
	if r.n > 0 {
		r.p50, r.p99, r.max = all[r.n/2], all[r.n*99/100], all[r.n-1]
	}
	r.rps = float64(r.n) / elapsed.Seconds()
	return r, nil
}

// prepare opens one session per license and registers one user per
// connection, through the API.
func (b *bench) prepare(needSessions, needUsers bool) error {
	key := b.apiKey()
	if needSessions {
		start := time.Now()
		b.sessions = make([]benchSession, len(b.sf.Licenses))
		if err := b.parallel(len(b.sf.Licenses), func(c *conn, w *worker, i int) error {
			body := `{"license_key":"` + b.sf.Licenses[i] + `","device_fingerprint":"seed-` + strconv.Itoa(i) + `",` + replayFields(w, b.runID+"s") + `}`
			headers := []string{key}
			if b.over.addrs > 0 {
				// Rate limits are on: each session opens from an address
				// of its own, outside the flood's 10.0.0.0/8.
				headers = append(headers, "X-Forwarded-For: 172.16."+strconv.Itoa(i>>8&255)+"."+strconv.Itoa(i&255))
			}
			status, res, err := c.do(&request{method: "POST", path: "/v1/runtime/licenses/activate", headers: headers, body: []byte(body)})
			if err != nil {
				return err
			}
			var s struct {
				Access  string `json:"access_token"`
				Refresh string `json:"refresh_token"`
			}
			if status != 200 || json.Unmarshal(res, &s) != nil {
				return fmt.Errorf("seed activation: %d %s", status, res)
			}
			b.sessions[i] = benchSession{s.Access, s.Refresh}
			return nil
		}); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "opened %d sessions in %s\n", len(b.sessions), time.Since(start).Round(time.Millisecond))
	}
	if needUsers {
		b.users = make([]string, b.conns)
		if err := b.parallel(b.conns, func(c *conn, _ *worker, i int) error {
			b.users[i] = "bench-" + b.runID + "-" + strconv.Itoa(i) + "@example.com"
			for {
				status, res, err := c.do(&request{method: "POST", path: "/v1/runtime/auth/register", headers: []string{key},
					body: []byte(`{"email":"` + b.users[i] + `","password":"` + benchPassword + `"}`)})
				if err != nil {
					return err
				}
				switch status {
				case 201:
					return nil
				case 429: // the bounded password hasher is busy
					time.Sleep(100 * time.Millisecond)
				default:
					return fmt.Errorf("register: %d %s", status, res)
				}
			}
		}); err != nil {
			return err
		}
	}
	return nil
}

// parallel runs fn for 0..n-1 over the bench's connections.
func (b *bench) parallel(n int, fn func(c *conn, w *worker, i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, b.conns)
	for k := 0; k < b.conns; k++ {
		c, err := dial(b.addr(k))
		if err != nil {
			return err
		}
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			defer c.close()
			w := &worker{id: k}
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(c, w, i); err != nil {
					errs <- err
					return
				}
			}
		}(k)
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// runAll prepares what the chosen endpoints need, runs them in order and
// prints the table. Validation and the entitlement check run before refresh,
// which rotates the access tokens they use.
func (b *bench) runAll(names []string) error {
	needSessions := slices.ContainsFunc(names, func(n string) bool {
		return n == "validate" || n == "validate-signed" || n == "entitlements/check" || n == "refresh" || strings.HasPrefix(n, "overload")
	})
	if err := b.prepare(needSessions, slices.Contains(names, "login")); err != nil {
		return err
	}
	eps := b.endpoints()
	var results []result
	var healthz float64
	for _, name := range names {
		if name == "overload" {
			if err := b.overload(eps["activate"], eps["validate"], b.over); err != nil {
				return err
			}
			continue
		}
		if name == "overload-one" {
			// New devices on one license with room for all, and one
			// validation every 50 ms on a connection of its own.
			o := b.over
			o.validators, o.pace = 1, 50*time.Millisecond
			if err := b.overload(eps["activate-one"], eps["validate"], o); err != nil {
				return err
			}
			continue
		}
		ep, ok := eps[name]
		if !ok {
			return fmt.Errorf("unknown endpoint %q", name)
		}
		if name == "activate-one" {
			rs, err := b.growth(ep)
			if err != nil {
				return err
			}
			results = append(results, rs...)
			continue
		}
		// A one-second warm-up, not measured, so that no endpoint's figure
		// includes cold caches or the previous endpoint's tail.
		if _, err := b.run(ep, time.Second); err != nil {
			return err
		}
		r, err := b.run(ep, b.dur)
		if err != nil {
			return err
		}
		if name == "healthz" {
			healthz = r.rps
		}
		b.report(r)
		results = append(results, r)
	}
	if len(results) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintf(tw, "endpoint\treq/s\tp50\tp99\tratio to healthz\terrors\t\n")
	for _, r := range results {
		ratio := "-"
		if healthz > 0 {
			ratio = fmt.Sprintf("%.2f", r.rps/healthz)
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%s\t%s\t%s\t%d\t\n", r.name, r.rps, fmtDur(r.p50), fmtDur(r.p99), ratio, r.errs)
	}
	return tw.Flush()
}

// growthWindows is how many windows the one-license growth case measures.
const growthWindows = 4

// growth is the one-license growth case: activations of new devices on one
// license, in growthWindows windows of the run's duration back to back and
// without warm-up, since what it measures is whether the rate falls as the
// license gathers devices. It then reads the license detail and reports its
// size and devices_count.
func (b *bench) growth(ep endpoint) ([]result, error) {
	if b.sf.GrowthKey == "" {
		return nil, fmt.Errorf("activate-one: the seed file has no growth license; seed again")
	}
	var out []result
	for i := range growthWindows {
		r, err := b.run(ep, b.dur)
		if err != nil {
			return nil, err
		}
		r.name = fmt.Sprintf("%s, window %d", ep.name, i+1)
		b.report(r)
		out = append(out, r)
	}
	c, err := dial(b.addr(0))
	if err != nil {
		return nil, err
	}
	defer c.close()
	status, body, err := c.do(&request{method: "GET", path: "/v1/mgmt/applications/" + b.sf.AppID + "/licenses/" + b.sf.GrowthID,
		headers: []string{"x-api-key: " + b.sf.APIKey}})
	if err != nil {
		return nil, err
	}
	var d struct {
		Count   int               `json:"devices_count"`
		Devices []json.RawMessage `json:"devices"`
	}
	if status != 200 || json.Unmarshal(body, &d) != nil {
		return nil, fmt.Errorf("license detail: %d %.200s", status, body)
	}
	fmt.Fprintf(os.Stderr, "one license: window 4 / window 1 = %.2f; detail %d bytes, devices_count %d, %d devices inlined\n",
		out[growthWindows-1].rps/out[0].rps, len(body), d.Count, len(d.Devices))
	return out, nil
}

// report prints one result as it comes.
func (b *bench) report(r result) {
	fmt.Fprintf(os.Stderr, "%-38s %9.0f req/s  p50 %-8s p99 %-8s errors %d\n", r.name, r.rps, r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond), r.errs)
	if r.errs > 0 {
		fmt.Fprintf(os.Stderr, "  first failure: %.200s\n", r.sample)
	}
}

func fmtDur(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}
