package antibot

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestIsDisposable(t *testing.T) {
	extra := []string{"Blocked.Example", "@also-blocked.test"}
	tests := []struct {
		email string
		want  bool
	}{
		{"bob@mailinator.com", true},
		{"bob@MAILINATOR.COM", true},
		{"bob@mailinator.com.", true},
		{"bob@b.mailinator.com", true},
		{"bob@a.b.mailinator.com", true},
		{"bob@blocked.example", true},
		{"bob@team.blocked.example", true},
		{"bob@also-blocked.test", true},
		{`"odd@local"@mailinator.com`, true},
		{"bob@gmail.com", false},
		{"bob@example.com", false},
		{"bob@amailinator.com", false}, // a suffix that is not a parent domain
		{"bob@mailinator.com.evil.example", false},
		{"bob@blocked.example.org", false},
		{"no-at-sign", false},
		{"bob@", false},
	}
	for _, tt := range tests {
		if got := IsDisposable(tt.email, extra); got != tt.want {
			t.Errorf("IsDisposable(%q) = %v, want %v", tt.email, got, tt.want)
		}
	}
	if IsDisposable("bob@blocked.example", nil) {
		t.Error("IsDisposable without extra matched an extra-only domain")
	}
}

func TestDisposableListEmbedded(t *testing.T) {
	set := disposableDomains()
	if len(set) < 10000 {
		t.Fatalf("got %d disposable domains, want the full list", len(set))
	}
	for d := range set {
		if d != strings.ToLower(d) || strings.TrimSpace(d) != d || d == "" {
			t.Fatalf("got list entry %q, want lower-case trimmed domains", d)
		}
	}
}

// TestDisposableListContent pins the embedded list's domains: their number
// and the SHA-256 of the sorted list, one domain and a newline each (what
// `zcat` of the plain gzipped list gave before it was front-coded), so a
// change of encoding cannot change the set.
func TestDisposableListContent(t *testing.T) {
	list := disposableDomainList()
	const wantCount = 121581
	const wantSum = "779fb21c72a208318312104fbaf07f12d8206aa30d71a782b9dfdee535fca9e7"
	if len(list) != wantCount {
		t.Errorf("got %d domains, want %d", len(list), wantCount)
	}
	if !slices.IsSorted(list) {
		t.Error("the list is not sorted")
	}
	h := sha256.New()
	for _, d := range list {
		io.WriteString(h, d+"\n")
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != wantSum {
		t.Errorf("got SHA-256 %s of the sorted list, want %s", got, wantSum)
	}
	if set := disposableDomains(); len(set) != wantCount {
		t.Errorf("got %d domains in the set, want %d", len(set), wantCount)
	}
}

func TestDecodeFrontCoded(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    []string
		wantErr bool
	}{
		{"empty", "", nil, false},
		{"one", "0a.com\n", []string{"a.com"}, false},
		{"out of order", "0ab.com\n2c.com\n1b\n", nil, true},
		{"sorted shares", "0ab.com\n2c.com\n0b.com\n", []string{"ab.com", "abc.com", "b.com"}, false},
		{"no final newline", "0a.com\n1b.com", []string{"a.com", "ab.com"}, false},
		{"shares more than the previous", "0a\n5b\n", nil, true},
		{"first line shares", "1a.com\n", nil, true},
		{"below zero", "0a.com\n/b\n", nil, true},
		{"empty line", "0a.com\n\n0b.com\n", nil, true},
		{"no rest", "0a.com\n5\n", nil, true},
		{"duplicate", "0a.com\n0a.com\n", nil, true},
	}
	for _, tt := range tests {
		got, err := decodeFrontCoded(tt.raw)
		if tt.wantErr {
			if err == nil {
				t.Errorf("%s: got %q, want an error", tt.name, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}
