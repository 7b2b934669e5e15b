package servertest_test

import (
	"testing"

	"licensectl/store/postgres/pgtest"
)

// TestMain stops the throw-away PostgreSQL cluster the tests may start.
func TestMain(m *testing.M) { pgtest.Main(m) }
