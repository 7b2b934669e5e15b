package bolt

import (
	"strings"

	"licensectl/store"
)

// licKeyIndex is a license key's entry in licenses_by_key: its 25 base-32
// characters packed into 16 bytes (125 bits) instead of 29 bytes of text,
// which keeps a generated license within its budget on disk
// (docs/performance.md). Keys are written in the canonical form
// (XXXXX-XXXXX-XXXXX-XXXXX-XXXXX) only; anything else has no entry (nil),
// so a lookup of it finds nothing.
func licKeyIndex(k string) []byte {
	if len(k) != 29 {
		return nil
	}
	out := make([]byte, 16)
	bit := 0
	for i := 0; i < len(k); i++ {
		if i%6 == 5 {
			if k[i] != '-' {
				return nil
			}
			continue
		}
		v := strings.IndexByte(store.LicenseKeyAlphabet, k[i])
		if v < 0 {
			return nil
		}
		for b := 4; b >= 0; b-- {
			if v>>b&1 == 1 {
				out[bit/8] |= 0x80 >> (bit % 8)
			}
			bit++
		}
	}
	return out
}

// licenseByKey is the id of the license with the canonical key k, or "".
func (t *txn) licenseByKey(k string) string {
	ik := licKeyIndex(k)
	if ik == nil {
		return ""
	}
	return t.lookup(bLicKey, ik)
}
