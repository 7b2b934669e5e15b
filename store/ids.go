package store

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/google/uuid"
	"golang.org/x/text/unicode/norm"
	"licensectl.dev/sdk/go/machinefile"
)

// NewID returns a new UUIDv7 string; ids are time-ordered so that newest-first
// listing is a reverse walk of the primary key.
func NewID() string {
	id, err := uuid.NewV7()
	if err != nil {
		// uuid.NewV7 only fails when crypto/rand fails, which the runtime treats as fatal.
		panic(err)
	}
	return id.String()
}

// ValidID reports whether s is a canonical UUID string.
func ValidID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

var (
	slugRE        = regexp.MustCompile(`^[a-z][a-z0-9-]{1,61}[a-z0-9]$`)
	entKeyRE      = regexp.MustCompile(`^[a-z0-9][a-z0-9._:-]{0,63}$`)
	nonSlugCharRE = regexp.MustCompile(`[^a-z0-9]+`)
)

// ValidSlug reports whether s is a slug of docs/design.md §3.
func ValidSlug(s string) bool { return slugRE.MatchString(s) && !strings.Contains(s, "--") }

// ValidKey reports whether s is an entitlement key or end-user role id.
func ValidKey(s string) bool { return entKeyRE.MatchString(s) }

// Slugify derives a slug from a name; the result may still be invalid (too
// short, or empty for a name without Latin letters or digits).
func Slugify(name string) string {
	s := strings.TrimLeft(slugWords(name), "0123456789-")
	if len(s) > 63 {
		s = strings.TrimRight(s[:63], "-")
	}
	return s
}

// ApplicationSlug derives an application's slug from its name when the
// caller gives none. A name too short for a slug ("Go", "X2") gets the
// prefix app-, as organizations get org-; a name that leaves nothing
// (only non-Latin script, "日本語アプリ") is refused naming slug, since a
// generated slug would be a name nobody chose to type in --app.
func ApplicationSlug(name string) (string, error) {
	if s := Slugify(name); ValidSlug(s) {
		return s, nil
	}
	if w := slugWords(name); w != "" {
		if len(w) > 59 {
			w = strings.TrimRight(w[:59], "-")
		}
		if s := "app-" + w; ValidSlug(s) {
			return s, nil
		}
	}
	return "", Invalid("slug", "name %q gives no slug (it needs Latin letters or digits): pass slug (app create --slug), e.g. \"my-app\"", name)
}

// slugWords is name lower-cased and transliterated to ASCII (accents
// dropped: "Éditeur" → "editeur"), every other run of characters one dash.
func slugWords(name string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(strings.ToLower(name)) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// A combining mark NFD split off its letter.
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		default:
			if t, ok := latinLetters[r]; ok {
				b.WriteString(t)
			} else {
				b.WriteByte('-')
			}
		}
	}
	return strings.Trim(nonSlugCharRE.ReplaceAllString(b.String(), "-"), "-")
}

// latinLetters are the lower-case Latin letters NFD does not decompose.
var latinLetters = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d", 'ð': "d", 'þ': "th", 'ı': "i", 'ħ': "h",
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewSecret returns prefix followed by 32 random bytes in base62.
func NewSecret(prefix string) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	n := new(big.Int).SetBytes(b[:])
	var out []byte
	base := big.NewInt(62)
	mod := new(big.Int)
	for n.Sign() > 0 {
		n.DivMod(n, base, mod)
		out = append(out, base62[mod.Int64()])
	}
	for len(out) < 43 {
		out = append(out, '0')
	}
	return prefix + string(out)
}

// HashSecret returns the hex SHA-256 of a secret or token; only hashes are stored.
func HashSecret(s string) string {
	h := SumSecret(s)
	return hex.EncodeToString(h[:])
}

// SumSecret is the SHA-256 of s. It hashes the string's bytes in place:
// a []byte(s) conversion escapes into the hash and would copy every token
// (access tokens are ~700 bytes) on the validation path. Sum256 only reads
// its argument, so the string's immutability is kept.
func SumSecret(s string) [32]byte {
	return sha256.Sum256(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// Secret prefixes of docs/design.md §3.
const (
	PrefixSecretLive = "app_sec_live_"
	PrefixSecretTest = "app_sec_test_"
	PrefixPublicLive = "app_pub_live_"
	PrefixPublicTest = "app_pub_test_"
	PrefixAPIKey     = "dev_key_"
	PrefixWebhook    = "whsec_"
)

// crockford is the Crockford base32 alphabet used by license keys.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// LicenseKeyAlphabet is the alphabet of license keys, for encodings of them.
const LicenseKeyAlphabet = crockford

// NewLicenseKey returns 25 random Crockford base32 characters (125 bits) in five
// dash-separated groups of five.
func NewLicenseKey() string {
	var b [25]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	out := make([]byte, 0, 29)
	for i, c := range b {
		if i > 0 && i%5 == 0 {
			out = append(out, '-')
		}
		out = append(out, crockford[c&31])
	}
	return string(out)
}

// NormalizeLicenseKey turns user input into the canonical key form: trimmed,
// upper-cased, dashes and spaces ignored, O read as 0 and I/L as 1. It returns
// "" when the input cannot be a license key. The rule is the client
// library's (machinefile.NormalizeLicenseKey), so that a key typed any way
// the server accepts also opens its machine file.
func NormalizeLicenseKey(in string) string { return machinefile.NormalizeLicenseKey(in) }
