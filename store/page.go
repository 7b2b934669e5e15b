package store

import (
	"encoding/base64"
	"math"
	"strconv"
)

// Pagination bounds of docs/design.md §7.
const (
	DefaultPerPage = 20
	MaxPerPage     = 100
)

// PageRequest asks for one page: by number (Page counts from 1), or after
// the Cursor an earlier page answered with as its NextCursor.
type PageRequest struct {
	Page    int
	PerPage int
	Cursor  string
}

// A cursor is opaque to clients: base64url of a tag byte and a position.
// A list that walks an index resumes at the last key it answered with, so a
// deep page costs what the first does; a list a lookup or range filter has
// already gathered in memory resumes at an offset into it.
const (
	keyCursor    = 'k'
	offsetCursor = 'o'
)

// KeyCursor is the cursor that resumes an index walk after key k.
func KeyCursor(k []byte) string {
	return base64.RawURLEncoding.EncodeToString(append([]byte{keyCursor}, k...))
}

// OffsetCursor is the cursor that resumes an in-memory list at item n.
func OffsetCursor(n int) string {
	return base64.RawURLEncoding.EncodeToString(append([]byte{offsetCursor}, strconv.Itoa(n)...))
}

func badCursor() error { return Invalid("cursor", "cursor is not one this list answered with") }

// decodeCursor returns the tag and position of a cursor.
func decodeCursor(c string) (byte, []byte, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) < 2 || (b[0] != keyCursor && b[0] != offsetCursor) {
		return 0, nil, badCursor()
	}
	return b[0], b[1:], nil
}

// CursorKey is the index key a key cursor resumes after, or nil without a
// cursor. An offset cursor or a malformed one is validation_failed.
func (p PageRequest) CursorKey() ([]byte, error) {
	if p.Cursor == "" {
		return nil, nil
	}
	tag, pos, err := decodeCursor(p.Cursor)
	if err != nil || tag != keyCursor {
		return nil, badCursor()
	}
	return pos, nil
}

// Start is the index of the first item of the page in a list gathered in
// memory: from the page number, or from an offset cursor. A key cursor or a
// malformed one is validation_failed.
func (p PageRequest) Start() (int, error) {
	if p.Cursor == "" {
		return p.Offset(), nil
	}
	tag, pos, err := decodeCursor(p.Cursor)
	if err != nil || tag != offsetCursor {
		return 0, badCursor()
	}
	n, err := strconv.Atoi(string(pos))
	if err != nil || n < 0 {
		return 0, badCursor()
	}
	return n, nil
}

// PageOf cuts the requested page out of items gathered in memory (what a
// lookup by key or by end-user found); its next cursor is an offset into
// them. A cursor Start refuses is validation_failed.
func PageOf[T any](items []*T, p PageRequest) (*Page[*T], error) {
	from, err := p.Start()
	if err != nil {
		return nil, err
	}
	out := &Page[*T]{Data: []*T{}, Total: len(items), Page: p.Page, PerPage: p.PerPage}
	if from < len(items) {
		end := min(len(items), from+p.PerPage)
		out.Data = items[from:end]
		if end < len(items) {
			out.NextCursor = OffsetCursor(end)
		}
	}
	return out, nil
}

// Offset is the number of items before a numbered page.
func (p PageRequest) Offset() int { return (p.Page - 1) * p.PerPage }

// Normalize fills in defaults and checks bounds. Returns validation_failed.
// A cursor stands in for the page number: both at once are refused, and a
// cursor's page reads as 0 (paging by cursor does not count pages).
func (p *PageRequest) Normalize() error {
	if p.PerPage == 0 {
		p.PerPage = DefaultPerPage
	}
	if p.Cursor != "" {
		if p.Page != 0 {
			return Invalid("cursor", "cursor and page cannot be combined")
		}
		if _, _, err := decodeCursor(p.Cursor); err != nil {
			return err
		}
	} else if p.Page == 0 {
		p.Page = 1
	}
	if p.Page < 0 {
		return Invalid("page", "page must be at least 1")
	}
	if p.PerPage < 1 || p.PerPage > MaxPerPage {
		return Invalid("per_page", "per_page must be between 1 and %d", MaxPerPage)
	}
	// A page so far out that its offset would not fit an int would wrap to
	// a negative offset; no list is that long.
	if p.Page > math.MaxInt/p.PerPage {
		return Invalid("page", "page %d is past the end of any list", p.Page)
	}
	return nil
}

// Page is one page of a list and the count of all matches. NextCursor
// fetches the page after this one; "" on the last page.
type Page[T any] struct {
	Data       []T
	Total      int
	Page       int
	PerPage    int
	NextCursor string
}
