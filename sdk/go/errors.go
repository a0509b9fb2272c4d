package slipway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"golang.org/x/oauth2"
)

// ErrorDetail is one per-field problem of a validation_failed (or invalid_request) error.
type ErrorDetail struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// The codes of failures without an API error body (Error.Code), beside the API's own (CodeNotFound …,
// api.gen.go) and "http_<status>" (CodeHTTPStatus).
const (
	// CodeTimeout: no response within the per-attempt timeout (WithTimeout, WithRequestTimeout)
	// after the retries, or the context's deadline passed (errors.Is(err, context.DeadlineExceeded)).
	CodeTimeout = "timeout"
	// CodeRequestAborted: the caller canceled the context (errors.Is(err, context.Canceled)).
	CodeRequestAborted = "request_aborted"
	// CodeNetworkError: no response, the connection failed (DNS, refused, reset), after the retries.
	CodeNetworkError = "network_error"
	// CodeInvalidResponse: a 2xx response whose body is not the expected JSON.
	CodeInvalidResponse = "invalid_response"
	// CodeStateMismatch: Exchange got a callback whose state is not the request's (errors.Is(err, ErrStateMismatch)).
	CodeStateMismatch = "state_mismatch"
	// CodeInvalidSignature: ConstructWebhookEvent got a delivery whose Slipway-Signature does not match
	// (errors.Is(err, ErrInvalidSignature)).
	CodeInvalidSignature = "invalid_signature"
)

// CodeHTTPStatus is the code of an error response without Slipway's JSON error body (a proxy's
// HTML 502, say): "http_" and the status, e.g. "http_502".
func CodeHTTPStatus(status int) string { return "http_" + strconv.Itoa(status) }

// Error is every failure of a call: an error response of the API, a response that is not JSON, a
// timeout, a canceled context, a connection that failed, a token that could not be refreshed. Use
// errors.As to get it and switch on Code:
//
//	var apiErr *slipway.Error
//	if errors.As(err, &apiErr) && apiErr.Code == slipway.CodeNotFound { ... }
//
// Unwrap gives the cause of a failure without a response (errors.Is(err, context.Canceled),
// *url.Error, *oauth2.RetrieveError).
type Error struct {
	// Status is the HTTP status (404, 422, ...); 0 when no response arrived.
	Status int
	// Code is the stable machine-readable code: the API's (CodeNotFound, CodeValidationFailed, ...),
	// "http_<status>" for an error response that is not Slipway's JSON, or a client-side one
	// (CodeTimeout, CodeRequestAborted, CodeNetworkError, CodeInvalidResponse); for a failed token
	// refresh, the token endpoint's OAuth code (invalid_grant, ...).
	Code string
	// Message is a human-readable description; it may change.
	Message string
	// RequestID identifies the request in the server's logs (the X-Request-Id header).
	RequestID string
	// Details lists per-field problems (validation_failed, invalid_request).
	Details []ErrorDetail
	// RetryAfter is the server's Retry-After (429, 503), zero when absent.
	RetryAfter time.Duration
	// Header holds the response headers (nil without a response).
	Header http.Header

	err error
}

// Unwrap returns the cause, if any (a transport error, context.Canceled, ...).
func (e *Error) Unwrap() error { return e.err }

func (e *Error) Error() string {
	msg := fmt.Sprintf("slipway: %d %s: %s", e.Status, e.Code, e.Message)
	if e.Status == 0 {
		msg = fmt.Sprintf("slipway: %s: %s", e.Code, e.Message)
	}
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
	if e.Code == "" {
		e.Code = CodeHTTPStatus(resp.StatusCode)
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	if e.RequestID == "" {
		e.RequestID = resp.Header.Get("X-Request-Id")
	}
	return e
}

// callerError is the failure of a call whose context ended: request_aborted when canceled,
// timeout when its deadline passed. cause (may be nil) is what the attempt got.
func callerError(what string, ctxErr, cause error) *Error {
	e := &Error{Code: CodeRequestAborted, Message: what + ": the context was canceled"}
	if errors.Is(ctxErr, context.DeadlineExceeded) {
		e.Code, e.Message = CodeTimeout, what+": the context's deadline passed"
	}
	switch {
	case cause == nil || errors.Is(cause, ctxErr):
		e.err = ctxErr
		if cause != nil {
			e.err = cause
		}
	default:
		e.err = fmt.Errorf("%w (%w)", ctxErr, cause)
	}
	return e
}

// transportError is the failure of an attempt that got no response: timeout or network_error.
func transportError(what string, err error) *Error {
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()) {
		return &Error{Code: CodeTimeout, Message: what + ": no response in time", err: err}
	}
	return &Error{Code: CodeNetworkError, Message: what + ": " + err.Error(), err: err}
}

// tokenError is the failure to get an access token (a refresh the token endpoint refused, say).
func tokenError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil {
		out := &Error{Status: re.Response.StatusCode, Code: re.ErrorCode, Message: re.ErrorDescription, Header: re.Response.Header, err: err}
		if out.Code == "" {
			out.Code = CodeHTTPStatus(out.Status)
		}
		if out.Message == "" {
			out.Message = "the token endpoint refused the request: " + out.Code
		}
		return out
	}
	return transportError("getting an access token", err)
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
