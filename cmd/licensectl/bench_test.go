package main

import (
	"licensectl/server/api"
	"testing"

	"licensectl/server/servertest"
)

// benchGenerate times `license generate -n 10000 -o keys` through the built
// binary, process start and all.
func benchGenerate(b *testing.B, c *cli) {
	var app api.ApplicationDetail
	c.json(&app, "app", "create", "Studio", "--slug", "studio")
	c.ok("plan", "create", "--app", "studio", "Pro")
	b.ResetTimer()
	for range b.N {
		r := c.run("license", "generate", "--app", "studio", "--plan", "Pro", "-n", "10000", "-o", "keys")
		if r.code != 0 || len(r.stdout) != 10000*30 {
			b.Fatalf("exit %d, %d bytes of keys: %s", r.code, len(r.stdout), r.stderr)
		}
	}
}

func BenchmarkGenerate10000Local(b *testing.B) {
	c := newLocal(b)
	c.ok("org", "create", "Acme")
	benchGenerate(b, c)
}

func BenchmarkGenerate10000Remote(b *testing.B) {
	srv := servertest.New(b)
	org := srv.NewOrg(b)
	benchGenerate(b, newRemote(b, srv.URL, org.APIKey))
}
