package antibot

import (
	"bytes"
	"compress/bzip2"
	_ "embed"
	"fmt"
	"io"
	"strings"
	"sync"
)

// disposableDomainsFile is the disposable-email-domains list from npm,
// sorted and front-coded, then bzip2-compressed: each line is one character, '0' plus
// the number of bytes the domain shares with the line before (the next
// domain of a sorted list mostly repeats the previous one's start), then the
// rest of the domain, then compressed with bzip2. The plain list is 1.8 MB,
// most of a checkout; gzip alone made it 682 KB, front-coding first 566 KB,
// bzip2 instead of gzip 475 KB. Nobody reads it line by line:
// scripts/update-disposable-domains refreshes it and prints how many domains it
// wrote.
//
//go:embed disposable_domains.txt.bz2
var disposableDomainsFile []byte

// disposableDomainList decodes the embedded list into its sorted domains.
func disposableDomainList() []string {
	raw, err := io.ReadAll(bzip2.NewReader(bytes.NewReader(disposableDomainsFile)))
	if err != nil {
		panic("antibot: the embedded disposable_domains.txt.bz2 is damaged: " + err.Error())
	}
	list, err := decodeFrontCoded(string(raw))
	if err != nil {
		panic("antibot: the embedded disposable_domains.txt.bz2 is damaged: " + err.Error())
	}
	return list
}

// maxSharedPrefix bounds the shared length a line's first character can say
// ('0'+78 is '~', the last printable ASCII character); the encoder shares no
// more, whatever the domains have in common.
const maxSharedPrefix = 78

// decodeFrontCoded reverses the front coding of disposableDomainsFile: each
// line starts with '0' plus the length of the prefix it shares with the
// previous domain, followed by the rest of the domain.
func decodeFrontCoded(raw string) ([]string, error) {
	if raw == "" {
		return nil, nil
	}
	list := make([]string, 0, strings.Count(raw, "\n")+1)
	prev := ""
	for i, line := range strings.Split(strings.TrimSuffix(raw, "\n"), "\n") {
		if len(line) < 2 {
			return nil, fmt.Errorf("line %d holds no domain", i+1)
		}
		shared := int(line[0]) - '0'
		if shared < 0 || shared > maxSharedPrefix || shared > len(prev) {
			return nil, fmt.Errorf("line %d shares %q with a previous domain of %d bytes", i+1, line[0], len(prev))
		}
		d := prev[:shared] + line[1:]
		if d <= prev {
			return nil, fmt.Errorf("line %d: %q does not sort after %q", i+1, d, prev)
		}
		list = append(list, d)
		prev = d
	}
	return list, nil
}

var disposableDomains = sync.OnceValue(func() map[string]struct{} {
	list := disposableDomainList()
	set := make(map[string]struct{}, len(list))
	for _, line := range list {
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
