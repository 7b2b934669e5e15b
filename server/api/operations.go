package api

// Health answers GET /healthz and GET /readyz.
type Health struct {
	Status string `json:"status"`
}
