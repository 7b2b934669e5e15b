package password

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/trustelem/zxcvbn"

	"licensectl/store"
)

// Length bounds of an acceptable password, in Unicode characters (runes),
// so that a passphrase in any script gets the same allowance.
const (
	MinLength = 10
	MaxLength = 256
)

// MinScore is the lowest acceptable zxcvbn score (0–4). 3 means "safely
// unguessable: moderate protection from offline slow-hash scenario", which
// is what an argon2id-hashed password needs if the database leaks.
const MinScore = 3

// scoreRunes is how much of a password zxcvbn examines. Its matching grows
// faster than linearly with length (a random 100-character password takes
// ~0.4 s) and policy checks run before any limit on hashing, so only a prefix
// is scored; a prefix that is hard to guess already clears the bar.
const scoreRunes = 64

// minLocalPart is the shortest e-mail local part that is checked for: a
// two-letter local part ("jo@…") occurs by chance in many good passwords.
const minLocalPart = 3

// commonPasswordsFile holds the 10,000 most frequent passwords of zxcvbn's
// frequency list, lower-cased, one a line, most frequent first, gzipped (39 KB
// instead of 76 KB of every checkout); scripts/update-common-passwords
// regenerates it and `zcat` shows it.
//
//go:embed common_passwords.txt.gz
var commonPasswordsFile []byte

// commonPasswordList decodes the embedded list, in its order.
func commonPasswordList() []string {
	zr, err := gzip.NewReader(bytes.NewReader(commonPasswordsFile))
	if err != nil {
		panic("password: the embedded common_passwords.txt.gz is not gzip: " + err.Error())
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		panic("password: the embedded common_passwords.txt.gz is damaged: " + err.Error())
	}
	var list []string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		if w := strings.TrimSpace(sc.Text()); w != "" {
			list = append(list, w)
		}
	}
	return list
}

var commonPasswords = sync.OnceValue(func() map[string]struct{} {
	list := commonPasswordList()
	set := make(map[string]struct{}, len(list))
	for _, w := range list {
		set[w] = struct{}{}
	}
	return set
})

// IsCommon reports whether password is among the 10,000 most common
// passwords, ignoring case.
func IsCommon(password string) bool {
	_, ok := commonPasswords()[strings.ToLower(password)]
	return ok
}

// CheckPolicy returns nil when password is acceptable for the account with
// the given e-mail, and otherwise a validation_failed error on field
// "password" whose message tells the user what to change. There are no
// composition rules (digits, symbols, ...): length and guessability decide.
func CheckPolicy(password, email string) error {
	if !utf8.ValidString(password) {
		return store.Invalid("password", "password must be valid UTF-8 text")
	}
	n := utf8.RuneCountInString(password)
	if n < MinLength {
		return store.Invalid("password", "password must be at least %d characters long", MinLength)
	}
	if n > MaxLength {
		return store.Invalid("password", "password must be at most %d characters long", MaxLength)
	}
	if IsCommon(password) {
		return store.Invalid("password", "password is one of the most commonly used passwords; choose another")
	}
	local := localPart(email)
	if utf8.RuneCountInString(local) >= minLocalPart &&
		strings.Contains(strings.ToLower(password), strings.ToLower(local)) {
		return store.Invalid("password", "password must not contain your e-mail address")
	}
	var inputs []string
	if email != "" {
		inputs = append(inputs, email)
	}
	if local != "" {
		inputs = append(inputs, local)
	}
	if zxcvbn.PasswordStrength(scoreable(password), inputs).Score < MinScore {
		return store.Invalid("password", "password is too easy to guess; a few unrelated words make a strong, memorable password")
	}
	return nil
}

// localPart returns the part of email before its last "@" ("" when there is
// none). The last "@" is the separator because a quoted local part may hold
// one of its own.
func localPart(email string) string {
	i := strings.LastIndexByte(email, '@')
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(email[:i])
}

// scoreable returns the first scoreRunes characters of password with every
// non-ASCII character replaced by an ASCII letter. The Go port of zxcvbn
// indexes bytes and runes inconsistently: it misses repeats of non-ASCII
// characters ("éééééééééé" scores 4) and reports 0 guesses for long non-ASCII
// passwords. Its dictionaries are ASCII, so folding loses no matches, while
// equal characters stay equal (repeats are seen) and consecutive code points
// mostly stay consecutive (sequences such as "абвгд" are seen). Bruteforce
// estimates do not depend on the character set, so folding never inflates a
// score; collisions can only make a password look weaker.
func scoreable(password string) string {
	var b strings.Builder
	n := 0
	for _, r := range password {
		if n == scoreRunes {
			break
		}
		n++
		if r < utf8.RuneSelf {
			b.WriteRune(r)
			continue
		}
		b.WriteByte(byte('a' + r%26))
	}
	return b.String()
}

// WithCommonList is p checking end-user passwords against this package's
// list of common ones where p names no other test.
func WithCommonList(p store.Policies) store.Policies {
	if p.CommonPassword == nil {
		p.CommonPassword = IsCommon
	}
	return p
}
