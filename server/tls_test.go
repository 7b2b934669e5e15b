package server_test

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"licensectl/config"
	"licensectl/server/servertest"
)

// servedSerial fetches /healthz over a new TLS connection and returns the
// serial of the certificate the server presented.
func servedSerial(t *testing.T, url string, pool *x509.CertPool) int64 {
	t.Helper()
	resp, err := servertest.TLSClient(pool).Get(url + "/healthz")
	if err != nil {
		t.Fatalf("GET /healthz over TLS: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	return resp.TLS.PeerCertificates[0].SerialNumber.Int64()
}

// tlsServer starts a server on certificate files (serial 1) and returns it,
// the files and a pool that trusts the certificate.
func tlsServer(t *testing.T) (s *servertest.Server, certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	pool = servertest.WriteSelfSignedCert(t, certFile, keyFile, 1)
	s = servertest.New(t, func(c *config.Config) {
		c.Server.TLS = config.TLS{CertFile: certFile, KeyFile: keyFile}
	})
	return s, certFile, keyFile, pool
}

func TestTLSServesCertificateFilesAndReloads(t *testing.T) {
	t.Parallel()
	s, certFile, keyFile, pool := tlsServer(t)
	if !strings.HasPrefix(s.URL, "https://") {
		t.Fatalf("URL = %s, want https", s.URL)
	}
	if got := servedSerial(t, s.URL, pool); got != 1 {
		t.Fatalf("serial = %d, want 1", got)
	}
	// Plain HTTP to a TLS listener gets no API answer.
	if resp, err := http.Get("http://" + strings.TrimPrefix(s.URL, "https://") + "/healthz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatal("plain HTTP answered 200 on the TLS listener")
		}
	}

	t.Run("Reload", func(t *testing.T) {
		pool2 := servertest.WriteSelfSignedCert(t, certFile, keyFile, 2)
		if err := s.ReloadTLS(); err != nil {
			t.Fatalf("ReloadTLS: %v", err)
		}
		if got := servedSerial(t, s.URL, pool2); got != 2 {
			t.Fatalf("serial after reload = %d, want 2", got)
		}
	})

	t.Run("ErrBrokenFileKeepsCertificate", func(t *testing.T) {
		if err := os.WriteFile(certFile, []byte("not a certificate"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := s.ReloadTLS(); err == nil {
			t.Fatal("ReloadTLS accepted a broken certificate file")
		}
		if got := servedSerial(t, s.URL, nil); got != 2 {
			t.Fatalf("serial after a failed reload = %d, want 2 (the one in service)", got)
		}
	})
}

func TestTLSConfigErrors(t *testing.T) {
	t.Parallel()
	cases := map[string]config.TLS{
		"ErrCertWithoutKey": {CertFile: "cert.pem"},
		"ErrFilesAndACME":   {CertFile: "c", KeyFile: "k", ACMEHost: "licenses.example.com"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Server.TLS = tc
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "server.tls.") {
				t.Fatalf("Validate = %v, want a server.tls error", err)
			}
		})
	}
}

// Issue 19 #8, docs/design.md §2: TLS 1.2 with AEAD suites only, and HTTP/2 on the
// TLS listener.
func TestTLSSuitesAndHTTP2(t *testing.T) {
	t.Parallel()
	s, _, _, pool := tlsServer(t)
	addr := strings.TrimPrefix(s.URL, "https://")
	handshake := func(suites ...uint16) (*tls.Conn, error) {
		d := &net.Dialer{Timeout: 5 * time.Second}
		return tls.DialWithDialer(d, "tcp", addr, &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS12, CipherSuites: suites})
	}

	t.Run("ErrCBCSHA1Refused", func(t *testing.T) {
		cbc := []uint16{
			tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
			tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
			tls.TLS_RSA_WITH_AES_128_CBC_SHA, tls.TLS_RSA_WITH_AES_256_CBC_SHA,
		}
		for _, suite := range cbc {
			if c, err := handshake(suite); err == nil {
				c.Close()
				t.Fatalf("a TLS 1.2 client offering only %s was accepted", tls.CipherSuiteName(suite))
			}
		}
	})

	t.Run("TLS12AEAD", func(t *testing.T) {
		c, err := handshake(tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)
		if err != nil {
			t.Fatalf("TLS 1.2 with AES-GCM: %v", err)
		}
		defer c.Close()
		if st := c.ConnectionState(); st.Version != tls.VersionTLS12 || st.CipherSuite != tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 {
			t.Fatalf("negotiated %s %s", tls.VersionName(st.Version), tls.CipherSuiteName(st.CipherSuite))
		}
	})

	t.Run("HTTP2", func(t *testing.T) {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(s.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 || resp.TLS.NegotiatedProtocol != "h2" {
			t.Fatalf("got %d over %s (ALPN %q), want 200 over HTTP/2 (h2)", resp.StatusCode, resp.Proto, resp.TLS.NegotiatedProtocol)
		}
	})
}
