package slipway

// Following a deployment's log live (hand-written; services.gen.go has Read and Append): GET …/logs
// with Accept: text/event-stream, read as Server-Sent Events, resumed with Last-Event-ID after a
// dropped connection.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Kinds of LogEvent.
const (
	LogEventLine   = "line"
	LogEventStatus = "status"
	LogEventEnd    = "end"
)

// LogEvent is one event of a followed log, by Type:
//   - "line": Line, each line once and in order (Seq 1, 2, 3… after FollowParams.After);
//   - "status": Deployment, when the server sees its status change (changes in quick succession may
//     arrive as the last of them);
//   - "end": Status and LastSeq, the deployment has finished and every line was sent; the
//     iteration then stops.
type LogEvent struct {
	Type       string
	Line       *LogLine
	Deployment *Deployment
	Status     DeploymentStatus
	LastSeq    int
}

// FollowParams are the options of DeploymentLogsService.Follow (nil: the defaults).
type FollowParams struct {
	// After: start after this line number (0: from the first line).
	After int
	// MaxReconnects: connections in a row that may fail (no event received) before the iteration
	// yields the last error and stops. 0: the default, 5. A connection that delivered an event resets
	// the count.
	MaxReconnects int
}

// Follow reads a deployment's log live: an iterator of LogEvent (lines in order, status changes, a
// last "end") to range over with for event, err := range ….
//
// A dropped connection (reset, closed before "end", 429, 5xx) is resumed by itself after the last
// line seen (Last-Event-ID), after a backoff (about 0.5 s, 1 s, 2 s… up to 8 s), so no line is lost
// or repeated. After MaxReconnects connections in a row that failed without an event, or at once for
// an answer reconnecting cannot mend (401, 403, 404…), it yields the *Error and stops. The client's
// credential goes with every connection (a fresh DPoP proof each time). Canceling ctx ends it with
// Code "request_aborted"; breaking out of the loop closes the connection. WithHeader applies to
// every connection; the request timeouts and retries of other calls do not apply.
//
// GET /v1/projects/{project_id}/deployments/{deployment_id}/logs with Accept: text/event-stream.
func (s *DeploymentLogsService) Follow(ctx context.Context, projectID, deploymentID string, params *FollowParams, opts ...RequestOption) iter.Seq2[LogEvent, error] {
	p := FollowParams{}
	if params != nil {
		p = *params
	}
	if p.MaxReconnects <= 0 {
		p.MaxReconnects = 5
	}
	path := "/v1/projects/" + pathEscape(projectID) + "/deployments/" + pathEscape(deploymentID) + "/logs"
	return func(yield func(LogEvent, error) bool) {
		if projectID == "" || deploymentID == "" || p.After < 0 {
			yield(LogEvent{}, &Error{Code: CodeInvalidRequest, Message: "Follow needs a project id, a deployment id and After ≥ 0"})
			return
		}
		s.c.follow(ctx, path, p, opts, yield)
	}
}

// errStreamEnded: a stream that closed before its "end" event.
var errStreamEnded = errors.New("the log stream closed before its end")

func (c *Client) follow(ctx context.Context, path string, p FollowParams, opts []RequestOption, yield func(LogEvent, error) bool) {
	cfg := requestConfig{}
	for _, opt := range opts {
		opt(&cfg)
	}
	what := http.MethodGet + " " + path
	last := p.After
	failures := 0
	for {
		delivered := false
		stop, err := c.followOnce(ctx, cfg, path, &last, func(event LogEvent) bool {
			delivered = true
			failures = 0
			return yield(event, nil)
		})
		if stop {
			return
		}
		if ctx.Err() != nil {
			yield(LogEvent{}, callerError(what, ctx.Err(), err))
			return
		}
		var apiErr *Error
		if !errors.As(err, &apiErr) {
			apiErr = transportError(what, err)
		}
		reconnectable := apiErr.Status == 0 || apiErr.Status == http.StatusTooManyRequests || apiErr.Status >= 500
		if !reconnectable || apiErr.Code == CodeInvalidResponse {
			yield(LogEvent{}, apiErr)
			return
		}
		if !delivered {
			failures++
		}
		if failures > p.MaxReconnects {
			yield(LogEvent{}, apiErr)
			return
		}
		wait := backoff(max(0, failures-1))
		if apiErr.Header.Get("Retry-After") != "" && apiErr.RetryAfter <= c.maxRetryAfter {
			wait = apiErr.RetryAfter
		}
		if err := c.sleep(ctx, wait); err != nil {
			yield(LogEvent{}, callerError(what, err, apiErr))
			return
		}
	}
}

// followOnce reads one connection's events into emit. stop: the iteration is over (end, or the
// caller stopped); otherwise err says why the connection ended.
func (c *Client) followOnce(ctx context.Context, cfg requestConfig, path string, last *int, emit func(LogEvent) bool) (stop bool, err error) {
	what := http.MethodGet + " " + path
	target := c.baseURL + path
	if *last > 0 {
		target += "?" + url.Values{"after": {strconv.Itoa(*last)}}.Encode()
	}
	resp, err := c.openStream(ctx, cfg, target, *last)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	reader := bufio.NewReader(resp.Body)
	var event string
	var data []string
	for {
		raw, err := reader.ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errStreamEnded
			}
			return false, err
		}
		line := strings.TrimSuffix(strings.TrimSuffix(raw, "\n"), "\r")
		if line != "" {
			if strings.HasPrefix(line, ":") {
				continue
			}
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "event":
				event = value
			case "data":
				data = append(data, value)
			}
			continue
		}
		if data == nil {
			event = ""
			continue
		}
		payload := []byte(strings.Join(data, "\n"))
		kind := event
		event, data = "", nil
		invalid := func(err error) error {
			return &Error{Status: resp.StatusCode, Code: CodeInvalidResponse, Message: "an event of " + what + " is not the expected JSON: " + err.Error(), err: err}
		}
		switch kind {
		case LogEventLine:
			var l LogLine
			if err := json.Unmarshal(payload, &l); err != nil {
				return false, invalid(err)
			}
			if l.Seq <= *last {
				continue // never a line twice
			}
			*last = l.Seq
			if !emit(LogEvent{Type: LogEventLine, Line: &l}) {
				return true, nil
			}
		case LogEventStatus:
			var d Deployment
			if err := json.Unmarshal(payload, &d); err != nil {
				return false, invalid(err)
			}
			if !emit(LogEvent{Type: LogEventStatus, Deployment: &d}) {
				return true, nil
			}
		case LogEventEnd:
			var end struct {
				Status  DeploymentStatus `json:"status"`
				LastSeq int              `json:"last_seq"`
			}
			if err := json.Unmarshal(payload, &end); err != nil {
				return false, invalid(err)
			}
			emit(LogEvent{Type: LogEventEnd, Status: end.Status, LastSeq: end.LastSeq})
			return true, nil
		}
	}
}

// openStream sends the GET with the client's credential (one refresh after 401 invalid_token) and
// returns the 2xx response with its body unread; any other answer is its *Error.
func (c *Client) openStream(ctx context.Context, cfg requestConfig, target string, last int) (*http.Response, error) {
	for refreshed := false; ; refreshed = true {
		token, dpop, err := c.token()
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err != nil {
			return nil, err
		}
		for k, v := range cfg.header {
			req.Header[k] = v
		}
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("User-Agent", c.userAgent)
		if last > 0 {
			req.Header.Set("Last-Event-ID", strconv.Itoa(last))
		}
		resp, err := c.doWithToken(req, token, dpop)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 300 {
			return resp, nil
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		apiErr := errorFromResponse(resp, body)
		if !refreshed && c.invalidated(resp, apiErr, token) {
			continue
		}
		return nil, apiErr
	}
}
