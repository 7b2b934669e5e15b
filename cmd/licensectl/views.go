package main

// The JSON output of the commands uses the HTTP API's types and their
// mappings from the domain (server/api: XOf), so a script reads the same
// fields locally, remotely and from the API (docs/design.md §7).

// nonNil turns a nil list into an empty one, so JSON shows [] rather than null.
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// mapSlice maps a slice through fn, never returning nil.
func mapSlice[S, T any](in []S, fn func(S) T) []T {
	out := make([]T, 0, len(in))
	for _, v := range in {
		out = append(out, fn(v))
	}
	return out
}
