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
	// The image is a generated code with whole-pixel modules, not a photo:
	// PURE_BARCODE reads it module by module instead of hunting for finder
	// patterns, which some payloads' patterns defeat.
	hints := map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_PURE_BARCODE: true}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, hints)
	if err != nil {
		tb.Fatalf("decode QR: %v", err)
	}
	return res.GetText()
}
