package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

// perPage is fixed: a resize never moves page boundaries.
const perPage = 100

// maxPages is how many server pages a list holds at most.
const maxPages = 3

// listSpec describes one kind of list: how to fetch, draw and act on it.
type listSpec struct {
	name    string // tab title
	noun    string // one item, for messages
	paged   bool   // server pages; otherwise the whole list is loaded
	cols    []column
	cells   func(c *ctx, it any) []string
	id      func(it any) string
	primary func(it any) string // what y copies and messages name
	fetch   fetchFunc
	parse   func(c *ctx, text string) query
	// statuses are the status words of parse, which a palette argument may
	// abbreviate (paletteArg).
	statuses []string
	// bare is the filter prefix a plain word of a palette argument takes
	// (event: on the audit logs, whose ":audit EVENT" names no prefix).
	bare string
	// state is a row's status word, which says why a bulk change skips
	// it ("3 already suspended are skipped"); nil for lists without one.
	state   func(it any) string
	open    func(c *ctx, it any) screen
	create  func(c *ctx, l *list) tea.Cmd // n
	newKey  *binding                      // how n is named; keyNewItem when nil
	actions []*action
	empty   string
	// preview summarizes the selected row in a pane on wide terminals.
	preview func(c *ctx, it any) []string
	// syntax is what / takes, shown while it is typed, and searchAll how
	// to search every row of a paged list, shown while page-local text
	// filters only the loaded page; both default to the license list's.
	syntax, searchAll string
}

// query is a list's filter: server-side fields, and page-local text.
type query struct {
	status, planID, key, email, fingerprint, event string
	since, until                                   *time.Time // audit time range: from (inclusive), to (exclusive)
	local                                          string
	chips                                          []string
	note                                           string // said after the chips
}

// action is a change on one item (or the marked items).
type action struct {
	b           *binding
	verb        string              // "Suspend"
	ing         string              // "Suspending"
	did         string              // "suspended"
	word        string              // the typed word of an irreversible change; "" asks y
	wordFor     func(it any) string // the word when it depends on the item
	when        func(it any) bool
	consequence func(c *ctx, it any) []string
	run         func(ctx context.Context, c *ctx, it any) error
	// now runs the action at once on the row under the cursor, without
	// asking (a retry, a test ping): nothing it does needs undoing.
	now bool
	// result replaces run when the answer is shown (a test ping's outcome),
	// and onResult shows it.
	result   func(ctx context.Context, c *ctx, it any) (any, error)
	onResult func(c *ctx, l *list, val any) tea.Cmd
	// ask replaces the confirmation: it opens a form about the row under the cursor.
	ask func(c *ctx, l *list, it any) tea.Cmd
}

// placement says where the cursor goes when a page arrives.
type placement struct {
	last bool
	id   string
}

// fetchFunc reads one page of a list (or the whole of a small one).
type fetchFunc func(ctx context.Context, c *ctx, page store.PageRequest, q query) (fetched, error)

// fetched is what a spec's fetch read: the page's items, the count of all
// matches and the cursor of the page after it ("" on the last page or for
// a list loaded whole).
type fetched struct {
	items []any
	total int
	next  string
	// learn, when set, runs on the Update goroutine as the page is shown:
	// what the fetch read beside the items (the plans' device limits) goes
	// into ctx, where the cells read it.
	learn func(c *ctx)
}

// pageResult is a page as fetched.
type pageResult struct {
	page int
	fetched
	at placement
}

// list is a table of items of one spec, paged from the server or loaded
// whole, with a filter, marks and actions.
type list struct {
	screenBase
	spec    *listSpec
	q       query
	editing *input
	pages   map[int][]any
	lru     []int
	// cursors[p] is the cursor page p-1 answered with: moving to the next
	// page resumes there, so page 10,000 costs the server what page 1
	// does (docs/design.md §7). A page whose cursor is unknown (a jump with G)
	// is fetched by number.
	cursors  map[int]string
	page     int
	total    int
	cursor   int
	tbl      table
	marked   map[string]any
	err      error
	loaded   bool
	loadedAt time.Time
	newer    int // items seen by the live check since the load
	firstID  string
	bulk     *bulkRun
	failures []string  // of the last bulk run, until enter lists them
	height   int       // rows the table showed last
	form     fieldForm // the form whose request is running
	rowsTop  int       // lines of the view above the first table row, for clicks
	lookup   bool      // the filter just applied is an exact lookup
	flush    bool      // a reload is pending: its page replaces every held one
	c        *ctx
}

func newList(c *ctx, spec *listSpec) *list {
	return &list{screenBase: newBase(c), c: c, spec: spec, pages: map[int][]any{}, cursors: map[int]string{}, marked: map[string]any{}, page: 1}
}

func (l *list) title() string { return l.spec.name }

func (l *list) capturing() bool { return l.editing != nil }

func (l *list) init(c *ctx) tea.Cmd {
	return tea.Batch(l.fetch(c, 1, placement{}), l.tick(c))
}

func (l *list) reload(c *ctx) tea.Cmd {
	var at placement
	if it := l.current(); it != nil {
		at.id = l.spec.id(it)
	}
	// The held pages go when the new one arrives: a failed reload keeps
	// showing them, marked stale (docs/tui.md §12).
	l.flush = true
	return l.fetch(c, l.page, at)
}

// rows are the items of the current page that pass the page-local filter:
// a fuzzy match on a list held whole, whose page is every row (docs/tui.md
// §9.2), a substring on a server page.
func (l *list) rows() []any {
	items := l.pages[l.page]
	if l.q.local == "" {
		return items
	}
	match := func(cell string) bool { return strings.Contains(strings.ToLower(cell), l.q.local) }
	if !l.spec.paged {
		match = func(cell string) bool { return fuzzy(cell, l.q.local) }
	}
	var out []any
	for _, it := range items {
		for _, cell := range l.spec.cells(l.c, it) {
			if match(cell) {
				out = append(out, it)
				break
			}
		}
	}
	return out
}

// fuzzy reports whether the runes of pattern (lower case, spaces ignored)
// occur in s in that order, as bubbles' list filter matches: "bcrp" finds
// "Beta Corp".
func fuzzy(s, pattern string) bool {
	rest := []rune(strings.ToLower(s))
	for _, r := range pattern {
		if r == ' ' {
			continue
		}
		i := slices.Index(rest, r)
		if i < 0 {
			return false
		}
		rest = rest[i+1:]
	}
	return true
}

func (l *list) current() any {
	rows := l.rows()
	if l.cursor < 0 || l.cursor >= len(rows) {
		return nil
	}
	return rows[l.cursor]
}

func (l *list) lastPage() int { return max(1, (l.total+perPage-1)/perPage) }

// goTo shows page p, from the cache or by fetching exactly that page.
func (l *list) goTo(c *ctx, p int, at placement) tea.Cmd {
	if items, ok := l.pages[p]; ok {
		l.page = p
		l.touch(p)
		l.place(items, at)
		return nil
	}
	return l.fetch(c, p, at)
}

func (l *list) fetch(c *ctx, p int, at placement) tea.Cmd {
	cx, gen := l.next()
	spec, q := l.spec, l.q
	req := store.PageRequest{Page: p, PerPage: perPage}
	if cur := l.cursors[p]; cur != "" {
		req = store.PageRequest{Cursor: cur, PerPage: perPage}
	}
	return c.load(cx, l.sid, gen, "page", func(ctx context.Context) (any, error) {
		f, err := spec.fetch(ctx, c, req, q)
		return pageResult{page: p, fetched: f, at: at}, err
	})
}

func (l *list) place(items []any, at placement) {
	l.cursor = 0
	if at.last {
		l.cursor = max(0, len(l.rows())-1)
	}
	if at.id != "" {
		for i, it := range l.rows() {
			if l.spec.id(it) == at.id {
				l.cursor = i
			}
		}
	}
}

// touch records p as the newest page used and evicts beyond maxPages.
func (l *list) touch(p int) {
	l.lru = slices.DeleteFunc(l.lru, func(x int) bool { return x == p })
	l.lru = append(l.lru, p)
	for len(l.lru) > maxPages {
		delete(l.pages, l.lru[0])
		l.lru = l.lru[1:]
	}
}

func (l *list) update(c *ctx, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case loadedMsg:
		switch msg.kind {
		case "page":
			if msg.gen != l.gen {
				return nil // superseded
			}
			if msg.err != nil {
				l.err = msg.err
				return readFailed(c, l.sid, msg.err)
			}
			r := msg.val.(pageResult)
			if l.flush {
				l.pages, l.lru, l.cursors, l.newer, l.flush = map[int][]any{}, nil, map[int]string{}, 0, false
			}
			l.err, l.loaded, l.loadedAt = nil, true, c.now()
			l.total, l.page = r.total, r.page
			l.pages[r.page] = r.items
			if r.next != "" {
				l.cursors[r.page+1] = r.next
			}
			l.touch(r.page)
			if r.page == 1 && len(r.items) > 0 {
				l.firstID, l.newer = l.spec.id(r.items[0]), 0
			}
			if r.learn != nil {
				r.learn(c)
			}
			l.place(r.items, r.at)
			if l.lookup && len(r.items) == 1 && l.spec.open != nil {
				// An exact lookup opens what it found, once.
				l.lookup = false
				return push(l.spec.open(c, r.items[0]))
			}
			l.lookup = false
		case "check":
			if r, ok := msg.val.(pageResult); ok && msg.err == nil && l.loaded {
				if r.total != l.total || len(r.items) > 0 && l.spec.id(r.items[0]) != l.firstID {
					l.newer = max(1, r.total-l.total)
				}
			}
		case "bulk":
			return l.bulkStep(c, msg)
		case "form":
			if msg.err != nil {
				return readFailed(c, l.sid, msg.err)
			}
			return openOverlay(msg.val.(overlay))
		}
	case actionMsg:
		form := l.form
		l.form = nil
		switch {
		case msg.err == nil && msg.onResult != nil:
			return msg.onResult(msg.val)
		case msg.err != nil && form != nil && form.fail(msg.err):
			return openOverlay(form)
		}
		return l.reload(c)
	case editorClosed:
		return saveEdited(c, l, msg)
	case tickMsg:
		if !msg.skip && c.remote && l.err != nil {
			// The last load failed: nothing is shown yet, or what is shown
			// is stale. Load again rather than only check.
			return tea.Batch(l.tick(c), l.reload(c))
		}
		if msg.skip || !c.remote || !l.spec.paged || !l.loaded {
			return l.tick(c)
		}
		spec, q := l.spec, l.q
		return tea.Batch(l.tick(c), c.load(l.ctx, l.sid, l.gen, "check", func(ctx context.Context) (any, error) {
			f, err := spec.fetch(ctx, c, store.PageRequest{Page: 1, PerPage: perPage}, q)
			return pageResult{page: 1, fetched: f}, err
		}))
	}
	return nil
}

// tick schedules the live check of remote lists (§10): the list is not
// reloaded under the cursor, it says that there is more.
func (l *list) tick(c *ctx) tea.Cmd {
	if !c.remote || (!l.spec.paged && l.loaded) {
		return nil
	}
	return c.every(10*time.Second, l.sid)
}

func (l *list) escape(c *ctx) (bool, tea.Cmd) {
	switch {
	case l.bulk != nil && !l.bulk.stopped:
		l.bulk.stopped = true
		return true, nil
	case len(l.q.chips) > 0 || l.q.local != "":
		l.q = query{}
		l.pages, l.lru, l.cursors = map[int][]any{}, nil, map[int]string{}
		return true, l.fetch(c, 1, placement{})
	case len(l.marked) > 0:
		l.marked = map[string]any{}
		return true, nil
	}
	return false, nil
}

func (l *list) keys(c *ctx) []*binding {
	var out []*binding
	if l.spec.open != nil {
		out = append(out, keyOpen)
	}
	if l.spec.create != nil {
		out = append(out, l.newKey())
	}
	for _, a := range l.spec.actions {
		out = append(out, a.b)
	}
	return append(out, keyCopy)
}

func (l *list) key(c *ctx, k tea.KeyMsg) (bool, tea.Cmd) {
	if l.editing != nil {
		return true, l.editKey(c, k)
	}
	ks := k.String()
	if retriesNow(k, !l.loaded && l.err != nil) {
		return true, l.reload(c)
	}
	rows := l.rows()
	window := max(1, l.height) // the rows the table showed last
	switch {
	case c.matches(ks, keyDown):
		if l.cursor < len(rows)-1 {
			l.cursor++
		} else if l.spec.paged && l.page < l.lastPage() {
			return true, l.goTo(c, l.page+1, placement{})
		}
	case c.matches(ks, keyUp):
		if l.cursor > 0 {
			l.cursor--
		} else if l.page > 1 {
			return true, l.goTo(c, l.page-1, placement{last: true})
		}
	case c.matches(ks, keyHalfDown):
		l.cursor = min(max(0, len(rows)-1), l.cursor+max(1, window/2))
	case c.matches(ks, keyHalfUp):
		l.cursor = max(0, l.cursor-max(1, window/2))
	case c.matches(ks, keyPageDown):
		l.cursor = min(max(0, len(rows)-1), l.cursor+window)
	case c.matches(ks, keyPageUp):
		l.cursor = max(0, l.cursor-window)
	case c.matches(ks, keyTop):
		return true, l.goTo(c, 1, placement{})
	case c.matches(ks, keyBottom):
		return true, l.goTo(c, l.lastPage(), placement{last: true})
	case c.matches(ks, keyNextPage):
		if l.page < l.lastPage() {
			return true, l.goTo(c, l.page+1, placement{})
		}
	case c.matches(ks, keyPrevPage):
		if l.page > 1 {
			return true, l.goTo(c, l.page-1, placement{})
		}
	case c.matches(ks, keyLastPage):
		return true, l.goTo(c, l.lastPage(), placement{})
	case c.matches(ks, keyFirstPg):
		return true, l.goTo(c, 1, placement{})
	case c.matches(ks, keyFilter):
		// A new filter starts empty, as k9s's does: the one applied stays
		// in the title's chips until enter replaces it.
		l.editing = &input{prompt: "/"}
	case c.matches(ks, keyMark):
		if it := l.current(); it != nil {
			id := l.spec.id(it)
			if _, ok := l.marked[id]; ok {
				delete(l.marked, id)
			} else {
				l.marked[id] = it
			}
			if l.cursor < len(rows)-1 {
				l.cursor++
			}
		}
	case c.matches(ks, keyMarkAll):
		for _, it := range rows {
			l.marked[l.spec.id(it)] = it
		}
	case c.matches(ks, keyOpen) && l.failures != nil:
		lines := l.failures
		l.failures = nil
		return true, openOverlay(&listing{title: fmt.Sprintf("%d failed", len(lines)), lines: lines})
	case c.matches(ks, keyOpen):
		if it := l.current(); it != nil && l.spec.open != nil {
			return true, push(l.spec.open(c, it))
		}
	case c.matches(ks, keyCopy):
		if it := l.current(); it != nil {
			return true, c.copy(l.spec.primary(it))
		}
	case c.matches(ks, keyCopyID):
		if it := l.current(); it != nil {
			return true, c.copy(l.spec.id(it))
		}
	case c.matches(ks, keyShow):
		if it := l.current(); it != nil {
			return true, showValue(l.spec.primary(it))
		}
	case l.spec.create != nil && c.matches(ks, l.newKey()):
		return true, l.spec.create(c, l)
	default:
		for _, a := range l.spec.actions {
			if c.matches(ks, a.b) {
				return true, l.trigger(c, a)
			}
		}
		return false, nil
	}
	return true, nil
}

func (l *list) editKey(c *ctx, k tea.KeyMsg) tea.Cmd {
	switch k.Type {
	case tea.KeyEsc:
		l.editing = nil
		return nil
	case tea.KeyEnter:
		text := l.editing.text()
		l.editing = nil
		return l.filter(c, text)
	}
	l.editing.key(k)
	return nil
}

// filter applies filter text, typed after / or given to a palette jump: a
// small list, held whole, matches all its rows fuzzily; a paged one asks
// the server, and an exact lookup (a key, an e-mail, fp:…) opens its find.
func (l *list) filter(c *ctx, text string) tea.Cmd {
	l.cursor = 0
	if !l.spec.paged {
		l.q = query{local: strings.ToLower(text)}
		return nil
	}
	l.q = l.spec.parse(c, text)
	l.pages, l.lru, l.cursors = map[int][]any{}, nil, map[int]string{}
	l.lookup = l.q.key != "" || l.q.email != "" || l.q.fingerprint != ""
	return l.fetch(c, 1, placement{})
}

func (l *list) newKey() *binding {
	if l.spec.newKey != nil {
		return l.spec.newKey
	}
	return keyNewItem
}
