package server

func (s *Server) registerEndUserRoutes(r group) {}
