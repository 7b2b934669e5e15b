package server

func (s *Server) registerRuntimeRoutes(r group) {}
