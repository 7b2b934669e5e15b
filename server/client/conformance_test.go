package client_test

import (
	"testing"

	"licensectl/config"
	"licensectl/server/client"
	"licensectl/server/servertest"
	"licensectl/store"
	"licensectl/store/storetest"
)

// TestConformance runs the store.Admin conformance suite over HTTP: the
// client with the operator token against a real server, whose store seeds
// what only desktop clients create. The parts of store.Backend that are not
// remote (RunBackend) run on the store itself, in store/bolt.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, billing store.BillingPolicy) storetest.Harness {
		s := servertest.New(t, func(c *config.Config) { c.Webhooks.AllowHTTP, c.Webhooks.AllowPrivateTargets = true, true })
		if err := s.Store().ConfigureBilling(billing); err != nil {
			t.Fatal(err)
		}
		return storetest.Harness{Admin: client.New(s.URL, s.OperatorToken()), Backend: s.Store(), Clock: s.Clock(), Fixtures: s.Store(), Dispatched: true}
	})
}
