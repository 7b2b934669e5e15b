package api

// PartnerStarted answers GET /v1/mgmt/auth/partner (with a 302 to the same
// address): where the browser signs in at the provider.
type PartnerStarted struct {
	AuthorizationURL string `json:"authorization_url"`
}

// PartnerSignedIn answers GET /v1/mgmt/auth/partner/callback. EmailVerified
// is the account's flag after the sign-in; ProfileComplete is false until
// complete-profile has created the account's organization.
type PartnerSignedIn struct {
	AccessToken     string `json:"access_token"`
	EmailVerified   bool   `json:"email_verified"`
	ProfileComplete bool   `json:"profile_complete"`
}

// CompleteProfileRequest is the body of POST
// /v1/mgmt/auth/partner/complete-profile.
type CompleteProfileRequest struct {
	FirstName          string `json:"first_name"`
	LastName           string `json:"last_name"`
	OrganizationName   string `json:"organization_name"`
	Phone              string `json:"phone"`
	TOSAcceptedVersion string `json:"tos_accepted_version"`
}
