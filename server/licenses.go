package server

func (s *Server) registerLicenseRoutes(r group) {}
