package postgres

// Not yet built: the runtime part (see the brief).

import (
	"context"
	"errors"
	"io"
	"time"

	"licensectl/store"
)

var _ = io.EOF
var _ = time.Second
var _ context.Context

var errNotBuiltruntime = errors.New("postgres: not built yet")

// OpenRuntime implements store.Backend.
func (db *DB) OpenRuntime(o store.RuntimeOptions) store.RuntimeBackend {
	panic(errNotBuiltruntime)
}
