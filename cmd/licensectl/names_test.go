package main

import (
	"strings"
	"testing"

	"licensectl/store"
)

func TestPick(t *testing.T) {
	t.Parallel()
	apps := []store.Application{
		{ID: "a1", Slug: "photo-studio", Name: "Photo Studio"},
		{ID: "a2", Slug: "photo-lab", Name: "Photo Lab"},
		{ID: "a3", Slug: "notes", Name: "Notes"},
		{ID: "a4", Slug: "notes-2", Name: "notes"},
	}
	describe := func(a store.Application) named {
		return named{id: a.ID, exact: []string{a.Slug}, names: []string{a.Name}}
	}
	tests := []struct {
		name, query, want string
		code              string
		message           string
	}{
		{name: "OK/id", query: "a2", want: "a2"},
		{name: "OK/slug", query: "photo-studio", want: "a1"},
		{name: "OK/name any case", query: "PHOTO lab", want: "a2"},
		{name: "OK/slug beats a shared name", query: "notes", want: "a3"},
		{name: "ErrConflict/shared name", query: "NOTES", code: store.ECodeConflict, message: "use the id"},
		{name: "ErrNotFound/typo", query: "foto-studio", code: store.ECodeNotFound, message: `did you mean "photo-studio"?`},
		{name: "ErrNotFound/nothing close", query: "zzzzzzzz", code: store.ECodeNotFound, message: `application "zzzzzzzz" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pick("application", tt.query, apps, describe)
			if tt.code == "" {
				if err != nil || got.ID != tt.want {
					t.Fatalf("pick(%q) = %q, %v; want %q", tt.query, got.ID, err, tt.want)
				}
				return
			}
			if store.ErrorCode(err) != tt.code || !strings.Contains(err.Error(), tt.message) {
				t.Fatalf("pick(%q) error = %v; want code %s containing %q", tt.query, err, tt.code, tt.message)
			}
		})
	}
}

func TestLevenshtein(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"licença", "licenca", 1}} {
		if got := levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
