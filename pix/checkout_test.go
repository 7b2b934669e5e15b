package pix_test

import (
	"strings"
	"testing"

	"licensectl/pix"
	"licensectl/pix/pixtest"
	"licensectl/store"
)

func TestCheckoutCheckPayer(t *testing.T) {
	c := pix.Checkout{Key: "pix@example.com", MerchantName: "Licensectl", MerchantCity: "RECIFE"}
	t.Run("OK", func(t *testing.T) {
		got, err := c.CheckPayer(" +5581987654321 ", "111.444.777-35")
		want := store.Payer{Phone: "+5581987654321", Document: "11144477735", DocumentKind: "cpf"}
		if err != nil || got != want {
			t.Fatalf("got %+v, %v; want %+v", got, err, want)
		}
	})
	for _, tt := range []struct {
		name, phone, doc, field, msg string
	}{
		{"Phone", "081987654321", "11144477735", "customer_phone", "customer_phone must be an E.164 number such as +5511987654321"},
		{"PhoneLeadingZero", "+0581987654321", "11144477735", "customer_phone", "customer_phone must be an E.164 number such as +5511987654321"},
		{"Document", "+5581987654321", "111.444.777-36", "customer_document", "customer_document "},
	} {
		t.Run("ErrValidation/"+tt.name, func(t *testing.T) {
			_, err := c.CheckPayer(tt.phone, tt.doc)
			e := store.AsError(err)
			if e == nil || e.Code != store.ECodeValidation || e.Field != tt.field || !strings.HasPrefix(e.Message, tt.msg) {
				t.Fatalf("got %v, want validation_failed on %s: %q…", err, tt.field, tt.msg)
			}
		})
	}
}

func TestCheckoutRequest(t *testing.T) {
	c := pix.Checkout{Key: "pix@example.com", MerchantName: "Licensectl", MerchantCity: "RECIFE"}
	id := "0190f6a2-7c1e-7d3a-9b2f-1a2b3c4d5e6f"
	code, qr, err := c.Request(id, 4900)
	if err != nil {
		t.Fatal(err)
	}
	if want := "0525" + "27C1E7D3A9B2F1A2B3C4D5E6F"; !strings.Contains(code, want) {
		t.Errorf("code %q does not carry the txid field %q", code, want)
	}
	if !strings.Contains(code, "540549.00") {
		t.Errorf("code %q does not carry the amount 49.00", code)
	}
	if got := pixtest.DecodeQR(t, qr); got != code {
		t.Errorf("QR holds %q, want %q", got, code)
	}
	if got := pix.TxID(id); got != "27C1E7D3A9B2F1A2B3C4D5E6F" || len(got) != pix.MaxTxID {
		t.Errorf("TxID = %q", got)
	}
}
