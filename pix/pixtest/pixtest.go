// Package pixtest reads back what package pix draws, for tests: a QR data
// URI decoded by an independent QR reader.
package pixtest

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"
)

// DecodeQR returns the text held by the PNG QR code in uri, a
// data:image/png;base64 URI, failing the test when it is anything else.
func DecodeQR(tb testing.TB, uri string) string {
	tb.Helper()
	const prefix = "data:image/png;base64,"
	if !strings.HasPrefix(uri, prefix) {
		tb.Fatalf("qrcode %.40q… does not start with %q", uri, prefix)
	}
	raw, err := base64.StdEncoding.DecodeString(uri[len(prefix):])
	if err != nil {
		tb.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		tb.Fatal(err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		tb.Fatalf("decode QR: %v", err)
	}
	return res.GetText()
}
