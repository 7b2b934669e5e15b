package api

// The account API's bodies (/v1/auth/...): signup, e-mail verification,
// password reset and the dashboard login of members.

// AccountMessage answers signup, resend-verification, forgot-password and
// reset-password.
type AccountMessage struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// SignupRequest is the body of POST /auth/signup. Altcha is the solved
// anti-bot challenge, required when signup.challenge is altcha.
type SignupRequest struct {
	FirstName          string `json:"first_name"`
	LastName           string `json:"last_name"`
	OrganizationName   string `json:"organization_name"`
	Email              string `json:"email"`
	Password           string `json:"password"`
	Phone              string `json:"phone"`
	TOSAcceptedVersion string `json:"tos_accepted_version"`
	Altcha             string `json:"altcha"`
}

// TokenRequest is the body of POST /auth/verify-email.
type TokenRequest struct {
	Token string `json:"token"`
}

// EmailVerified answers POST /auth/verify-email.
type EmailVerified struct {
	Success        bool   `json:"success"`
	AccessToken    string `json:"access_token"`
	OrganizationID string `json:"organization_id"`
}

// EmailRequest is the body of POST /auth/resend-verification and
// /auth/forgot-password.
type EmailRequest struct {
	Email string `json:"email"`
}

// ResetPasswordRequest is the body of POST /auth/reset-password.
type ResetPasswordRequest struct {
	Token       string `json:"token"`
	NewPassword string `json:"new_password"`
}

// LoginRequest is the body of POST /auth/login.
type LoginRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	// Altcha is a solved challenge (GET /auth/challenge), needed once the
	// account's failed logins from all addresses reach their bound.
	Altcha string `json:"altcha,omitempty"`
}

// LoggedIn answers POST /auth/login.
type LoggedIn struct {
	AccessToken   string `json:"access_token"`
	EmailVerified bool   `json:"email_verified"`
}
