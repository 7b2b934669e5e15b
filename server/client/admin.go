package client

import (
	"context"
	"fmt"
	"io"
	"licensectl/server/api"
	"net/http"
	"strings"
	"time"

	"licensectl/store"
)

// Backup streams a consistent copy of the server's database into w through
// GET /v1/admin/backup (operator token). It fails when the copy arrives short
// of the size the server announced.
func (c *Client) Backup(ctx context.Context, w io.Writer) (int64, error) {
	// A large file takes longer than the per-call timeout: only the
	// response headers are bounded; the body streams until done or ctx ends.
	hc := *c.http
	hc.Timeout = 0
	if hc.Transport == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ResponseHeaderTimeout = time.Minute
		hc.Transport = tr
	}
	res, err := c.sendWith(ctx, &hc, call{method: http.MethodGet, path: "/v1/admin/backup"})
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	n, err := io.Copy(w, res.Body)
	if err != nil {
		return n, &store.Error{Code: store.ECodeUnavailable, Message: fmt.Sprintf("backup transfer failed after %d bytes", n), Err: err}
	}
	if res.ContentLength >= 0 && n != res.ContentLength {
		return n, store.Errorf(store.ECodeUnavailable, "backup transfer incomplete: %d of %d bytes", n, res.ContentLength)
	}
	return n, nil
}

// OrgBound reports whether the credential belongs to one organization (a
// developer API key or application secret) rather than being the operator
// token: such a credential always acts in its own organization, and reads it
// through /v1/mgmt/organizations/me.
func (c *Client) OrgBound() bool {
	return strings.HasPrefix(c.token, store.PrefixAPIKey) || strings.HasPrefix(c.token, store.PrefixSecretLive) || strings.HasPrefix(c.token, store.PrefixSecretTest)
}

// FindOrganization implements store.Organizations. With the operator token it
// reads /v1/admin/organizations/{id}; with a credential of an organization it
// reads /v1/mgmt/organizations/me and answers not_found for any other id.
func (c *Client) FindOrganization(ctx context.Context, id string) (*store.Organization, error) {
	if c.OrgBound() {
		var d api.OrganizationDetail
		if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/mgmt/organizations/me"}, &d); err != nil {
			return nil, err
		}
		if id != "" && d.ID != id {
			return nil, store.NotFound("organization")
		}
		return d.Domain(), nil
	}
	var o api.AdminOrganization
	if id == "" {
		return nil, store.Invalid("x-organization-id", "name the organization (--org) when using the operator token")
	}
	if err := c.do(ctx, call{method: http.MethodGet, path: p("/v1/admin/organizations", id)}, &o); err != nil {
		return nil, err
	}
	return o.Domain(), nil
}

// ListOrganizations implements store.Organizations (operator token).
func (c *Client) ListOrganizations(ctx context.Context) ([]*store.Organization, error) {
	var page api.Page[api.AdminOrganization]
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/admin/organizations"}, &page); err != nil {
		return nil, err
	}
	return mapList(page.Data, api.AdminOrganization.Domain), nil
}

// CreateOrganization implements store.Organizations (operator token).
func (c *Client) CreateOrganization(ctx context.Context, in store.CreateOrganizationInput) (*store.Organization, error) {
	var o api.AdminOrganization
	body := api.CreateOrganizationRequest{Name: in.Name, OwnerEmail: in.OwnerEmail, OwnerPassword: in.OwnerPassword}
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/admin/organizations", body: body}, &o); err != nil {
		return nil, err
	}
	return o.Domain(), nil
}

// UpdateOrganization implements store.Organizations.
func (c *Client) UpdateOrganization(ctx context.Context, id string, upd store.OrganizationUpdate) (*store.Organization, error) {
	var o api.OrganizationUpdated
	body := api.UpdateOrganizationRequest{Name: upd.Name}
	if err := c.do(ctx, call{method: http.MethodPatch, path: "/v1/mgmt/organizations/me", org: id, body: body}, &o); err != nil {
		return nil, err
	}
	return &store.Organization{ID: o.ID, Name: o.Name, Slug: o.Slug, UpdatedAt: o.UpdatedAt}, nil
}

// ListMembers implements store.Members.
func (c *Client) ListMembers(ctx context.Context, orgID string) ([]*store.Member, error) {
	var list []api.MemberItem
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/mgmt/organizations/members", org: orgID}, &list); err != nil {
		return nil, err
	}
	return mapList(list, func(m api.MemberItem) *store.Member {
		return &store.Member{ID: m.ID, OrgID: orgID, Email: m.Email, Role: m.Role, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, EmailVerified: true}
	}), nil
}

// FindMember implements store.Members by listing: the API has no member read.
func (c *Client) FindMember(ctx context.Context, orgID, id string) (*store.Member, error) {
	list, err := c.ListMembers(ctx, orgID)
	if err != nil {
		return nil, err
	}
	for _, m := range list {
		if m.ID == id {
			return m, nil
		}
	}
	return nil, store.NotFound("member")
}

// AddMember implements store.Members; the member is read back from the list.
func (c *Client) AddMember(ctx context.Context, in store.AddMemberInput) (*store.Member, error) {
	var out api.MemberAdded
	body := api.AddMemberRequest{Email: in.Email, Password: in.Password, Role: in.Role, FirstName: in.FirstName, LastName: in.LastName}
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/mgmt/organizations/members", org: in.OrgID, body: body}, &out); err != nil {
		return nil, err
	}
	if m, err := c.FindMember(ctx, in.OrgID, out.MemberID); err == nil {
		return m, nil
	}
	return &store.Member{ID: out.MemberID, OrgID: in.OrgID, Email: strings.ToLower(strings.TrimSpace(in.Email)), Role: in.Role, FirstName: in.FirstName, LastName: in.LastName, EmailVerified: true}, nil
}

// RemoveMember implements store.Members.
func (c *Client) RemoveMember(ctx context.Context, orgID, id string) error {
	return c.do(ctx, call{method: http.MethodDelete, path: p("/v1/mgmt/organizations/members", id), org: orgID}, nil)
}
