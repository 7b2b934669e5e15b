package client_test

import (
	"testing"

	"licensectl/server/client"
	"licensectl/server/servertest"
	"licensectl/store"
	"licensectl/store/storetest"
)

// TestConformance runs the store.Admin conformance suite over HTTP: the
// client with the operator token against a real server.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Admin {
		s := servertest.New(t)
		return client.New(s.URL, s.OperatorToken())
	})
}
