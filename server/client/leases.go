package client

import (
	"context"
	"net/http"

	"licensectl/server/api"
	"licensectl/store"
)

// ListLeases implements store.LicenseLeases.
func (c *Client) ListLeases(ctx context.Context, s store.Scope, licenseID string) ([]*store.Lease, error) {
	var list []api.LeaseItem
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(s.AppID, "licenses", licenseID, "leases"), org: s.OrgID, env: s.Env}, &list); err != nil {
		return nil, err
	}
	return mapList(list, func(x api.LeaseItem) *store.Lease {
		return &store.Lease{ID: x.ID, LicenseID: licenseID, DeviceID: x.DeviceID, Fingerprint: x.Fingerprint, ExpiresAt: x.ExpiresAt, CreatedAt: x.CreatedAt}
	}), nil
}

// ReleaseLicenseLease implements store.LicenseLeases.
func (c *Client) ReleaseLicenseLease(ctx context.Context, s store.Scope, licenseID, leaseID string) error {
	return c.do(ctx, call{method: http.MethodDelete, path: appPath(s.AppID, "licenses", licenseID, "leases", leaseID), org: s.OrgID, env: s.Env}, nil)
}
