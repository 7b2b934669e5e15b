package api

import "licensectl/store"

// Page is the envelope of paginated lists: one page of Data, the Total of
// the whole list, and the page asked for.
type Page[T any] struct {
	Data    []T `json:"data"`
	Total   int `json:"total"`
	Page    int `json:"page"`
	PerPage int `json:"per_page"`
}

// PageOf maps a store page through fn into the envelope; Data is never nil.
func PageOf[S, T any](p *store.Page[S], fn func(S) T) Page[T] {
	out := Page[T]{Data: make([]T, 0, len(p.Data)), Total: p.Total, Page: p.Page, PerPage: p.PerPage}
	for _, v := range p.Data {
		out.Data = append(out.Data, fn(v))
	}
	return out
}

// StorePage maps the envelope back into a store page through fn.
func StorePage[S, T any](b Page[S], fn func(S) T) *store.Page[T] {
	out := &store.Page[T]{Data: make([]T, 0, len(b.Data)), Total: b.Total, Page: b.Page, PerPage: b.PerPage}
	for _, v := range b.Data {
		out.Data = append(out.Data, fn(v))
	}
	return out
}
