package antibot

import (
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
