package pix

import (
	"strings"

	"licensectl/store"
)

// Checkout is the Pix account checkouts pay into: the store's payment
// provider (store.PaymentProvider) for Pix. Static BR Codes need no
// provider account, so building one is all it takes.
type Checkout struct {
	Key          string
	MerchantName string
	MerchantCity string
}

var _ store.PaymentProvider = Checkout{}

// CheckPayer implements store.PaymentProvider: an E.164 phone and a CPF or
// CNPJ with valid check digits.
func (c Checkout) CheckPayer(phone, document string) (store.Payer, error) {
	phone = strings.TrimSpace(phone)
	if !ValidE164(phone) {
		return store.Payer{}, store.Invalid("customer_phone", "customer_phone must be an E.164 number such as +5511987654321")
	}
	doc, kind, err := ParseDocument(document)
	if err != nil {
		return store.Payer{}, store.Invalid("customer_document", "customer_document %s", err)
	}
	return store.Payer{Phone: phone, Document: doc, DocumentKind: kind}, nil
}

// Request implements store.PaymentProvider: a static BR Code for the amount
// whose txid is taken from the transaction id, and its QR code.
func (c Checkout) Request(id string, amountCents int64) (code, qr string, err error) {
	code, err = Payment{Key: c.Key, MerchantName: c.MerchantName, MerchantCity: c.MerchantCity,
		AmountCents: amountCents, TxID: TxID(id)}.BRCode()
	if err != nil {
		return "", "", err
	}
	if qr, err = QRDataURI(code); err != nil {
		return "", "", err
	}
	return code, qr, nil
}

// TxID is the BR Code txid of a transaction: the last 25 characters of its
// id without dashes, upper-cased (docs/design.md §10).
func TxID(id string) string {
	s := strings.ToUpper(strings.ReplaceAll(id, "-", ""))
	return s[len(s)-MaxTxID:]
}
