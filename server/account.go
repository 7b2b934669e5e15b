package server

import (
	"context"

	"licensectl/store"
)

func (s *Server) registerAccountRoutes(r group) {}

// initServices builds the services the account routes use.
func (s *Server) initServices() error { return nil }

// authenticateDashboard resolves a dashboard access token.
func (s *Server) authenticateDashboard(ctx context.Context, tok string) (*principal, error) {
	return nil, store.Errorf(store.ECodeUnauthenticated, "invalid or expired token")
}
