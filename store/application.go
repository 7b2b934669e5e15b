package store

import (
	"context"
	"crypto/ed25519"
	"strings"
	"time"
)

// Application statuses.
const (
	AppActive   = "active"
	AppDisabled = "disabled"
)

// Environment names; every application has exactly these two.
const (
	EnvProduction  = "production"
	EnvDevelopment = "development"
)

// ValidEnv reports whether name is an environment name.
func ValidEnv(name string) bool { return name == EnvProduction || name == EnvDevelopment }

// Application is a vendor's product.
type Application struct {
	ID     string
	OrgID  string
	Name   string
	Slug   string
	Status string
	// SupportEmail is where the vendor's customers ask for help; "" when
	// the vendor gave none. The self-service pages show it.
	SupportEmail string
	Environments []Environment // development first, then production
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Env returns the environment called name, or nil.
func (a *Application) Env(name string) *Environment {
	for i := range a.Environments {
		if a.Environments[i].Name == name {
			return &a.Environments[i]
		}
	}
	return nil
}

// EnvByID returns the environment with the given id, or nil.
func (a *Application) EnvByID(id string) *Environment {
	for i := range a.Environments {
		if a.Environments[i].ID == id {
			return &a.Environments[i]
		}
	}
	return nil
}

// Environment is one of an application's two environments. Each has a public
// key that identifies it on the runtime API and an Ed25519 key that signs its
// runtime access tokens.
type Environment struct {
	ID         string
	Name       string
	PublicKey  string
	SigningKey ed25519.PrivateKey
	KeyID      string
	CreatedAt  time.Time
}

// AppRef names an application inside an organization.
type AppRef struct {
	OrgID string
	AppID string
}

// Scope names one environment of an application inside an organization:
// licenses, end-users, devices, sessions and audit entries live in one.
type Scope struct {
	OrgID string
	AppID string
	Env   string // environment name
}

// App returns the application part of the scope.
func (s Scope) App() AppRef { return AppRef{OrgID: s.OrgID, AppID: s.AppID} }

// CreateApplicationInput creates an application; Slug is derived from Name when empty.
type CreateApplicationInput struct {
	OrgID        string
	Name         string
	Slug         string
	SupportEmail string // optional
}

// ApplicationUpdate is a partial update.
type ApplicationUpdate struct {
	Name   *string
	Status *string
	// SupportEmail sets the support address; "" removes it.
	SupportEmail *string
}

// CheckSupportEmail checks an application's optional support address:
// empty, or an e-mail address, which it returns normalized.
func CheckSupportEmail(v string) (string, error) {
	if strings.TrimSpace(v) == "" {
		return "", nil
	}
	return NormalizeEmail("support_email", v)
}

// Applications stores applications and their environments.
type Applications interface {
	// ListApplications lists the organization's applications, newest first.
	ListApplications(ctx context.Context, orgID string) ([]*Application, error)
	// FindApplication returns not_found unless the application belongs to ref.OrgID.
	FindApplication(ctx context.Context, ref AppRef) (*Application, error)
	// CreateApplication creates the application with its development and
	// production environments. Returns validation_failed, slug_taken,
	// plan_limit_reached.
	CreateApplication(ctx context.Context, in CreateApplicationInput) (*Application, error)
	// UpdateApplication returns validation_failed, not_found.
	UpdateApplication(ctx context.Context, ref AppRef, upd ApplicationUpdate) (*Application, error)
	// DeleteApplication disables the application, or removes it and everything
	// under it when permanent is true. Returns not_found.
	DeleteApplication(ctx context.Context, ref AppRef, permanent bool) error
}
