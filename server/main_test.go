package server_test

import (
	"fmt"
	"os"
	"testing"

	"licensectl/server/servertest"
	"licensectl/store/postgres/pgtest"
)

// TestMain reports how many requests and answers the tests checked against
// the OpenAPI document (servertest validates every request its client sends
// and every answer it receives), and how many requests the document refused
// (each answered with an error).
func TestMain(m *testing.M) {
	servertest.WaitingTests()
	code := m.Run()
	pgtest.Stop()                                // the throw-away cluster of LICENSECTL_TEST_STORE=postgres, if any
	if n := servertest.Validated.Load(); n > 0 { // fuzzing runs no server
		fmt.Fprintf(os.Stderr, "OpenAPI: %d requests and answers validated against the document (%d requests it refuses, each refused)\n", n, servertest.Refused.Load())
	}
	os.Exit(code)
}
