package config

import (
	"licensectl/pix"
	"licensectl/store"
)

// Policy is the billing configuration as the store applies it.
func (b Billing) Policy() store.BillingPolicy {
	p := store.BillingPolicy{Enforce: b.Enforce, GraceDays: b.GraceDays}
	if b.Pix.Key != "" {
		p.Payments = pix.Checkout{Key: b.Pix.Key, MerchantName: b.Pix.MerchantName, MerchantCity: b.Pix.MerchantCity}
	}
	for _, t := range b.Tiers {
		p.Tiers = append(p.Tiers, store.Tier{ID: store.TierID(t.Key), Key: t.Key, Name: t.Name, PriceCents: int64(t.PriceCents),
			MaxApplications: int64(t.MaxApplications), MaxLicenses: int64(t.MaxLicenses), MaxRequestsPerMonth: int64(t.MaxRequestsPerMonth),
			AuditLogRetentionDays: int64(t.AuditLogRetentionDays), MaxDashboardMembers: int64(t.MaxDashboardMembers)})
	}
	return p
}
