package pix_test

import (
	"fmt"
	"testing"

	"licensectl/pix"
	"licensectl/pix/pixtest"
)

// TestQRDecodesManyPayloads: every payload, not just the examples, gives a
// code a reader decodes to exactly that payload (a fixed image side once
// made a few in a hundred unreadable).
func TestQRDecodesManyPayloads(t *testing.T) {
	for i := range 100 {
		text := fmt.Sprintf("00020126580014br.gov.bcb.pix0136%036d520400005303986540549.005802BR5910Licensectl6006RECIFE62290525%025d6304ABCD", i*7919, i)
		uri, err := pix.QRDataURI(text)
		if err != nil {
			t.Fatal(err)
		}
		if got := pixtest.DecodeQR(t, uri); got != text {
			t.Fatalf("%d: %q", i, got)
		}
	}
}
