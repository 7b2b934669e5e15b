package client

import (
	"context"
	"net/http"

	"licensectl/server/api"
	"licensectl/store"
)

// IssueMachineFile implements store.MachineFiles.
func (c *Client) IssueMachineFile(ctx context.Context, s store.Scope, licenseID string, in store.LicenseMachineFileInput) (*store.IssuedMachineFile, error) {
	req := api.LicenseMachineFileRequest{Fingerprint: in.Fingerprint, Encrypt: &in.Encrypt, UserEmail: in.UserEmail}
	if in.TTLDays != 0 {
		req.TTLDays = &in.TTLDays
	}
	var out api.LicenseMachineFileIssued
	if err := c.do(ctx, call{method: http.MethodPost, path: appPath(s.AppID, "licenses", licenseID, "machine-files"), org: s.OrgID, env: s.Env, body: req}, &out); err != nil {
		return nil, err
	}
	return &store.IssuedMachineFile{Certificate: out.Certificate, IssuedAt: out.IssuedAt, ExpiresAt: out.ExpiresAt, TTL: out.TTL, DeviceID: out.DeviceID}, nil
}
