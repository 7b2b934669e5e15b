package postgres

// Not yet built: the licenses part (see the brief).

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

var errNotBuiltlicenses = errors.New("postgres: not built yet")

// CountLicenseSessions implements store.Licenses.
func (db *DB) CountLicenseSessions(ctx context.Context, s store.Scope, licenseID string) (int, error) {
	return 0, errNotBuiltlicenses
}

// FindLicense implements store.Licenses.
func (db *DB) FindLicense(ctx context.Context, s store.Scope, id string) (*store.LicenseDetail, error) {
	return nil, errNotBuiltlicenses
}

// GenerateLicenses implements store.Licenses.
func (db *DB) GenerateLicenses(ctx context.Context, s store.Scope, in store.GenerateLicensesInput) ([]*store.LicenseItem, error) {
	return nil, errNotBuiltlicenses
}

// ListLicenses implements store.Licenses.
func (db *DB) ListLicenses(ctx context.Context, s store.Scope, f store.LicenseFilter) (*store.Page[*store.LicenseItem], error) {
	return nil, errNotBuiltlicenses
}

// ResetLicenseDevice implements store.Licenses.
func (db *DB) ResetLicenseDevice(ctx context.Context, s store.Scope, licenseID string, deviceID string) error {
	return errNotBuiltlicenses
}

// SetLicenseStatus implements store.Licenses.
func (db *DB) SetLicenseStatus(ctx context.Context, s store.Scope, id string, status string) (*store.License, error) {
	return nil, errNotBuiltlicenses
}

// AddEndUserRole implements store.EndUsers.
func (db *DB) AddEndUserRole(ctx context.Context, orgID string, userID string, role string) (*store.EndUserRoles, error) {
	return nil, errNotBuiltlicenses
}

// ListEndUsers implements store.EndUsers.
func (db *DB) ListEndUsers(ctx context.Context, s store.Scope, f store.StatusFilter) (*store.Page[*store.EndUser], error) {
	return nil, errNotBuiltlicenses
}

// RemoveEndUserRole implements store.EndUsers.
func (db *DB) RemoveEndUserRole(ctx context.Context, orgID string, userID string, role string) (*store.EndUserRoles, error) {
	return nil, errNotBuiltlicenses
}

// SetEndUserStatus implements store.EndUsers.
func (db *DB) SetEndUserStatus(ctx context.Context, s store.Scope, id string, status string) (*store.EndUser, error) {
	return nil, errNotBuiltlicenses
}

// CountDeviceSessions implements store.Devices.
func (db *DB) CountDeviceSessions(ctx context.Context, s store.Scope, deviceID string) (int, error) {
	return 0, errNotBuiltlicenses
}

// ListDevices implements store.Devices.
func (db *DB) ListDevices(ctx context.Context, s store.Scope, f store.StatusFilter) (*store.Page[*store.Device], error) {
	return nil, errNotBuiltlicenses
}

// SetDeviceStatus implements store.Devices.
func (db *DB) SetDeviceStatus(ctx context.Context, s store.Scope, id string, status string) (*store.Device, error) {
	return nil, errNotBuiltlicenses
}

// ListLeases implements store.LicenseLeases.
func (db *DB) ListLeases(ctx context.Context, s store.Scope, licenseID string) ([]*store.Lease, error) {
	return nil, errNotBuiltlicenses
}

// ReleaseLicenseLease implements store.LicenseLeases.
func (db *DB) ReleaseLicenseLease(ctx context.Context, s store.Scope, licenseID string, leaseID string) error {
	return errNotBuiltlicenses
}

// IssueMachineFile implements store.MachineFiles.
func (db *DB) IssueMachineFile(ctx context.Context, s store.Scope, licenseID string, in store.LicenseMachineFileInput) (*store.IssuedMachineFile, error) {
	return nil, errNotBuiltlicenses
}

// EnsureDevice implements store.storetest.Fixtures.
func (db *DB) EnsureDevice(ctx context.Context, s store.Scope, fingerprint string) (*store.Device, error) {
	return nil, errNotBuiltlicenses
}

// SeedBinding implements store.storetest.Fixtures.
func (db *DB) SeedBinding(ctx context.Context, s store.Scope, licenseID string, deviceID string, userID string) (string, error) {
	return "", errNotBuiltlicenses
}

// SeedLegacyApplicationName implements store.storetest.Fixtures.
func (db *DB) SeedLegacyApplicationName(ctx context.Context, ref store.AppRef, name string) error {
	return errNotBuiltlicenses
}

// SeedLegacyDevice implements store.storetest.Fixtures.
func (db *DB) SeedLegacyDevice(ctx context.Context, s store.Scope, fingerprint string) (*store.Device, error) {
	return nil, errNotBuiltlicenses
}

// ExpireLicenses implements store.Backend.
func (db *DB) ExpireLicenses(ctx context.Context) (int, error) {
	return 0, errNotBuiltlicenses
}
