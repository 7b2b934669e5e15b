package antibot

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"strings"
	"sync"
)

// disposableDomainsFile is the disposable-email-domains list from npm, one
// lower-case domain per line, gzipped: the plain list is 1.8 MB, most of a
// checkout, and nobody reads it line by line (scripts/update-disposable-domains
// refreshes it and prints how many domains it wrote; zcat shows it).
//
//go:embed disposable_domains.txt.gz
var disposableDomainsFile []byte

var disposableDomains = sync.OnceValue(func() map[string]struct{} {
	zr, err := gzip.NewReader(bytes.NewReader(disposableDomainsFile))
	if err != nil {
		panic("antibot: the embedded disposable_domains.txt.gz is not gzip: " + err.Error())
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		panic("antibot: the embedded disposable_domains.txt.gz is damaged: " + err.Error())
	}
	list := string(raw)
	set := make(map[string]struct{}, strings.Count(list, "\n")+1)
	for line := range strings.Lines(list) {
		if d := normalizeDomain(line); d != "" {
			set[d] = struct{}{}
		}
	}
	return set
})

// IsDisposable reports whether email's domain, or any domain it belongs to,
// is a disposable-mail domain: listed in the embedded list or in extra (the
// operator's signup.blocked_domains), compared case-insensitively. Parents
// count because disposable services hand out unlimited subdomains
// (x.y.mailinator.com), which no list can enumerate.
//
// An address without a domain is not disposable; rejecting malformed
// addresses is the caller's validation, with its own message.
func IsDisposable(email string, extra []string) bool {
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return false
	}
	domain := normalizeDomain(email[at+1:])
	if domain == "" {
		return false
	}
	listed := disposableDomains()
	for d := domain; d != ""; {
		if _, ok := listed[d]; ok {
			return true
		}
		for _, x := range extra {
			if normalizeDomain(x) == d {
				return true
			}
		}
		i := strings.IndexByte(d, '.')
		if i < 0 {
			break
		}
		d = d[i+1:]
	}
	return false
}

// normalizeDomain lower-cases d and drops surrounding space, a leading "@"
// (operators write "@example.com" as often as "example.com") and the
// trailing dot of a fully qualified name.
func normalizeDomain(d string) string {
	d = strings.TrimSpace(d)
	d = strings.TrimPrefix(d, "@")
	d = strings.TrimSuffix(d, ".")
	return strings.ToLower(d)
}
