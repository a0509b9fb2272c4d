package slipway

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// Version is this library's version.
// It targets the API version APIVersion; the release tag is sdk/go/v + Version.
const Version = "0.2.0"

const (
	defaultMaxRetries    = 2
	defaultTimeout       = 30 * time.Second
	defaultMaxRetryAfter = time.Minute
	initialBackoff       = 500 * time.Millisecond
	maxBackoff           = 8 * time.Second
)

// Client calls the Slipway API. Create it with NewClient; it is safe for concurrent use.
type Client struct {
	baseURL       string
	httpClient    *http.Client
	apiKey        string
	tokenSource   oauth2.TokenSource
	maxRetries    int
	maxRetryAfter time.Duration
	timeout       time.Duration
	userAgent     string
	// sleep waits between retries; tests replace it to record the waits.
	sleep func(ctx context.Context, d time.Duration) error

	// Resources are the services (generated, services.gen.go): client.Projects, client.Deployments,
	// client.Configurations, client.APIKeys, client.Users, client.OAuthClients, client.Events,
	// client.Webhooks.
	Resources
}

// Option configures a Client.
type Option func(*Client)

// WithAPIKey authenticates with an API key (slw_…).
func WithAPIKey(key string) Option { return func(c *Client) { c.apiKey = key } }

// WithAccessToken authenticates with a fixed OAuth access token.
func WithAccessToken(token string) Option {
	return WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}))
}

// WithTokenSource authenticates with OAuth tokens from ts, asked before every request (an
// oauth2.Config's TokenSource refreshes an expired token). A source from OAuthTokenSource is also
// refreshed when the API answers 401 invalid_token.
func WithTokenSource(ts oauth2.TokenSource) Option { return func(c *Client) { c.tokenSource = ts } }

// WithHTTPClient sets the HTTP client (transport, proxy). Default: a plain http.Client (the
// attempts are bounded by WithTimeout).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.httpClient = hc } }

// WithTimeout bounds each attempt of a request (default 30 s; 0: no bound), whatever the HTTP
// client; WithRequestTimeout changes it for one call. The context.Context bounds the whole call,
// retries included.
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithMaxRetries sets how often a request is retried after 429, 503, a timeout or a network error
// (default 2; 0: never).
func WithMaxRetries(n int) Option { return func(c *Client) { c.maxRetries = max(0, n) } }

// WithMaxRetryAfter sets the longest Retry-After the client waits for (default 1 minute); a longer
// one is returned as the 429's *Error instead.
func WithMaxRetryAfter(d time.Duration) Option { return func(c *Client) { c.maxRetryAfter = d } }

// WithUserAgent sets a User-Agent prefix naming your application.
func WithUserAgent(ua string) Option {
	return func(c *Client) { c.userAgent = ua + " " + c.userAgent }
}

// NewClient returns a client for the API at baseURL (e.g. https://slipway.example.com). An empty
// baseURL is read from the environment variable SLIPWAY_URL, the name the TypeScript and Python SDKs
// read too (see BaseURLFromEnvironment).
func NewClient(baseURL string, opts ...Option) (*Client, error) {
	if baseURL == "" {
		baseURL = BaseURLFromEnvironment()
		if baseURL == "" {
			return nil, errors.New("slipway: no base URL: pass one to NewClient or set SLIPWAY_URL")
		}
	}
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("slipway: base URL %q is not an http(s) URL", baseURL)
	}
	c := &Client{
		baseURL:       strings.TrimRight(baseURL, "/"),
		httpClient:    &http.Client{},
		timeout:       defaultTimeout,
		maxRetries:    defaultMaxRetries,
		maxRetryAfter: defaultMaxRetryAfter,
		userAgent:     "slipway-go/" + Version,
		sleep:         sleepContext,
	}
	for _, opt := range opts {
		opt(c)
	}
	if c.apiKey == "" && c.tokenSource == nil {
		return nil, errors.New("slipway: no credential: use WithAPIKey, WithAccessToken or WithTokenSource")
	}
	if c.apiKey != "" && c.tokenSource != nil {
		return nil, errors.New("slipway: use only one of WithAPIKey and WithTokenSource/WithAccessToken")
	}
	c.Resources = newResources(c)
	return c, nil
}

// DeprecationNotices is where a deprecated form in use is reported, once per process (default
// os.Stderr; io.Discard silences it). See CHANGELOG.md, "Deprecations".
var DeprecationNotices io.Writer = os.Stderr

var baseURLNotice sync.Once

// BaseURLFromEnvironment returns SLIPWAY_URL, or "" when it is unset. SLIPWAY_BASE_URL (the Python
// SDK's name up to 0.2) is read when SLIPWAY_URL is unset, with a one-line notice to
// DeprecationNotices.
//
// Deprecated support: SLIPWAY_BASE_URL stops working in v0.4.0; set SLIPWAY_URL.
func BaseURLFromEnvironment() string {
	if url := os.Getenv("SLIPWAY_URL"); url != "" {
		return url
	}
	deprecated := os.Getenv("SLIPWAY_BASE_URL")
	if deprecated != "" {
		baseURLNotice.Do(func() {
			fmt.Fprintln(DeprecationNotices, "slipway: SLIPWAY_BASE_URL is deprecated and stops working in v0.4.0: set SLIPWAY_URL instead")
		})
	}
	return deprecated
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// invalidator is a token source that can be told its access token was refused (OAuthTokenSource).
type invalidator interface{ Invalidate(accessToken string) }

// dpopBound is a token source whose tokens may be DPoP-bound (OAuthTokenSource with WithDPoP).
type dpopBound interface{ dpopSession() *dpopSession }

// token is the credential for the next attempt, and the DPoP session to prove it with (nil: Bearer).
func (c *Client) token() (string, *dpopSession, error) {
	if c.apiKey != "" {
		return c.apiKey, nil, nil
	}
	t, err := c.tokenSource.Token()
	if err != nil {
		return "", nil, tokenError(err)
	}
	if b, ok := c.tokenSource.(dpopBound); ok && !strings.EqualFold(t.TokenType, "bearer") {
		return t.AccessToken, b.dpopSession(), nil
	}
	return t.AccessToken, nil, nil
}

// RequestOption changes one call: WithIdempotencyKey, WithRequestTimeout, WithHeader,
// WithRequestMaxRetries. Cancel a call with its context.Context.
type RequestOption func(*requestConfig)

type requestConfig struct {
	idempotencyKey string
	timeout        time.Duration
	maxRetries     int
	header         http.Header
}

// WithIdempotencyKey sends key as the call's Idempotency-Key (1–255 visible ASCII characters)
// instead of a generated one. The server answers a POST sent again with the same key and body,
// within 24 hours and from any process, with the first response and creates nothing new: keep the
// key (e.g. with the job it belongs to) to retry safely after a crash or restart.
func WithIdempotencyKey(key string) RequestOption {
	return func(r *requestConfig) { r.idempotencyKey = key }
}

// WithRequestTimeout bounds each attempt of this call (instead of the client's WithTimeout); a call
// that runs out of it fails with Code "timeout" once its retries are spent. 0: no bound.
func WithRequestTimeout(d time.Duration) RequestOption {
	return func(r *requestConfig) { r.timeout = max(0, d) }
}

// WithHeader adds a header to this call's requests (it replaces one the SDK sets, except
// Authorization and Idempotency-Key).
func WithHeader(key, value string) RequestOption {
	return func(r *requestConfig) {
		if r.header == nil {
			r.header = http.Header{}
		}
		r.header.Add(key, value)
	}
}

// WithRequestMaxRetries sets how often this call is retried (instead of the client's WithMaxRetries; 0: never).
func WithRequestMaxRetries(n int) RequestOption {
	return func(r *requestConfig) { r.maxRetries = max(0, n) }
}

// Do sends a request to any API path (an operation this SDK does not wrap yet) with the client's
// credential, retries and errors: query may be nil, body (when not nil) is sent as JSON, and a 2xx
// JSON answer is decoded into out (when not nil). path starts with "/" (e.g. "/v1/projects").
// Do sends no Idempotency-Key of its own: pass WithIdempotencyKey to make a POST safe to send again
// after a network error (without one it is not resent).
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body, out any, opts ...RequestOption) error {
	if !strings.HasPrefix(path, "/") {
		return &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("the path %q does not start with /", path)}
	}
	return c.call(ctx, strings.ToUpper(method), path, query, body, out, false, opts)
}

// call sends one API call, with retries, and decodes a 2xx JSON body into out (when not nil).
// idempotent: the operation takes an Idempotency-Key, so a POST gets a generated one (unless the
// caller gave one) that every retry reuses, and the server runs it at most once.
func (c *Client) call(ctx context.Context, method, path string, query url.Values, in, out any, idempotent bool, opts []RequestOption) error {
	cfg := requestConfig{timeout: c.timeout, maxRetries: c.maxRetries}
	for _, opt := range opts {
		opt(&cfg)
	}
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return &Error{Code: CodeInvalidRequest, Message: "encoding the request body: " + err.Error(), err: err}
		}
	}
	target := c.baseURL + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	idempotencyKey := cfg.idempotencyKey
	if idempotencyKey == "" && idempotent && method == http.MethodPost {
		idempotencyKey = crand.Text()
	}
	// A POST without a key that may have reached the server is not sent again.
	resendable := method != http.MethodPost || idempotencyKey != ""
	what := method + " " + path
	refreshed := false
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return callerError(what, err, nil)
		}
		token, dpop, err := c.token()
		if err != nil {
			return err
		}
		resp, respBody, err := c.send(ctx, cfg, method, target, body, token, dpop, idempotencyKey)
		if err != nil {
			if ctx.Err() != nil {
				return callerError(what, ctx.Err(), err)
			}
			e := transportError(what, err)
			if !resendable || attempt >= cfg.maxRetries {
				return e
			}
			if err := c.sleep(ctx, backoff(attempt)); err != nil {
				return callerError(what, err, e)
			}
			continue
		}
		if resp.StatusCode < 400 {
			if out != nil && resp.StatusCode != http.StatusNoContent && len(respBody) > 0 {
				if err := json.Unmarshal(respBody, out); err != nil {
					return &Error{Status: resp.StatusCode, Code: CodeInvalidResponse, Message: "the response to " + what + " is not the expected JSON: " + err.Error(),
						RequestID: resp.Header.Get("X-Request-Id"), Header: resp.Header, err: err}
				}
			}
			return nil
		}
		apiErr := errorFromResponse(resp, respBody)
		if !refreshed && c.invalidated(resp, apiErr, token) {
			refreshed = true
			attempt--
			continue
		}
		if (apiErr.Status != http.StatusTooManyRequests && apiErr.Status != http.StatusServiceUnavailable) || attempt >= cfg.maxRetries {
			return apiErr
		}
		wait := backoff(attempt)
		if apiErr.Header.Get("Retry-After") != "" {
			if apiErr.RetryAfter > c.maxRetryAfter {
				return apiErr
			}
			wait = apiErr.RetryAfter
		}
		if err := c.sleep(ctx, wait); err != nil {
			return callerError(what, err, apiErr)
		}
	}
}

// send makes one attempt, bounded by cfg.timeout, and reads the whole response. With dpop, the
// token is sent as DPoP with a fresh proof (and once more with the server's nonce if it asks).
func (c *Client) send(ctx context.Context, cfg requestConfig, method, target string, body []byte, token string, dpop *dpopSession, idempotencyKey string) (*http.Response, []byte, error) {
	if cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.timeout)
		defer cancel()
	}
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, reader)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range cfg.header {
		req.Header[k] = v
	}
	if idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", idempotencyKey)
	}
	resp, err := c.doWithToken(req, token, dpop)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	respBody, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	return resp, respBody, nil
}

// doWithToken sends req with token: as DPoP with a fresh proof (and once more with the server's
// nonce if it asks) when dpop is set, else as a bearer token.
func (c *Client) doWithToken(req *http.Request, token string, dpop *dpopSession) (*http.Response, error) {
	req.Header.Set("Authorization", "Bearer "+token)
	if dpop == nil {
		return c.httpClient.Do(req)
	}
	req.Header.Del("DPoP")
	return dpop.do(req, token, c.httpClient.Do)
}

// invalidated tells whether the answer refused token as expired early or revoked and the token
// source, told so, will give a fresh one: the request is then sent once more.
func (c *Client) invalidated(resp *http.Response, apiErr *Error, token string) bool {
	if apiErr.Status != http.StatusUnauthorized || !isInvalidToken(resp, apiErr) {
		return false
	}
	inv, ok := c.tokenSource.(invalidator)
	if ok {
		inv.Invalidate(token)
	}
	return ok
}

func isInvalidToken(resp *http.Response, e *Error) bool {
	return e.Code == "invalid_token" || strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`)
}

// backoff is exponential with jitter: about 0.5 s, 1 s, 2 s … up to 8 s.
func backoff(attempt int) time.Duration {
	d := min(maxBackoff, initialBackoff<<attempt)
	return d/2 + rand.N(d/2+1)
}

// encodeQuery turns a generated *…Params struct into query parameters (its `form` tags; nil fields are left out).
func encodeQuery(params any) url.Values {
	q := url.Values{}
	v := reflect.ValueOf(params)
	if !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil()) {
		return q
	}
	v = reflect.Indirect(v)
	t := v.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("form"), ",")
		f := v.Field(i)
		if name == "" || (f.Kind() == reflect.Pointer && f.IsNil()) {
			continue
		}
		q.Set(name, fmt.Sprint(reflect.Indirect(f).Interface()))
	}
	return q
}

func withPage(q url.Values, page int) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = v
	}
	out.Set("page", fmt.Sprint(page))
	return out
}

func pathEscape(s string) string { return url.PathEscape(s) }

// Ptr returns a pointer to v, for the optional fields of parameters:
// &slipway.ListProjectsParams{PerPage: slipway.Ptr(50)}.
func Ptr[T any](v T) *T { return &v }

// done returns (nil, err) on error so callers never see a half-filled value.
func done[T any](out *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return out, nil
}
