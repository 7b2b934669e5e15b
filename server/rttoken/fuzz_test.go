package rttoken

import (
	"strings"
	"testing"
	"time"
)

// FuzzVerify: no token a client makes up verifies, and none makes the
// parser panic.
func FuzzVerify(f *testing.F) {
	app := testApp(f)
	want := claims(app, time.Now())
	good, err := Sign(&app.Environments[0], want)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{good, "", "a.b.c", "eyJhbGciOiJub25lIn0.e30.", strings.Repeat("A", 10000), good[:len(good)-2]} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		c, err := Verify(tok, app, "licensectl")
		// Only what was signed here verifies (an equivalent encoding of
		// the same signed bytes may).
		if err == nil && (c.ID != want.ID || c.Subject != want.Subject) {
			t.Fatalf("Verify(%q) accepted a token not signed here: %+v", tok, c)
		}
	})
}
