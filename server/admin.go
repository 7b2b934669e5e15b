package server

func (s *Server) registerAdminRoutes(r group) {}
