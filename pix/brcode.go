package pix

import (
	"fmt"
	"strconv"
	"strings"
)

// GUI is the globally unique identifier of the Pix arrangement inside the
// merchant account information (field 26) of a BR Code.
const GUI = "br.gov.bcb.pix"

// Field limits of the BR Code that callers must respect.
const (
	MaxMerchantName = 25
	MaxMerchantCity = 15
	MaxTxID         = 25
	maxKey          = 77 // field 26 holds at most 99: GUI (18) and the key's own header (4)
)

// Payment is what a static BR Code carries: who receives (the Pix key and the
// merchant's name and city), how much, and the identifier the receiver's bank
// reports back with the payment.
type Payment struct {
	Key          string // the receiver's Pix key: e-mail, phone, CPF/CNPJ or random key
	MerchantName string // at most 25 characters
	MerchantCity string // at most 15 characters
	AmountCents  int64  // zero leaves the amount to the payer
	TxID         string // at most 25 letters and digits; empty writes "***"
}

// BRCode returns the EMV "copia e cola" text of p: the TLV fields of the
// Banco Central's BR Code manual in their order, ending with the CRC16 of
// everything before it including the CRC field's own header "6304".
func (p Payment) BRCode() (string, error) {
	if err := p.check(); err != nil {
		return "", err
	}
	txid := p.TxID
	if txid == "" {
		txid = "***"
	}
	var b strings.Builder
	tlv(&b, "00", "01")
	tlv(&b, "26", field("00", GUI)+field("01", p.Key))
	tlv(&b, "52", "0000")
	tlv(&b, "53", "986")
	if p.AmountCents > 0 {
		tlv(&b, "54", FormatAmount(p.AmountCents))
	}
	tlv(&b, "58", "BR")
	tlv(&b, "59", p.MerchantName)
	tlv(&b, "60", p.MerchantCity)
	tlv(&b, "62", field("05", txid))
	b.WriteString("6304")
	return b.String() + fmt.Sprintf("%04X", CRC16([]byte(b.String()))), nil
}

// FormatAmount writes cents as the BR Code writes amounts: a dot and two
// decimals, no thousands separator (4900 → "49.00").
func FormatAmount(cents int64) string {
	return strconv.FormatInt(cents/100, 10) + "." + fmt.Sprintf("%02d", cents%100)
}

func (p Payment) check() error {
	switch {
	case p.Key == "" || len(p.Key) > maxKey || !printableASCII(p.Key):
		return fmt.Errorf("pix: the key must be 1 to %d printable ASCII characters", maxKey)
	case p.MerchantName == "" || len(p.MerchantName) > MaxMerchantName || !printableASCII(p.MerchantName):
		return fmt.Errorf("pix: the merchant name must be 1 to %d printable ASCII characters", MaxMerchantName)
	case p.MerchantCity == "" || len(p.MerchantCity) > MaxMerchantCity || !printableASCII(p.MerchantCity):
		return fmt.Errorf("pix: the merchant city must be 1 to %d printable ASCII characters", MaxMerchantCity)
	case p.AmountCents < 0 || p.AmountCents >= 1e11: // field 54 holds at most 13 characters
		return fmt.Errorf("pix: amount %d cents out of range", p.AmountCents)
	case len(p.TxID) > MaxTxID || !alphanumeric(p.TxID):
		return fmt.Errorf("pix: the txid must be at most %d letters and digits", MaxTxID)
	}
	return nil
}

// tlv writes one EMV field: its id, its length in two digits, its value.
func tlv(b *strings.Builder, id, value string) { b.WriteString(field(id, value)) }

func field(id, value string) string { return fmt.Sprintf("%s%02d%s", id, len(value), value) }

// CRC16 is CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no
// reflection, no final XOR), the checksum of field 63 of a BR Code.
func CRC16(data []byte) uint16 {
	crc := uint16(0xFFFF)
	for _, c := range data {
		crc ^= uint16(c) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func alphanumeric(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}
