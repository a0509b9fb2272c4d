package slipway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// ErrorDetail is one per-field problem of a validation_failed (or invalid_request) error.
type ErrorDetail struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is an error response of the API. Use errors.As to get it:
//
//	var apiErr *slipway.Error
//	if errors.As(err, &apiErr) && apiErr.Code == "not_found" { ... }
type Error struct {
	// Status is the HTTP status (404, 422, ...).
	Status int
	// Code is the stable machine-readable code (not_found, validation_failed, insufficient_scope, ...).
	Code string
	// Message is a human-readable description; it may change.
	Message string
	// RequestID identifies the request in the server's logs (the X-Request-Id header).
	RequestID string
	// Details lists per-field problems (validation_failed, invalid_request).
	Details []ErrorDetail
	// RetryAfter is the server's Retry-After (429, 503), zero when absent.
	RetryAfter time.Duration
	// Header holds the response headers.
	Header http.Header
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("slipway: %d %s: %s", e.Status, e.Code, e.Message)
	if e.RequestID != "" {
		msg += " (request " + e.RequestID + ")"
	}
	return msg
}

func errorFromResponse(resp *http.Response, body []byte) *Error {
	var payload struct {
		Error struct {
			Code      string        `json:"code"`
			Message   string        `json:"message"`
			RequestID string        `json:"request_id"`
			Details   []ErrorDetail `json:"details"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &payload)
	e := &Error{
		Status:     resp.StatusCode,
		Code:       payload.Error.Code,
		Message:    payload.Error.Message,
		RequestID:  payload.Error.RequestID,
		Details:    payload.Error.Details,
		RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After")),
		Header:     resp.Header,
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	if e.RequestID == "" {
		e.RequestID = resp.Header.Get("X-Request-Id")
	}
	return e
}

// parseRetryAfter reads delta-seconds or an HTTP date.
func parseRetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}
