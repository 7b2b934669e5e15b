package client

import (
	"context"
	"net/http"
	"time"

	"licensectl/server/api"
	"licensectl/store"
)

var _ store.Billing = (*Client)(nil)

// BillingPlans implements store.Billing.
func (c *Client) BillingPlans(ctx context.Context) ([]store.Tier, error) {
	var b api.BillingPlans
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/mgmt/billing/plans"}, &b); err != nil {
		return nil, err
	}
	return mapList(b.Plans, api.BillingPlan.Tier), nil
}

// BillingSubscription implements store.Billing.
func (c *Client) BillingSubscription(ctx context.Context, orgID string) (*store.Subscription, error) {
	var b api.SubscriptionBody
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/mgmt/billing/subscription", org: orgID}, &b); err != nil {
		return nil, err
	}
	sub := b.Subscription.Subscription()
	sub.OrgID = orgID
	return sub, nil
}

// BillingUsage implements store.Billing. The server counts at its own time,
// with the runtime requests it has not flushed yet; at is not sent.
func (c *Client) BillingUsage(ctx context.Context, orgID string, _ time.Time) (*store.Usage, error) {
	var u api.Usage
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/mgmt/billing/usage", org: orgID}, &u); err != nil {
		return nil, err
	}
	return u.Domain(), nil
}

// BillingCheckout implements store.Billing (owner, admin, API key, operator).
func (c *Client) BillingCheckout(ctx context.Context, in store.CheckoutInput) (*store.Checkout, error) {
	var out api.Checkout
	body := api.CheckoutRequest{BillingPlanKey: in.PlanKey, CustomerPhone: in.CustomerPhone, CustomerDocument: in.CustomerDocument}
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/mgmt/billing/checkout", org: in.OrgID, body: body}, &out); err != nil {
		return nil, err
	}
	return &store.Checkout{TransactionID: out.TransactionID, QRCode: out.QRCode, CopyPaste: out.CopyPaste, AmountCents: out.AmountCents}, nil
}

// ConfirmBillingTransaction implements store.Billing (operator token).
func (c *Client) ConfirmBillingTransaction(ctx context.Context, id string) (*store.Subscription, error) {
	var b api.SubscriptionBody
	if err := c.do(ctx, call{method: http.MethodPost, path: p("/v1/admin/billing/transactions", id, "confirm")}, &b); err != nil {
		return nil, err
	}
	return b.Subscription.Subscription(), nil
}
