package api

import (
	"time"
)

// ApplicationDetail is the detail read of an application.
type ApplicationDetail struct {
	ID           string            `json:"id"`
	Name         string            `json:"name"`
	Slug         string            `json:"slug"`
	Status       string            `json:"status"`
	SupportEmail *string           `json:"support_email"`
	Environments []EnvironmentItem `json:"environments"`
	CreatedAt    time.Time         `json:"created_at"`
	UpdatedAt    time.Time         `json:"updated_at"`
}

// ApplicationItem is an application in lists.
type ApplicationItem struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Slug         string    `json:"slug"`
	Status       string    `json:"status"`
	SupportEmail *string   `json:"support_email"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// ApplicationUpdated answers PATCH on an application.
type ApplicationUpdated struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Slug         string    `json:"slug"`
	Status       string    `json:"status"`
	SupportEmail *string   `json:"support_email"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// CreateApplicationRequest is the body of POST /applications.
type CreateApplicationRequest struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
	// SupportEmail is where the application's customers ask for help
	// (optional); the self-service pages show it.
	SupportEmail string `json:"support_email,omitempty"`
}

// EnvironmentItem is an environment inside an application detail.
type EnvironmentItem struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	PublicKey string    `json:"public_key"`
	CreatedAt time.Time `json:"created_at"`
}

// UpdateApplicationRequest is the body of PATCH /applications/{id}.
type UpdateApplicationRequest struct {
	Name   *string `json:"name,omitempty"`
	Status *string `json:"status,omitempty"`
	// SupportEmail sets the support address; "" removes it.
	SupportEmail *string `json:"support_email,omitempty"`
}

// Environment is an item of the environments list.
type Environment struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

// ApplicationCreated answers POST /applications.
type ApplicationCreated struct {
	ApplicationID string `json:"application_id"`
}
