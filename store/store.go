// Package store is licensectl's domain: its types, statuses and error codes,
// and the interfaces that persistence implements. It knows nothing of bbolt
// or HTTP: store/bolt implements the interfaces on an embedded file, and
// server/client implements them over the HTTP API, so the admin CLI and TUI
// work the same against either.
package store

// Admin is every administrative operation: what the admin CLI and the TUI
// use, locally on the bbolt file or remotely through the HTTP API, so both
// implementations satisfy it whole. What only the server does (credential
// authentication, the runtime API, maintenance) lives in other interfaces.
type Admin interface {
	Organizations
	Members
	Applications
	APIKeys
	AppSecrets
	Entitlements
	Plans
	Licenses
	LicenseLeases
	MachineFiles
	EndUsers
	Devices
	AuditLog
	OrgAuditLog
	Billing
	Webhooks
}
