// Package store is licensectl's domain: its types, statuses and error codes,
// and the interfaces that persistence implements. It knows nothing of bbolt
// or HTTP: store/bolt implements the interfaces on an embedded file, and
// server/client implements them over the HTTP API, so the admin CLI and TUI
// work the same against either.
package store

// Service is every administrative operation: what the admin CLI and TUI use,
// locally on the bbolt file or remotely through the HTTP API.
type Service interface {
	Organizations
	Members
	Applications
	APIKeys
	AppSecrets
	Entitlements
	Plans
	Licenses
	EndUsers
	Devices
	AuditLog
}
