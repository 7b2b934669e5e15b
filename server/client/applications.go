package client

import (
	"context"
	"io"
	"licensectl/server/api"
	"net/http"
	"net/url"

	"licensectl/store"
)

// ListApplications implements store.Applications.
func (c *Client) ListApplications(ctx context.Context, orgID string) ([]*store.Application, error) {
	var list []api.ApplicationItem
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/mgmt/applications", org: orgID}, &list); err != nil {
		return nil, err
	}
	return mapList(list, func(a api.ApplicationItem) *store.Application { return a.Domain(orgID) }), nil
}

// FindApplication implements store.Applications.
func (c *Client) FindApplication(ctx context.Context, ref store.AppRef) (*store.Application, error) {
	var d api.ApplicationDetail
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(ref.AppID), org: ref.OrgID}, &d); err != nil {
		return nil, err
	}
	return d.Domain(ref.OrgID), nil
}

// CreateApplication implements store.Applications; the application is read
// back so the caller gets its environments.
func (c *Client) CreateApplication(ctx context.Context, in store.CreateApplicationInput) (*store.Application, error) {
	var out struct {
		ApplicationID string `json:"application_id"`
	}
	body := api.CreateApplicationRequest{Name: in.Name, Slug: in.Slug, SupportEmail: in.SupportEmail}
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/mgmt/applications", org: in.OrgID, body: body}, &out); err != nil {
		return nil, err
	}
	return c.FindApplication(ctx, store.AppRef{OrgID: in.OrgID, AppID: out.ApplicationID})
}

// UpdateApplication implements store.Applications.
func (c *Client) UpdateApplication(ctx context.Context, ref store.AppRef, upd store.ApplicationUpdate) (*store.Application, error) {
	var out api.ApplicationUpdated
	body := api.UpdateApplicationRequest{Name: upd.Name, Status: upd.Status, SupportEmail: upd.SupportEmail}
	if err := c.do(ctx, call{method: http.MethodPatch, path: appPath(ref.AppID), org: ref.OrgID, body: body}, &out); err != nil {
		return nil, err
	}
	return c.FindApplication(ctx, ref)
}

// DeleteApplication implements store.Applications.
func (c *Client) DeleteApplication(ctx context.Context, ref store.AppRef, permanent bool) error {
	var q url.Values
	if permanent {
		q = url.Values{"permanent": {"true"}}
	}
	return c.do(ctx, call{method: http.MethodDelete, path: appPath(ref.AppID), org: ref.OrgID, query: q}, nil)
}

// CreateAPIKey implements store.APIKeys.
func (c *Client) CreateAPIKey(ctx context.Context, orgID, label string) (*store.APIKey, string, error) {
	var out api.APIKeyCreated
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/mgmt/api-keys", org: orgID, body: api.LabelRequest{Label: label}}, &out); err != nil {
		return nil, "", err
	}
	k := &store.APIKey{ID: out.KeyID, OrgID: orgID, Label: label}
	if list, err := c.ListAPIKeys(ctx, orgID); err == nil {
		for _, x := range list {
			if x.ID == out.KeyID {
				k = x
			}
		}
	}
	return k, out.Plaintext, nil
}

// ListAPIKeys implements store.APIKeys.
func (c *Client) ListAPIKeys(ctx context.Context, orgID string) ([]*store.APIKey, error) {
	var list []api.APIKeyItem
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/mgmt/api-keys", org: orgID}, &list); err != nil {
		return nil, err
	}
	return mapList(list, func(k api.APIKeyItem) *store.APIKey { return k.Domain(orgID) }), nil
}

// RevokeAPIKey implements store.APIKeys.
func (c *Client) RevokeAPIKey(ctx context.Context, orgID, id string) error {
	return c.do(ctx, call{method: http.MethodDelete, path: p("/v1/mgmt/api-keys", id), org: orgID}, nil)
}

// CreateAppSecret implements store.AppSecrets.
func (c *Client) CreateAppSecret(ctx context.Context, ref store.AppRef, in store.CreateSecretInput) (*store.AppSecret, string, error) {
	var out api.SecretCreated
	body := api.CreateSecretRequest{EnvironmentID: in.EnvironmentID, Label: in.Label}
	if err := c.do(ctx, call{method: http.MethodPost, path: appPath(ref.AppID, "secrets"), org: ref.OrgID, body: body}, &out); err != nil {
		return nil, "", err
	}
	s := &store.AppSecret{ID: out.SecretID, OrgID: ref.OrgID, AppID: ref.AppID, EnvironmentID: in.EnvironmentID, Label: in.Label}
	if list, err := c.ListAppSecrets(ctx, ref); err == nil {
		for _, x := range list {
			if x.ID == out.SecretID {
				s = x
			}
		}
	}
	return s, out.Plaintext, nil
}

// ListAppSecrets implements store.AppSecrets. The API names a secret's
// environment by id only; its name (Env, as the store fills it) comes from
// the application's environments, so that a remote caller reads what a
// local one does (docs/tui.md §4, principle 7).
func (c *Client) ListAppSecrets(ctx context.Context, ref store.AppRef) ([]*store.AppSecret, error) {
	var list []api.SecretItem
	if err := c.do(ctx, call{method: http.MethodGet, path: appPath(ref.AppID, "secrets"), org: ref.OrgID}, &list); err != nil {
		return nil, err
	}
	app, err := c.FindApplication(ctx, ref)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(app.Environments))
	for _, e := range app.Environments {
		names[e.ID] = e.Name
	}
	return mapList(list, func(s api.SecretItem) *store.AppSecret {
		sec := s.Domain(ref)
		sec.Env = names[s.EnvironmentID]
		return sec
	}), nil
}

// RevokeAppSecret implements store.AppSecrets.
func (c *Client) RevokeAppSecret(ctx context.Context, ref store.AppRef, id string) error {
	return c.do(ctx, call{method: http.MethodDelete, path: appPath(ref.AppID, "secrets", id), org: ref.OrgID}, nil)
}

// JWKS returns the JWKS document of one environment of an application, the
// bytes the server serves (GET /v1/runtime/applications/{id}/jwks.json), for
// a client to pin. Returns not_found for an unknown application,
// validation_failed for an environment that is neither production nor
// development.
func (c *Client) JWKS(ctx context.Context, appID, env string) ([]byte, error) {
	res, err := c.send(ctx, call{method: http.MethodGet, path: "/v1/runtime/applications/" + url.PathEscape(appID) + "/jwks.json",
		query: url.Values{"environment": {env}}})
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	// A key set is a few hundred bytes; the bound keeps a wrong server
	// from filling memory.
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, &store.Error{Code: store.ECodeUnavailable, Message: "reading the key set from " + c.base, Err: err}
	}
	return raw, nil
}
