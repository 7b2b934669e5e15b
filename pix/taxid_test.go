package pix

import (
	"errors"
	"testing"
)

func TestParseDocument(t *testing.T) {
	tests := []struct {
		name, in, doc, kind string
		err                 error
	}{
		// The worked example of the CPF check-digit rule in Portuguese
		// Wikipedia's "Cadastro de Pessoas Físicas" article: 111.444.777-35.
		{"OK/CPFExample", "111.444.777-35", "11144477735", KindCPF, nil},
		{"OK/CPFBare", "52998224725", "52998224725", KindCPF, nil},
		// Banco do Brasil's CNPJ, the first ever issued: 00.000.000/0001-91.
		{"OK/CNPJBancoDoBrasil", "00.000.000/0001-91", "00000000000191", KindCNPJ, nil},
		// The classic worked example of the CNPJ rule: 11.222.333/0001-81.
		{"OK/CNPJExample", "11.222.333/0001-81", "11222333000181", KindCNPJ, nil},
		// Receita Federal, "CNPJ Alfanumérico — cálculo do dígito verificador"
		// (2024): the example 12.ABC.345/01DE-35.
		{"OK/CNPJAlphanumeric", "12.ABC.345/01DE-35", "12ABC34501DE35", KindCNPJ, nil},
		{"OK/CNPJAlphanumericLower", "12abc34501de35", "12ABC34501DE35", KindCNPJ, nil},
		{"ErrDigits/CPF", "111.444.777-36", "", "", ErrDocumentDigits},
		{"ErrDigits/CPFRepeated", "111.111.111-11", "", "", ErrDocumentDigits},
		{"ErrDigits/CNPJ", "11.222.333/0001-82", "", "", ErrDocumentDigits},
		{"ErrDigits/CNPJAlphanumeric", "12.ABC.345/01DE-36", "", "", ErrDocumentDigits},
		{"ErrDigits/CNPJRepeated", "00000000000000", "", "", ErrDocumentDigits},
		{"ErrChars/LetterInCPF", "1114447773A", "", "", ErrDocumentChars},
		{"ErrChars/LetterInCNPJCheckDigits", "12ABC34501DE3A", "", "", ErrDocumentChars},
		{"ErrChars/Symbol", "111*444*777-35", "", "", ErrDocumentChars},
		{"ErrLength/Short", "1234567890", "", "", ErrDocumentLength},
		{"ErrLength/Empty", "", "", "", ErrDocumentLength},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, kind, err := ParseDocument(tc.in)
			if !errors.Is(err, tc.err) {
				t.Fatalf("ParseDocument(%q) error = %v, want %v", tc.in, err, tc.err)
			}
			if doc != tc.doc || kind != tc.kind {
				t.Errorf("ParseDocument(%q) = %q, %q; want %q, %q", tc.in, doc, kind, tc.doc, tc.kind)
			}
		})
	}
}

func TestValidE164(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"+5511987654321", true},
		{"+14155552671", true},
		{"+12345678", true},
		{"+123456789012345", true},
		{"+1234567890123456", false}, // 16 digits
		{"+1234567", false},          // 7 digits
		{"5511987654321", false},     // no plus
		{"+0511987654321", false},    // country code cannot start with 0
		{"+55 11 98765-4321", false}, // E.164 has no punctuation
		{"", false},
	}
	for _, tc := range tests {
		if got := ValidE164(tc.in); got != tc.want {
			t.Errorf("ValidE164(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
