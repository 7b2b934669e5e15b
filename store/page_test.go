package store

import (
	"math"
	"testing"
)

func TestPageRequestNormalize(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   PageRequest
		ok   bool
	}{
		{"OKDefaults", PageRequest{}, true},
		{"OKLastPageThatFits", PageRequest{Page: math.MaxInt / MaxPerPage, PerPage: MaxPerPage}, true},
		{"ErrNegativePage", PageRequest{Page: -1}, false},
		{"ErrPerPage", PageRequest{PerPage: MaxPerPage + 1}, false},
		{"ErrOffsetOverflows", PageRequest{Page: 899999999999999999, PerPage: 20}, false},
		{"ErrOffsetOverflowsByOne", PageRequest{Page: math.MaxInt/MaxPerPage + 1, PerPage: MaxPerPage}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.in
			err := p.Normalize()
			if (err == nil) != tt.ok {
				t.Fatalf("Normalize(%+v) = %v, want ok %v", tt.in, err, tt.ok)
			}
			if err == nil && p.Offset() < 0 {
				t.Fatalf("Normalize(%+v) let through a negative offset %d", tt.in, p.Offset())
			}
			if err != nil && ErrorCode(err) != ECodeValidation {
				t.Fatalf("Normalize(%+v) = %v, want validation_failed", tt.in, err)
			}
		})
	}
}
