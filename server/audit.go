package server

func (s *Server) registerAuditRoutes(r group) {}
