package server

func (s *Server) registerOrganizationRoutes(r group) {}
