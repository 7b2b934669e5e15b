package pix

import (
	"errors"
	"strings"
)

// Document kinds returned by ParseDocument.
const (
	KindCPF  = "cpf"
	KindCNPJ = "cnpj"
)

// Errors of ParseDocument. They say what is wrong without echoing the number.
var (
	ErrDocumentLength = errors.New("must be a CPF (11 digits) or a CNPJ (14 characters)")
	ErrDocumentChars  = errors.New("holds characters a CPF or CNPJ cannot have")
	ErrDocumentDigits = errors.New("check digits do not match")
)

// ParseDocument reads a CPF or CNPJ written with or without punctuation
// (dots, dashes, slashes, spaces) and returns it bare and upper-cased with its
// kind, after checking its check digits. A CNPJ may be alphanumeric (the form
// Receita Federal issues from July 2026): its first twelve characters are
// digits or letters, the two check digits are always digits.
func ParseDocument(s string) (doc, kind string, err error) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '.' || r == '-' || r == '/' || r == ' ':
			continue
		case r >= '0' && r <= '9', r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		default:
			return "", "", ErrDocumentChars
		}
	}
	doc = b.String()
	switch len(doc) {
	case 11:
		if !onlyDigits(doc) {
			return "", "", ErrDocumentChars
		}
		if !ValidCPF(doc) {
			return "", "", ErrDocumentDigits
		}
		return doc, KindCPF, nil
	case 14:
		if !onlyDigits(doc[12:]) {
			return "", "", ErrDocumentChars
		}
		if !ValidCNPJ(doc) {
			return "", "", ErrDocumentDigits
		}
		return doc, KindCNPJ, nil
	}
	return "", "", ErrDocumentLength
}

// ValidCPF reports whether s, eleven bare digits, is a CPF with matching check
// digits. The eleven repetitions of one digit pass the arithmetic but are
// never issued, so they are refused.
func ValidCPF(s string) bool {
	if len(s) != 11 || !onlyDigits(s) || allSame(s) {
		return false
	}
	return cpfDigit(s[:9], 10) == s[9] && cpfDigit(s[:10], 11) == s[10]
}

// cpfDigit computes one CPF check digit: the digits weighted from weight down
// to 2, the sum times ten modulo eleven, with ten counting as zero.
func cpfDigit(s string, weight int) byte {
	sum := 0
	for i := 0; i < len(s); i++ {
		sum += int(s[i]-'0') * (weight - i)
	}
	d := sum * 10 % 11
	if d == 10 {
		d = 0
	}
	return byte('0' + d)
}

// ValidCNPJ reports whether s, fourteen bare upper-case characters, is a CNPJ
// with matching check digits. Each character counts as its ASCII code minus
// 48, which gives digits their value and letters 17 ('A') to 42 ('Z'); this
// is the rule Receita Federal published for the alphanumeric CNPJ, and it
// leaves every numeric CNPJ's digits unchanged.
func ValidCNPJ(s string) bool {
	if len(s) != 14 || !onlyDigits(s[12:]) || allSame(s) {
		return false
	}
	for i := 0; i < 12; i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return cnpjDigit(s[:12]) == s[12] && cnpjDigit(s[:13]) == s[13]
}

// cnpjDigit computes one CNPJ check digit: weights 2 to 9 from the right,
// cycling, and eleven minus the remainder, with remainders 0 and 1 giving 0.
func cnpjDigit(s string) byte {
	sum, weight := 0, 2
	for i := len(s) - 1; i >= 0; i-- {
		sum += int(s[i]-'0') * weight
		weight++
		if weight > 9 {
			weight = 2
		}
	}
	r := sum % 11
	if r < 2 {
		return '0'
	}
	return byte('0' + 11 - r)
}

// ValidE164 reports whether s is a phone number in E.164 form: a plus sign,
// a country code not starting with zero, and 8 to 15 digits in all.
func ValidE164(s string) bool {
	if len(s) < 9 || len(s) > 16 || s[0] != '+' || s[1] == '0' {
		return false
	}
	return onlyDigits(s[1:])
}

func onlyDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func allSame(s string) bool {
	return strings.Count(s, s[:1]) == len(s)
}
