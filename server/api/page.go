package api

import "licensectl/store"

// Page is the envelope of paginated lists: one page of Data, the Total of
// the whole list, the page asked for (0 when asked by cursor), and the
// NextCursor that fetches the page after it ("" on the last page).
type Page[T any] struct {
	Data       []T    `json:"data"`
	Total      int    `json:"total"`
	Page       int    `json:"page"`
	PerPage    int    `json:"per_page"`
	NextCursor string `json:"next_cursor"`
}

// PageOf maps a store page through fn into the envelope; Data is never nil.
func PageOf[S, T any](p *store.Page[S], fn func(S) T) Page[T] {
	out := Page[T]{Data: make([]T, 0, len(p.Data)), Total: p.Total, Page: p.Page, PerPage: p.PerPage, NextCursor: p.NextCursor}
	for _, v := range p.Data {
		out.Data = append(out.Data, fn(v))
	}
	return out
}

// WholePage is a list the store answers whole (every organization, for the
// operator) in the page envelope of the paged lists: page 1, holding all of
// it. A client reads it as it reads any page, and the list can be paged later
// without changing its shape. Data is never nil.
func WholePage[T any](data []T) Page[T] {
	if data == nil {
		data = []T{}
	}
	return Page[T]{Data: data, Total: len(data), Page: 1, PerPage: len(data)}
}

// StorePage maps the envelope back into a store page through fn.
func StorePage[S, T any](b Page[S], fn func(S) T) *store.Page[T] {
	out := &store.Page[T]{Data: make([]T, 0, len(b.Data)), Total: b.Total, Page: b.Page, PerPage: b.PerPage, NextCursor: b.NextCursor}
	for _, v := range b.Data {
		out.Data = append(out.Data, fn(v))
	}
	return out
}
