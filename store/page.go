package store

// Pagination bounds of docs/design.md §7.
const (
	DefaultPerPage = 20
	MaxPerPage     = 100
)

// PageRequest asks for one page; Page counts from 1.
type PageRequest struct {
	Page    int
	PerPage int
}

// Offset is the number of items before the page.
func (p PageRequest) Offset() int { return (p.Page - 1) * p.PerPage }

// Normalize fills in defaults and checks bounds. Returns validation_failed.
func (p *PageRequest) Normalize() error {
	if p.Page == 0 {
		p.Page = 1
	}
	if p.PerPage == 0 {
		p.PerPage = DefaultPerPage
	}
	if p.Page < 1 {
		return Invalid("page", "page must be at least 1")
	}
	if p.PerPage < 1 || p.PerPage > MaxPerPage {
		return Invalid("per_page", "per_page must be between 1 and %d", MaxPerPage)
	}
	return nil
}

// Page is one page of a list and the count of all matches.
type Page[T any] struct {
	Data    []T
	Total   int
	Page    int
	PerPage int
}
