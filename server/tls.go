package server

import (
	"crypto/tls"
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"

	"licensectl/config"
)

// certFiles serves the certificate and key read from files, and reads them
// again on Reload, so a renewed certificate needs no restart. A pair that
// fails to load leaves the one in service.
type certFiles struct {
	certFile, keyFile string
	cert              atomic.Pointer[tls.Certificate]
}

func (c *certFiles) reload() error {
	cert, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		return fmt.Errorf("load TLS certificate %s and key %s: %w", c.certFile, c.keyFile, err)
	}
	c.cert.Store(&cert)
	return nil
}

func (c *certFiles) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return c.cert.Load(), nil
}

// tlsConfig builds the listener's TLS configuration, or nil for plain HTTP.
func (s *Server) tlsConfig(cfg config.Config) (*tls.Config, error) {
	t := cfg.Server.TLS
	switch {
	case t.CertFile != "":
		s.certs = &certFiles{certFile: t.CertFile, keyFile: t.KeyFile}
		if err := s.certs.reload(); err != nil {
			return nil, err
		}
		return harden(&tls.Config{GetCertificate: s.certs.getCertificate}), nil
	case t.ACMEHost != "":
		dir := t.ACMECacheDir
		if dir == "" {
			dir = filepath.Join(cfg.DataDir, "acme")
		}
		m := &autocert.Manager{
			Prompt:     autocert.AcceptTOS,
			HostPolicy: autocert.HostWhitelist(t.ACMEHost),
			Cache:      autocert.DirCache(dir),
			Email:      t.ACMEEmail,
		}
		if t.ACMEDirectory != "" {
			m.Client = &acme.Client{DirectoryURL: t.ACMEDirectory}
		}
		return harden(m.TLSConfig()), nil
	}
	return nil, nil
}

// aeadSuites are the TLS 1.2 suites offered (docs/design.md §2: AEAD only). All
// use ECDHE: the AEAD suites with RSA key exchange have no forward secrecy.
// TLS 1.3 suites are all AEAD and not configurable.
var aeadSuites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// harden sets the listener's protocol floor and suites, and offers HTTP/2
// by ALPN: the listener is wrapped by tls.NewListener, so net/http's own
// h2 setup (which edits http.Server.TLSConfig) never sees this config.
func harden(c *tls.Config) *tls.Config {
	c.MinVersion = tls.VersionTLS12
	c.CipherSuites = aeadSuites
	for _, p := range []string{"http/1.1", "h2"} {
		if !slices.Contains(c.NextProtos, p) {
			c.NextProtos = append([]string{p}, c.NextProtos...)
		}
	}
	return c
}

// ReloadTLS reads the certificate and key files again (on SIGHUP). With
// ACME or plain HTTP there is nothing to reload, and the log says so: an
// operator who sent the signal must not be left guessing.
func (s *Server) ReloadTLS() error {
	if s.certs == nil {
		why := "plain HTTP: no certificate files are configured (server.tls.cert_file)"
		if s.cfg.Server.TLS.ACMEHost != "" {
			why = "ACME renews its certificates by itself"
		}
		s.logger.Info("SIGHUP: nothing to reload", "reason", why)
		return nil
	}
	return s.certs.reload()
}
