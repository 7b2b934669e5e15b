package tui

import (
	"context"
	"sync"
	"testing"

	"licensectl/store"
)

// flaky fails every license list with err until err is nil.
type flaky struct {
	Data
	mu  sync.Mutex
	err error
}

func (f *flaky) ListLicenses(ctx context.Context, s store.Scope, lf store.LicenseFilter) (*store.Page[*store.LicenseItem], error) {
	f.mu.Lock()
	err := f.err
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return f.Data.ListLicenses(ctx, s, lf)
}

func (f *flaky) set(err error) {
	f.mu.Lock()
	f.err = err
	f.mu.Unlock()
}

// TestRemoteBackoff (docs/tui.md §10, §12): unavailable doubles the polling delay
// from 2 s up to 30 s and the first load is retried on each tick;
// rate_limited waits the server's Retry-After; an answer ends the back-off.
func TestRemoteBackoff(t *testing.T) {
	fk := newFake()
	f := &flaky{Data: fk, err: store.Errorf(store.ECodeUnavailable, "cannot reach the server")}
	h := newHarness(t, f, Options{Remote: true, OrgID: fk.org.ID, AppID: fk.app.ID}, 100, 30)
	h.press("2")
	h.contains("✗ unavailable: cannot reach the server  retrying in 2s · r retry now · q quit")
	l := h.licenseList()
	for _, want := range []string{"4s", "8s", "16s", "30s", "30s"} {
		h.later(h.m.c.pollDelay) // the tick comes after the delay
		h.send(tickMsg{screen: l.sid})
		h.contains("retrying in " + want)
	}
	f.set(&store.Error{Code: store.ECodeRateLimited, Message: "slow down", RetryAfter: 12})
	h.later(h.m.c.pollDelay)
	h.send(tickMsg{screen: l.sid})
	h.contains("✗ rate limited: retrying in 12s")
	f.set(nil)
	h.send(tickMsg{screen: l.sid})
	h.contains("40 matching")
	if h.m.c.pollDelay != 0 {
		t.Fatalf("poll delay after an answer: %s", h.m.c.pollDelay)
	}
}

// TestRemoteDetailRefresh: in remote mode the license detail reloads on its
// tick and shows what changed on the server meanwhile.
func TestRemoteDetailRefresh(t *testing.T) {
	f := newFake()
	h := fakeHarness(t, f, 100, 30, Options{Remote: true})
	h.press("2", "enter")
	h.contains("License " + f.licenses[0].Key)
	h.contains("validate now?   YES")
	f.licenses[0].Status = store.LicenseSuspended
	lic := h.m.top().(*license)
	h.send(tickMsg{screen: lic.sid})
	h.contains("NO → license_suspended")
}

// TestQuitAsksWhileActing: q while a change is in flight asks first; n
// keeps the TUI, and once the change is done q quits at once.
func TestQuitAsksWhileActing(t *testing.T) {
	h := fakeHarness(t, newFake(), 100, 30, Options{})
	h.press("2", "s")
	h.contains("Suspend license")
	_, running := h.m.Update(keyMsg("y")) // the change starts; its command is not run yet
	h.press("q")
	h.contains("An action is still running. Quit anyway?")
	h.press("n")
	if h.quit {
		t.Fatal("n quit")
	}
	h.run(running)
	h.contains("✓ Suspended")
	h.press("q")
	if !h.quit {
		t.Fatal("q did not quit once the change was done")
	}
}

// TestActivityJumpsToTheLicense (docs/tui.md §14, item 5): from the live tail, enter
// opens an entry and o the license it is about.
func TestActivityJumpsToTheLicense(t *testing.T) {
	f := newFake()
	h := fakeHarness(t, f, 100, 30, Options{Remote: true})
	h.press("5")
	h.contains("Live activity")
	h.contains("license.created")
	h.press("enter")
	h.contains("Audit entry license.created")
	h.press("o")
	h.contains("License " + f.licenses[0].Key)
}
