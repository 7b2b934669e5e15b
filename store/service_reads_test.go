package store

import (
	"errors"
	"slices"
	"testing"
)

func TestResolveEntitlements(t *testing.T) {
	known := map[string]*Entitlement{
		"a": {ID: "a", Key: "ka", Name: "A"},
		"b": {ID: "b", Key: "kb", Name: "B"},
	}
	failed := errors.New("read failed")
	for _, c := range []struct {
		name    string
		lists   [][]string
		err     error
		want    []string // keys, in order
		wantErr string
		reads   int
	}{
		{name: "OKNone", lists: nil, want: []string{}},
		{name: "OKInOrderEachOnce", lists: [][]string{{"b", "a"}, {"a", "b"}}, want: []string{"kb", "ka"}, reads: 1},
		{name: "ErrNotFound", lists: [][]string{{"a", "gone"}}, wantErr: ECodeNotFound, reads: 1},
		{name: "ErrRead", lists: [][]string{{"a"}}, err: failed, wantErr: ECodeInternal, reads: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			reads := 0
			refs, err := ResolveEntitlements(func(ids []string) (map[string]*Entitlement, error) {
				reads++
				return known, c.err
			}, c.lists...)
			if reads != c.reads {
				t.Errorf("reads = %d, want %d", reads, c.reads)
			}
			if c.wantErr != "" {
				if got := ErrorCode(err); got != c.wantErr || refs != nil || c.err != nil && !errors.Is(err, c.err) {
					t.Fatalf("ResolveEntitlements = %v, %v (code %q); want code %q", refs, err, got, c.wantErr)
				}
				return
			}
			keys := []string{}
			for _, r := range refs {
				keys = append(keys, r.Key)
			}
			if err != nil || refs == nil || !slices.Equal(keys, c.want) {
				t.Fatalf("ResolveEntitlements = %v, %v; want keys %v", refs, err, c.want)
			}
		})
	}
}
