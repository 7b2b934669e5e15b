package server

import (
	"net/http"
	"net/netip"
)

// addrKey is the key a per-address limit counts a client under (docs/design.md §7):
// an IPv4 client by its address, an IPv6 client by its /64. One host usually
// holds a whole /64, so keying on the full IPv6 address would hand it 2^64
// fresh buckets. A value that is not an address keys as itself.
func addrKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	if a.Is4() {
		return ip
	}
	a = a.WithZone("")
	if a.Is4In6() {
		return a.Unmap().String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return ip
	}
	return p.String()
}

// clientKey is the per-address limit key of the request's client.
func clientKey(r *http.Request) string {
	return addrKey(clientIP(r))
}
