package server_test

import (
	"fmt"
	"os"
	"testing"

	"licensectl/server/servertest"
)

// TestMain reports how many answers the tests checked against the OpenAPI
// document (servertest validates every answer its client receives).
func TestMain(m *testing.M) {
	code := m.Run()
	if n := servertest.Validated.Load(); n > 0 { // fuzzing runs no server
		fmt.Fprintf(os.Stderr, "OpenAPI: %d responses validated against the document\n", n)
	}
	os.Exit(code)
}
