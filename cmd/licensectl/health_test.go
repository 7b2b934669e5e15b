package main

import (
	"encoding/json"
	"net"
	"os"
	"regexp"
	"strings"
	"testing"

	"licensectl/config"
	"licensectl/server/servertest"
)

// TestHealth runs `licensectl health` (the container's HEALTHCHECK) against
// a real server: by --server, and by the configuration's server.listen as
// the image sets it; a server that is not there fails with exit 1.
func TestHealth(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t)
	t.Run("OKServer", func(t *testing.T) {
		c := &cli{t: t, dir: t.TempDir()}
		if out := c.ok("health", "--server", srv.URL); !strings.HasPrefix(out, "ready: "+srv.URL) {
			t.Fatalf("stdout = %q", out)
		}
	})
	t.Run("OKDockerfileHealthcheck", func(t *testing.T) {
		// The image's HEALTHCHECK as it stands, with the image's
		// listen address moved to this server's port.
		raw, err := os.ReadFile("../../Dockerfile")
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`(?m)^HEALTHCHECK .*CMD (\[.*\])$`).FindSubmatch(raw)
		if m == nil {
			t.Fatal("the Dockerfile has no HEALTHCHECK … CMD [exec form]")
		}
		var argv []string
		if err := json.Unmarshal(m[1], &argv); err != nil || len(argv) < 2 || argv[0] != "/licensectl" {
			t.Fatalf("HEALTHCHECK CMD %s: want [\"/licensectl\", …]", m[1])
		}
		_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
		c := &cli{t: t, dir: t.TempDir(), env: []string{"LICENSECTL_SERVER_LISTEN=0.0.0.0:" + port}}
		if out := c.ok(argv[1:]...); !strings.HasPrefix(out, "ready: http://127.0.0.1:"+port) {
			t.Fatalf("stdout = %q", out)
		}
	})
	t.Run("ErrNotReady", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		c := &cli{t: t, dir: t.TempDir()}
		c.fails(1, args("health", "--server", "http://"+addr), "Error: not ready")
	})
}

func TestLocalServerURL(t *testing.T) {
	t.Parallel()
	tls := config.TLS{CertFile: "c.pem", KeyFile: "k.pem"}
	for _, tt := range []struct {
		in   config.Server
		want string
	}{
		{config.Server{Listen: "0.0.0.0:8080"}, "http://127.0.0.1:8080"},
		{config.Server{Listen: "127.0.0.1:9000"}, "http://127.0.0.1:9000"},
		{config.Server{Listen: ":8080"}, "http://127.0.0.1:8080"},
		{config.Server{Listen: "[::]:8443", TLS: tls}, "https://[::1]:8443"},
		{config.Server{Listen: "10.1.2.3:443", TLS: tls}, "https://10.1.2.3:443"},
	} {
		if got := localServerURL(tt.in); got != tt.want {
			t.Errorf("localServerURL(%+v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
