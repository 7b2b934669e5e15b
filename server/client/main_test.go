package client_test

import (
	"testing"

	"licensectl/store/postgres/pgtest"
)

// TestMain stops the throw-away PostgreSQL cluster the tests may start
// (LICENSECTL_TEST_STORE=postgres).
func TestMain(m *testing.M) { pgtest.Main(m) }
