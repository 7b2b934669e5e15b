// Package store is licensectl's domain: its types, statuses and error codes,
// the rules every input passes, and the interfaces that persistence
// implements. It knows nothing of bbolt, SQL or HTTP. Three packages
// implement the interfaces:
//
//   - store/bolt, on one embedded bbolt file (Backend and Admin whole);
//   - store/postgres, on a PostgreSQL database that several servers share
//     (Backend and Admin whole, docs/design.md §12);
//   - server/client, over the HTTP API (Admin), so the admin CLI and TUI
//     work the same locally and remotely.
//
// store/storetest is the conformance suite all three pass.
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
