package tui

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// counting records the pages of license lists asked for.
type counting struct {
	Data
	mu    sync.Mutex
	pages []int
	// cursors records whether each request went by cursor.
	cursors []bool
}

func (c *counting) ListLicenses(ctx context.Context, s store.Scope, f store.LicenseFilter) (*store.Page[*store.LicenseItem], error) {
	if f.PerPage > 1 {
		c.mu.Lock()
		c.pages = append(c.pages, f.Page)
		c.cursors = append(c.cursors, f.Cursor != "")
		c.mu.Unlock()
	}
	return c.Data.ListLicenses(ctx, s, f)
}

func TestRuneBatchSplit(t *testing.T) {
	s := seed(t, 10)
	h, l := s.licenses(t, s.db, Options{})
	h.press("jjj")
	if l.cursor != 3 {
		t.Fatalf("cursor after one batch of three j: %d, want 3", l.cursor)
	}
	h.press("/", "jjj")
	if l.editing == nil || string(l.editing.value) != "jjj" {
		t.Fatalf("the batch was not typed into the filter: %+v", l.editing)
	}
}

func TestStaleAnswerDropped(t *testing.T) {
	s := seed(t, 250)
	h, l := s.licenses(t, s.db, Options{})
	first := l.goTo(h.m.c, 2, placement{})
	second := l.goTo(h.m.c, 3, placement{})
	m2, m1 := second(), first() // the older answer arrives last
	h.send(m2)
	h.send(m1)
	if l.page != 3 {
		t.Fatalf("page %d shown, want 3: the stale answer for page 2 won", l.page)
	}
	h.contains("page 3/3")
}

func TestCursorKeptByIDAcrossReload(t *testing.T) {
	s := seed(t, 20)
	h, l := s.licenses(t, s.db, Options{})
	h.press("j", "j", "j", "j", "j")
	want := l.spec.id(l.current())
	if _, err := s.db.GenerateLicenses(context.Background(), s.scope(), store.GenerateLicensesInput{PlanID: s.plan.ID, Quantity: 3}); err != nil {
		t.Fatal(err)
	}
	h.press("ctrl+r")
	if got := l.spec.id(l.current()); got != want {
		t.Fatalf("cursor on %s after reload, want %s", got, want)
	}
	if l.cursor != 8 {
		t.Fatalf("cursor row %d, want 8 (three new rows above)", l.cursor)
	}
}

func TestEscLayers(t *testing.T) {
	s := seed(t, 10)
	h, l := s.licenses(t, s.db, Options{})
	h.press("?")
	if h.m.over == nil {
		t.Fatal("help did not open")
	}
	h.press("esc")
	if h.m.over != nil {
		t.Fatal("esc did not close help first")
	}
	h.press("/", "inactive", "enter")
	h.press(" ", " ")
	if len(l.q.chips) != 1 || len(l.marked) != 2 {
		t.Fatalf("chips %v marked %d", l.q.chips, len(l.marked))
	}
	h.press("esc")
	if len(l.q.chips) != 0 || len(l.marked) != 2 {
		t.Fatalf("esc should clear the filter first: chips %v marked %d", l.q.chips, len(l.marked))
	}
	h.press("esc")
	if len(l.marked) != 0 {
		t.Fatal("esc should clear the marks next")
	}
	h.press("enter")
	if len(h.m.stack) != 3 {
		t.Fatalf("stack %d, want the license on top", len(h.m.stack))
	}
	h.press("esc", "esc", "esc", "esc")
	if len(h.m.stack) != 1 || h.quit {
		t.Fatalf("esc pops down to the root and never quits: stack %d quit %v", len(h.m.stack), h.quit)
	}
}

func TestReadOnlyHidesActions(t *testing.T) {
	s := seed(t, 5)
	h, _ := s.licenses(t, s.db, Options{ReadOnly: true})
	h.contains("READ-ONLY")
	if v := h.view(); strings.Contains(v, "s suspend") || strings.Contains(v, "n new") {
		t.Fatalf("read-only footer offers changes:\n%s", v)
	}
	h.press("s")
	if h.m.over != nil {
		t.Fatal("s opened a confirmation in a read-only session")
	}
	h.press("?")
	if v := h.view(); strings.Contains(v, "suspend") || strings.Contains(v, "revoke") {
		t.Fatalf("help lists changes in a read-only session:\n%s", v)
	}
	h.press("esc", ":", "generate", "enter")
	h.contains("read-only session")
}

func TestConfirmTiers(t *testing.T) {
	s := seed(t, 3)
	h, l := s.licenses(t, s.db, Options{})
	id := l.spec.id(l.current())
	status := func() string {
		d, err := s.db.FindLicense(context.Background(), s.scope(), id)
		if err != nil {
			t.Fatal(err)
		}
		return d.Status
	}
	t.Run("EnterNeverConfirms", func(t *testing.T) {
		h.press("s", "enter", "s")
		if status() != store.LicenseInactive || h.m.over == nil {
			t.Fatalf("enter or the trigger key confirmed: %s", status())
		}
		h.press("y")
		if status() != store.LicenseSuspended {
			t.Fatalf("y did not confirm: %s", status())
		}
		h.contains("Suspended")
	})
	t.Run("TypedWord", func(t *testing.T) {
		h.press("X", "revoke", "enter")
		if status() != store.LicenseSuspended {
			t.Fatal("keys within the first 150 ms confirmed")
		}
		h.later(time.Second)
		h.press("nope", "enter")
		if status() != store.LicenseSuspended || h.m.over == nil {
			t.Fatal("a wrong word confirmed or closed the dialog")
		}
		h.contains(`type "revoke" to confirm`)
		h.press("backspace", "backspace", "backspace", "backspace", "revoke", "enter")
		if status() != store.LicenseRevoked {
			t.Fatalf("the typed word did not confirm: %s", status())
		}
	})
}

func TestBulkSuspend(t *testing.T) {
	s := seed(t, 6)
	h, l := s.licenses(t, s.db, Options{})
	h.press(" ", " ", " ", "s", "y")
	h.contains("3 suspended")
	p, err := s.db.ListLicenses(context.Background(), s.scope(), store.LicenseFilter{Status: store.LicenseSuspended})
	if err != nil || p.Total != 3 {
		t.Fatalf("suspended %v, %v; want 3", p, err)
	}
	if len(l.marked) != 0 {
		t.Fatal("marks kept after the bulk action")
	}
}

func TestPageCacheCapped(t *testing.T) {
	s := seed(t, 550)
	h, l := s.licenses(t, s.db, Options{})
	h.press("]", "]", "]", "]", "]")
	if l.page != 6 || len(l.pages) > maxPages {
		t.Fatalf("page %d, %d pages held; want page 6 and at most %d", l.page, len(l.pages), maxPages)
	}
	h.contains("row 501 of 550")
}

func TestBottomLoadsOnePage(t *testing.T) {
	s := seed(t, 1050)
	cnt := &counting{Data: s.db}
	h, l := s.licenses(t, cnt, Options{})
	cnt.pages = nil
	h.press("G")
	if len(cnt.pages) != 1 || cnt.pages[0] != 11 {
		t.Fatalf("G fetched pages %v, want exactly [11]", cnt.pages)
	}
	if l.cursor != 49 {
		t.Fatalf("cursor %d, want the last row 49", l.cursor)
	}
	h.contains("row 1,050 of 1,050")
	cnt.pages = nil
	h.press("k")
	if len(cnt.pages) != 0 {
		t.Fatal("moving inside the page fetched")
	}
	h.press("g")
	if len(cnt.pages) != 0 || l.page != 1 {
		t.Fatalf("g fetched %v (page 1 is held) and shows page %d", cnt.pages, l.page)
	}
}

// TestNextPageByCursor: ] fetches the next page by the cursor the page
// before answered with (a deep page costs the server what page 1 does);
// G jumps by number (no page before it answered), and [ back to page 4
// resumes after page 3, whose cursor the list kept.
func TestNextPageByCursor(t *testing.T) {
	s := seed(t, 450)
	cnt := &counting{Data: s.db}
	h, l := s.licenses(t, cnt, Options{})
	cnt.pages, cnt.cursors = nil, nil
	h.press("]", "]")
	if !slices.Equal(cnt.cursors, []bool{true, true}) || !slices.Equal(cnt.pages, []int{0, 0}) {
		t.Fatalf("] ] asked pages %v by cursor %v; want both by cursor", cnt.pages, cnt.cursors)
	}
	h.contains("row 201 of 450")
	first := l.current().(*store.LicenseItem).ID
	all, err := s.db.ListLicenses(context.Background(), s.scope(), store.LicenseFilter{PageRequest: store.PageRequest{Page: 3, PerPage: perPage}})
	if err != nil || all.Data[0].ID != first {
		t.Fatalf("page 3 by cursor starts at %s; by number at %v (%v)", first, all.Data[0].ID, err)
	}
	cnt.pages, cnt.cursors = nil, nil
	h.press("G", "[")
	if !slices.Equal(cnt.pages, []int{5, 0}) || !slices.Equal(cnt.cursors, []bool{false, true}) {
		t.Fatalf("G [ asked pages %v by cursor %v; want 5 by number, then 4 by cursor", cnt.pages, cnt.cursors)
	}
	h.contains("row 301 of 450")
}

func TestFindByKey(t *testing.T) {
	s := seed(t, 30)
	h, l := s.licenses(t, s.db, Options{})
	h.press("j", "j")
	key := l.current().(*store.LicenseItem).Key
	typed := strings.ToLower(strings.ReplaceAll(key, "-", " "))
	h.press("/", typed, "enter")
	top, ok := h.m.top().(*license)
	if !ok || top.v == nil || top.v.d.Key != key {
		t.Fatalf("the key lookup did not open the license %s", key)
	}
	// No device has activated it: there is no session to validate.
	h.contains("Would a session of this license validate now?   NO → inactive: never activated")
	h.press("s", "y")
	h.contains("NO → license_suspended")
	h.press("u", "y")
	h.contains("validate now?   NO → inactive: never activated")
}

func TestPastedKeyOpensLicense(t *testing.T) {
	s := seed(t, 3)
	h, l := s.licenses(t, s.db, Options{})
	key := l.current().(*store.LicenseItem).Key
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(" " + strings.ToLower(key) + " "), Paste: true})
	if top, ok := h.m.top().(*license); !ok || top.v == nil || top.v.d.Key != key {
		t.Fatal("pasting a key did not open its license")
	}
}

func TestPalette(t *testing.T) {
	s := seed(t, 3)
	h, _ := s.licenses(t, s.db, Options{})
	h.press(":", "pl", "tab", "enter")
	h.contains("[8 Plans]")
	h.press(":", "lic suspended", "enter")
	h.contains("[2 Licenses]")
	h.contains("[status:suspended]") // a bare status word shows as what it filters
	h.press(":", "nonsense", "enter")
	h.contains("unknown command nonsense")
}

func TestTooSmall(t *testing.T) {
	s := seed(t, 1)
	h := newHarness(t, s.db, Options{OrgID: s.orgID}, 50, 12)
	if got := h.view(); got != "Terminal too small: 50×12. licensectl tui needs at\nleast 60×16." {
		t.Fatalf("view %q", got)
	}
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.contains("[1 Apps]")
}

func TestUsageTab(t *testing.T) {
	s := seed(t, 4)
	h := newHarness(t, s.db, Options{OrgID: s.orgID}, 100, 30)
	h.press(":", "usage", "enter")
	h.contains("[4 Usage]")
	h.contains("applications")
	h.contains("active licenses")
}

// TestBulkFailuresListed: a bulk change reports its failures by code, and
// enter lists which rows failed and why.
func TestBulkFailuresListed(t *testing.T) {
	s := seed(t, 4)
	h, l := s.licenses(t, s.db, Options{})
	h.press(" ", " ", " ")
	gone := l.rows()[1].(*store.LicenseItem)
	// Banned meanwhile (another administrator): the row is stale.
	if _, err := s.db.SetLicenseStatus(context.Background(), s.scope(), gone.ID, store.LicenseBanned); err != nil {
		t.Fatal(err)
	}
	h.press("X")
	h.later(time.Second)
	h.press("3", "enter")
	h.contains("✓ 2 revoked · ✗ 1 failed (invalid_transition) · enter lists them")
	h.press("enter")
	h.contains("1 failed")
	h.contains(h.m.c.shortKey(gone.Key) + ": invalid_transition")
	h.press("esc")
	h.press("enter") // the list is back: enter opens the row again
	h.contains("validate now?")
}

// TestExpiredFilterSaysStored (docs/tui.md §9.5): locally, status:expired reads
// the stored status, which only the server's sweeper writes; the chip says so.
func TestExpiredFilterSaysStored(t *testing.T) {
	s := seed(t, 3)
	h, _ := s.licenses(t, s.db, Options{})
	h.press("/", "expired", "enter")
	h.contains("[status:expired] (stored; the server's sweeper updates it)")
}

// TestSmallListFilter (docs/tui.md §5.1, §9.2): / on a list held whole
// (Plans, Organizations) is a fuzzy filter over every row, as the palette's
// filter argument is, and says so rather than "page-local".
func TestSmallListFilter(t *testing.T) {
	s := seed(t, 0)
	if _, err := s.db.CreateOrganization(context.Background(), store.CreateOrganizationInput{Name: "Beta Corp"}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	h.press("8", "/")
	h.contains("(fuzzy, over every row ; enter apply")
	h.press("pro", "enter")
	h.contains("matching 1 of 1 (fuzzy, every row)")
	h.press("esc", ":", "plans nothing-like-it", "enter")
	h.contains("Nothing matches. esc clears the filter.")
	h.press("esc", ":", "orgs", "enter")
	// Each pattern holds a letter past f: the rows' hex id tails match none.
	for _, tc := range []struct{ typed, count string }{
		{"bcrp", "matching 1 of 2"},
		{"beta corp", "matching 1 of 2"},
		{"acm", "matching 1 of 2"},
		{"co", "matching 1 of 2"},  // beta corp; "acme" has no o
		{"pro", "matching 0 of 2"}, // the letters, not in that order
	} {
		h.press("/", tc.typed, "enter")
		h.contains(tc.count + " (fuzzy, every row)")
		if v := h.view(); strings.Contains(v, "page-local") {
			t.Fatalf("/%s on Organizations says page-local:\n%s", tc.typed, v)
		}
	}
	h.press("/", "bcrp", "enter")
	h.contains("Beta Corp")
}

// TestTabKeysFromDetail (docs/tui.md §7.1): the tab keys work anywhere — on
// a detail they pop to the dashboard and switch its tab there.
func TestTabKeysFromDetail(t *testing.T) {
	s := seed(t, 3)
	key := s.licenseItems(t)[0].Key
	h := newHarness(t, s.db, Options{OrgID: s.orgID, AppID: s.app.ID}, 120, 30)
	for _, tc := range []struct {
		keys []string
		want string
	}{
		{[]string{"4"}, "[4 Devices]"},
		{[]string{"tab"}, "[3 Users]"},
		{[]string{"shift+tab"}, "[1 Overview]"},
		{[]string{"2"}, "[2 Licenses]"}, // the tab the detail was opened from
	} {
		h.press(":", "license "+key, "enter")
		h.contains("License " + key)
		h.press(tc.keys...)
		h.contains(tc.want)
		if len(h.m.stack) != 2 {
			t.Fatalf("%v: stack %d, want the org home and the dashboard", tc.keys, len(h.m.stack))
		}
	}
}

// TestWindowKeys (docs/tui.md §7.2): ctrl+d and ctrl+u move half a window,
// pgdn and pgup a whole one.
func TestWindowKeys(t *testing.T) {
	s := seed(t, 100)
	h, l := s.licenses(t, s.db, Options{})
	h.view() // the window is what the table showed last
	win := l.height
	if win < 10 {
		t.Fatalf("window of %d rows", win)
	}
	for _, tc := range []struct {
		key  string
		want int
	}{
		{"pgdown", win},
		{"ctrl+d", win + win/2},
		{"pgup", win / 2},
		{"ctrl+u", 0},
	} {
		h.press(tc.key)
		if l.cursor != tc.want {
			t.Fatalf("%s: cursor %d, want %d (window %d)", tc.key, l.cursor, tc.want, win)
		}
	}
	h.press("?")
	h.contains("one window down")
}

// TestBulkNamesSkipped (docs/tui.md §8.1): a bulk dialog counts the marked
// rows it acts on and says which it skips and why; a marked set stays a
// bulk change when one row is eligible; answering n to the quit question
// keeps the run's summary.
func TestBulkNamesSkipped(t *testing.T) {
	s := seed(t, 6)
	ctx := context.Background()
	items := s.licenseItems(t)
	for _, it := range items[:2] {
		if _, err := s.db.SetLicenseStatus(ctx, s.scope(), it.ID, store.LicenseSuspended); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.SetLicenseStatus(ctx, s.scope(), items[2].ID, store.LicenseRevoked); err != nil {
		t.Fatal(err)
	}
	h, l := s.licenses(t, s.db, Options{})
	h.press("ctrl+a", "s")
	h.contains("Suspend 3 licenses in PRODUCTION? (3 are skipped: 2 already suspended, 1 revoked)")
	h.press("n", "esc", " ", " ", " ", " ", "s")
	h.contains("Suspend 1 license in PRODUCTION? (3 are skipped: 2 already suspended, 1 revoked)")
	h.press("esc", "esc", "g", " ", " ", "s")
	h.contains("Nothing to suspend among the marked rows (2 already suspended are skipped)")
	h.press("esc", "ctrl+a", "s", "y")
	h.contains("✓ 3 suspended")
	if len(l.marked) != 0 {
		t.Fatal("marks kept after the bulk change")
	}
	// q while a change runs asks; n leaves the summary where it was.
	h.m.c.acting++
	h.press("q")
	h.contains("Quit anyway?")
	h.press("n")
	h.m.c.acting--
	h.contains("✓ 3 suspended")
	if h.quit {
		t.Fatal("n quit")
	}
}
