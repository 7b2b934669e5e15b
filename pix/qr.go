package pix

import (
	"encoding/base64"
	"fmt"
	"strings"

	qrcode "github.com/skip2/go-qrcode"
)

// qrModule is the side of one module in pixels. A whole number of pixels
// per module (go-qrcode takes a negative size as that) keeps every module
// crisp: a fixed image side would scale modules unevenly, which some readers
// misjudge. Eight pixels give about 330–460 px for a Pix payload, plenty for
// a phone camera.
const qrModule = 8

// QRDataURI returns a PNG QR code holding exactly text as a data: URI, ready
// for an <img src>.
func QRDataURI(text string) (string, error) {
	png, err := qrcode.Encode(text, qrcode.Medium, -qrModule)
	if err != nil {
		return "", fmt.Errorf("pix: encode QR: %w", err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(png), nil
}

// QRTerminal draws a QR code holding text with Unicode half blocks, two
// modules per character cell. Light modules (the quiet zone included) are
// drawn as blocks and dark ones as blanks, which gives a readable code on the
// usual light-on-dark terminal.
func QRTerminal(text string) (string, error) {
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return "", fmt.Errorf("pix: encode QR: %w", err)
	}
	bits := q.Bitmap() // true = dark, quiet zone included
	var b strings.Builder
	for y := 0; y < len(bits); y += 2 {
		for x := range bits[y] {
			top := bits[y][x]
			bottom := y+1 < len(bits) && bits[y+1][x]
			switch {
			case top && bottom:
				b.WriteRune(' ')
			case top:
				b.WriteRune('▄')
			case bottom:
				b.WriteRune('▀')
			default:
				b.WriteRune('█')
			}
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}
