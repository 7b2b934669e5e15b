package main

import (
	"fmt"
	"slices"
	"strings"

	"licensectl/store"
)

// named is how a command line can name a thing: its id or slug exactly, or
// one of its names in any letter case.
type named struct {
	id    string
	exact []string // slugs, keys: matched first as typed
	names []string // display names
}

// pick resolves name among items, as a person would type it: an id or slug
// exactly, else a slug or name in any letter case. A miss says which names come
// close ("did you mean"); a name shared by several items asks for the id.
func pick[T any](kind, name string, items []T, describe func(T) named) (T, error) {
	var zero T
	var byName []T
	for _, it := range items {
		d := describe(it)
		if d.id == name || slices.Contains(d.exact, name) {
			return it, nil
		}
		if slices.ContainsFunc(append(d.names, d.exact...), func(n string) bool { return strings.EqualFold(n, name) }) {
			byName = append(byName, it)
		}
	}
	switch len(byName) {
	case 1:
		return byName[0], nil
	case 0:
		msg := fmt.Sprintf("%s %q not found", kind, name)
		if s := suggest(name, items, describe); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return zero, store.Errorf(store.ECodeNotFound, "%s", msg)
	}
	return zero, store.Errorf(store.ECodeConflict, "%d %ss are named %q: use the id", len(byName), kind, name)
}

// suggest returns up to three quoted names or slugs close to name: ones that
// contain it in any letter case, or a few typing mistakes away.
func suggest[T any](name string, items []T, describe func(T) named) []string {
	type cand struct {
		text string
		dist int
	}
	var cands []cand
	low := strings.ToLower(name)
	for _, it := range items {
		d := describe(it)
		best := -1
		var text string
		for _, n := range append(append([]string{}, d.exact...), d.names...) {
			l := strings.ToLower(n)
			dist := levenshtein(low, l)
			if strings.Contains(l, low) {
				dist = 0
			}
			if limit := max(2, len([]rune(low))/3); dist <= limit && (best < 0 || dist < best) {
				best, text = dist, n
			}
		}
		if best >= 0 {
			cands = append(cands, cand{fmt.Sprintf("%q", text), best})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return a.dist - b.dist })
	var out []string
	for _, c := range cands {
		if len(out) == 3 {
			break
		}
		if !slices.Contains(out, c.text) {
			out = append(out, c.text)
		}
	}
	return out
}

// levenshtein is the edit distance between a and b, in runes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
