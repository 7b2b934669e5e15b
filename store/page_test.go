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

// TestPageOf: a page of a list in memory, by number or by the offset
// cursor it hands out, and a key cursor refused.
func TestPageOf(t *testing.T) {
	items := make([]*int, 5)
	for i := range items {
		items[i] = &i
	}
	for _, tt := range []struct {
		name     string
		req      PageRequest
		from, to int
		next     string
		code     string
	}{
		{name: "OKFirst", req: PageRequest{Page: 1, PerPage: 2}, from: 0, to: 2, next: OffsetCursor(2)},
		{name: "OKLast", req: PageRequest{Page: 3, PerPage: 2}, from: 4, to: 5},
		{name: "OKPastTheEnd", req: PageRequest{Page: 9, PerPage: 2}, from: 0, to: 0},
		{name: "OKCursor", req: PageRequest{Cursor: OffsetCursor(1), PerPage: 3}, from: 1, to: 4, next: OffsetCursor(4)},
		{name: "ErrValidationFailedKeyCursor", req: PageRequest{Cursor: KeyCursor([]byte("k")), PerPage: 2}, code: ECodeValidation},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PageOf(items, tt.req)
			if tt.code != "" {
				if ErrorCode(err) != tt.code {
					t.Fatalf("err = %v, want %s", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != len(items) || got.NextCursor != tt.next || len(got.Data) != tt.to-tt.from {
				t.Fatalf("got total %d, next %q, %d items; want %d, %q, %d", got.Total, got.NextCursor, len(got.Data), len(items), tt.next, tt.to-tt.from)
			}
			for i, v := range got.Data {
				if v != items[tt.from+i] {
					t.Errorf("item %d is %d, want %d", i, *v, *items[tt.from+i])
				}
			}
		})
	}
}

// TestLicenseFilterIsLookup: a key or an end-user makes a list an exact
// lookup, paged in memory; status and plan alone walk an index.
func TestLicenseFilterIsLookup(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    LicenseFilter
		want bool
	}{
		{"OKKey", LicenseFilter{Key: "K"}, true},
		{"OKUserID", LicenseFilter{UserID: "u"}, true},
		{"OKUserEmail", LicenseFilter{UserEmail: "a@example.com", Status: "active"}, true},
		{"OKStatusAndPlan", LicenseFilter{Status: "active", PlanID: "p"}, false},
		{"OKNone", LicenseFilter{}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.IsLookup(); got != tt.want {
				t.Errorf("IsLookup() = %v, want %v", got, tt.want)
			}
		})
	}
}
