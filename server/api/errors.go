package api

// Error is the management and operator APIs' error object; every field is
// present, so scripts can read any of them without checking.
type Error struct {
	Code              string `json:"code"`
	Message           string `json:"message"`
	Title             string `json:"title"`
	Reason            string `json:"reason"`
	Action            string `json:"action"`
	RetryAfterSeconds int    `json:"retry_after_seconds"`
}

// ErrorBody is the management and operator APIs' error body.
type ErrorBody struct {
	Error Error `json:"error"`
}

// RuntimeError is the runtime API's error object: desktop clients switch on
// the code and may show the message.
type RuntimeError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// RuntimeErrorBody is the runtime API's error body.
type RuntimeErrorBody struct {
	Error RuntimeError `json:"error"`
}

// Success is the body of a call that has nothing else to say.
type Success struct {
	Success bool `json:"success"`
}
