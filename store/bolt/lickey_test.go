package bolt

import (
	"bytes"
	"testing"

	"licensectl/store"
)

func TestLicKeyIndex(t *testing.T) {
	seen := map[string]string{}
	for range 2000 {
		k := store.NewLicenseKey()
		p := licKeyIndex(k)
		if len(p) != 16 || p[15]&0x07 != 0 {
			t.Fatalf("licKeyIndex(%s) = %x: want 125 bits in 16 bytes", k, p)
		}
		if other, dup := seen[string(p)]; dup && other != k {
			t.Fatalf("%s and %s pack to the same bytes", k, other)
		}
		seen[string(p)] = k
	}
	a, b := licKeyIndex("00000-00000-00000-00000-00001"), licKeyIndex("00000-00000-00000-00000-00010")
	if bytes.Equal(a, b) || a[15] != 0x08 || b[15] != 0x00 || b[14] != 0x01 {
		t.Fatalf("packing is not positional: %x %x", a, b)
	}
	for _, bad := range []string{"", "7kq2m-9xw4t-hb3zp-0d6rn-c5vye", "7KQ2M9XW4THB3ZP0D6RNC5VYE", "7KQ2M-9XW4T-HB3ZP-0D6RN-C5VYU", "7KQ2M_9XW4T-HB3ZP-0D6RN-C5VYE"} {
		if p := licKeyIndex(bad); p != nil {
			t.Errorf("licKeyIndex(%q) = %x, want nil (only canonical keys are indexed)", bad, p)
		}
	}
}
