package server

import (
	"net/http/httptest"
	"testing"
)

func TestForwardedClient(t *testing.T) {
	t.Parallel()
	trusted, err := parseTrusted([]string{"127.0.0.1/32", "10.0.0.0/8", "::1"})
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{trusted: trusted}
	tests := []struct {
		name, remote string
		xff          []string
		want         string
	}{
		{"NoHeader", "127.0.0.1:5000", nil, "127.0.0.1"},
		{"UntrustedPeerIgnoresHeader", "198.51.100.1:5000", []string{"203.0.113.9"}, "198.51.100.1"},
		{"OneHop", "127.0.0.1:5000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"ClientSpoofsLeftEntries", "127.0.0.1:5000", []string{"1.2.3.4, 203.0.113.9"}, "203.0.113.9"},
		{"ChainOfTrustedProxies", "127.0.0.1:5000", []string{"203.0.113.9, 10.1.2.3"}, "203.0.113.9"},
		{"SeveralHeaders", "127.0.0.1:5000", []string{"203.0.113.9", "10.1.2.3"}, "203.0.113.9"},
		{"MalformedStops", "127.0.0.1:5000", []string{"203.0.113.9, not-an-ip"}, "127.0.0.1"},
		{"AllTrusted", "127.0.0.1:5000", []string{"10.0.0.5"}, "10.0.0.5"},
		{"IPv6Peer", "[::1]:5000", []string{"2001:db8::7"}, "2001:db8::7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/healthz", nil)
			r.RemoteAddr = tt.remote
			for _, h := range tt.xff {
				r.Header.Add("X-Forwarded-For", h)
			}
			if got := s.forwardedClient(r); got != tt.want {
				t.Fatalf("forwardedClient = %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := parseTrusted([]string{"nope"}); err == nil {
		t.Fatal("parseTrusted accepted a malformed entry")
	}
}

func TestAddrKey(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, ip, want string }{
		{"IPv4", "203.0.113.9", "203.0.113.9"},
		{"IPv6", "2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"},
		{"IPv6SameNet", "2001:db8:1:2::1", "2001:db8:1:2::/64"},
		{"IPv6OtherNet", "2001:db8:1:3::1", "2001:db8:1:3::/64"},
		{"IPv4Mapped", "::ffff:198.51.100.7", "198.51.100.7"},
		{"Zone", "fe80::1%eth0", "fe80::/64"},
		{"Loopback6", "::1", "::/64"},
		{"NotAnAddress", "pipe", "pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := addrKey(tt.ip); got != tt.want {
				t.Fatalf("addrKey(%q) = %q, want %q", tt.ip, got, tt.want)
			}
		})
	}
}
