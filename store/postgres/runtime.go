package postgres

import (
	"time"

	"licensectl/store"
)

// Runtime is the runtime API of the store (store.RuntimeBackend).
type Runtime struct {
	db *DB
	o  store.RuntimeOptions
}

// OpenRuntime implements store.Backend.
func (db *DB) OpenRuntime(o store.RuntimeOptions) store.RuntimeBackend {
	if o.SeenInterval == 0 {
		o.SeenInterval = 5 * time.Minute
	}
	return &Runtime{db: db, o: o}
}
