package pix

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"licensectl/pix/pixtest"
)

// bcbExample is the static BR Code of Banco Central do Brasil's "Manual de
// Padrões para Iniciação do Pix" (annex on the BR Code, example of a static
// QR without amount): random key 123e4567-e12b-12d1-a456-426655440000,
// merchant "Fulano de Tal" in BRASILIA, txid "***", CRC 1D3D.
const bcbExample = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000" +
	"5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D"

func TestCRC16(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want uint16
	}{
		// The catalogue check value of CRC-16/CCITT-FALSE (Greg Cook's
		// "Catalogue of parametrised CRC algorithms", CRC-16/IBM-3740).
		{"CheckValue", "123456789", 0x29B1},
		{"BCBExample", strings.TrimSuffix(bcbExample, "1D3D"), 0x1D3D},
		{"Empty", "", 0xFFFF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := CRC16([]byte(tc.in)); got != tc.want {
				t.Errorf("CRC16(%q) = %04X, want %04X", tc.in, got, tc.want)
			}
		})
	}
}

func TestBRCode(t *testing.T) {
	t.Run("OK/BCBExample", func(t *testing.T) {
		got, err := Payment{
			Key:          "123e4567-e12b-12d1-a456-426655440000",
			MerchantName: "Fulano de Tal",
			MerchantCity: "BRASILIA",
		}.BRCode()
		if err != nil {
			t.Fatal(err)
		}
		if got != bcbExample {
			t.Errorf("BRCode() =\n%s\nwant\n%s", got, bcbExample)
		}
	})
	t.Run("OK/AmountAndTxID", func(t *testing.T) {
		got, err := Payment{
			Key: "pix@example.com", MerchantName: "Licensectl", MerchantCity: "SAO PAULO",
			AmountCents: 4900, TxID: "0123456789ABCDEF012345678",
		}.BRCode()
		if err != nil {
			t.Fatal(err)
		}
		want := "000201" + "2637" + "0014br.gov.bcb.pix" + "0115pix@example.com" +
			"52040000" + "5303986" + "540549.00" + "5802BR" + "5910Licensectl" + "6009SAO PAULO" +
			"6229" + "05250123456789ABCDEF012345678" + "6304"
		if !strings.HasPrefix(got, want) || len(got) != len(want)+4 {
			t.Fatalf("BRCode() =\n%s\nwant prefix\n%s", got, want)
		}
		if crc := CRC16([]byte(want)); got[len(want):] != fmt.Sprintf("%04X", crc) {
			t.Errorf("CRC = %s, want %04X", got[len(want):], crc)
		}
	})
	errs := []struct {
		name string
		p    Payment
	}{
		{"ErrKeyEmpty", Payment{MerchantName: "A", MerchantCity: "B"}},
		{"ErrNameTooLong", Payment{Key: "k", MerchantName: strings.Repeat("n", 26), MerchantCity: "B"}},
		{"ErrCityTooLong", Payment{Key: "k", MerchantName: "A", MerchantCity: strings.Repeat("c", 16)}},
		{"ErrCityNotASCII", Payment{Key: "k", MerchantName: "A", MerchantCity: "São Paulo"}},
		{"ErrTxIDChars", Payment{Key: "k", MerchantName: "A", MerchantCity: "B", TxID: "a-b"}},
		{"ErrNegativeAmount", Payment{Key: "k", MerchantName: "A", MerchantCity: "B", AmountCents: -1}},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := tc.p.BRCode(); err == nil {
				t.Errorf("BRCode() = %q, want an error", got)
			}
		})
	}
}

func TestFormatAmount(t *testing.T) {
	for cents, want := range map[int64]string{4900: "49.00", 14900: "149.00", 5: "0.05", 123456: "1234.56"} {
		if got := FormatAmount(cents); got != want {
			t.Errorf("FormatAmount(%d) = %q, want %q", cents, got, want)
		}
	}
}

// TestQRDataURI decodes the PNG with an independent reader to prove the image
// holds exactly the copy-paste text.
func TestQRDataURI(t *testing.T) {
	uri, err := QRDataURI(bcbExample)
	if err != nil {
		t.Fatal(err)
	}
	if got := pixtest.DecodeQR(t, uri); got != bcbExample {
		t.Errorf("decoded %q, want %q", got, bcbExample)
	}
}

func TestQRTerminal(t *testing.T) {
	art, err := QRTerminal(bcbExample)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(art, "\n"), "\n")
	// Paint the half blocks back into pixels (block = light) and read the
	// code with the same independent reader as the PNG.
	const px = 4
	side := len([]rune(lines[0]))
	img := image.NewGray(image.Rect(0, 0, side*px, len(lines)*2*px))
	for y, line := range lines {
		for x, r := range []rune(line) {
			top, bottom := r == '█' || r == '▀', r == '█' || r == '▄'
			for dy := range px {
				for dx := range px {
					if top {
						img.SetGray(x*px+dx, 2*y*px+dy, color.Gray{Y: 255})
					}
					if bottom {
						img.SetGray(x*px+dx, (2*y+1)*px+dy, color.Gray{Y: 255})
					}
				}
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if got := pixtest.DecodeQR(t, "data:image/png;base64,"+base64.StdEncoding.EncodeToString(buf.Bytes())); got != bcbExample {
		t.Errorf("terminal QR holds %q, want %q", got, bcbExample)
	}
}
