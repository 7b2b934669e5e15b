package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"licensectl/config"
)

// healthTimeout bounds the whole probe: a health check that hangs is a
// failed one.
const healthTimeout = 5 * time.Second

func newHealthCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "health",
		Short: "Exit 0 when the server answers GET /readyz, 1 otherwise (container health checks)",
		Long: "Asks a running server whether it is ready (GET /readyz: its store is usable)\n" +
			"and exits 0 when it is, 1 otherwise, saying why. The server is --server (or\n" +
			"LICENSECTL_SERVER), else the one this configuration runs: server.listen on\n" +
			"this host. It needs no shell or other tool, so it serves as the HEALTHCHECK\n" +
			"of the scratch container image. It sends no credential.",
		Example: "  licensectl health\n" +
			"  licensectl health --server https://licenses.example.com",
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			url, local := e.flagOrEnv(cmd, flagServer, envServer), false
			if url == "" {
				cfg, err := loadConfig(cmd, e)
				if err != nil {
					return err
				}
				url, local = localServerURL(cfg.Server), true
			} else if !strings.Contains(url, "://") {
				url = "http://" + url
			}
			client := &http.Client{Timeout: healthTimeout}
			if local {
				// The certificate names the public host, not the loopback
				// address probed here; the probe sends nothing secret and
				// trusts nothing it reads but the status.
				client.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), healthTimeout)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(url, "/")+"/readyz", nil)
			if err != nil {
				return err
			}
			req.Header.Set("User-Agent", "licensectl/"+version+" health")
			resp, err := client.Do(req)
			if err != nil {
				return fmt.Errorf("not ready: %w", err)
			}
			defer resp.Body.Close()
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("not ready: %s/readyz answered %d", strings.TrimRight(url, "/"), resp.StatusCode)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "ready: %s\n", url)
			return nil
		},
	}
}

// localServerURL is the address of the server this configuration runs, as
// seen from the same host: an unspecified listen address (0.0.0.0, ::) is
// reached on loopback.
func localServerURL(s config.Server) string {
	host, port, err := net.SplitHostPort(s.Listen)
	if err != nil {
		host, port = "127.0.0.1", "8080"
	}
	switch ip := net.ParseIP(host); {
	case host == "":
		host = "127.0.0.1"
	case ip != nil && ip.IsUnspecified() && ip.To4() != nil:
		host = "127.0.0.1"
	case ip != nil && ip.IsUnspecified():
		host = "::1"
	}
	scheme := "http"
	if s.TLS.Enabled() {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
