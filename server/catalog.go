package server

func (s *Server) registerCatalogRoutes(r group) {}
