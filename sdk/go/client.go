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
	"reflect"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// Version is this library's version.
const Version = "0.1.0"

const (
	defaultMaxRetries    = 2
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

	Projects       *ProjectsService
	Deployments    *DeploymentsService
	Configurations *ConfigurationsService
	APIKeys        *APIKeysService
	Users          *UsersService
	OAuthClients   *OAuthClientsService
	Events         *EventsService
	Webhooks       *WebhooksService
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

// WithHTTPClient sets the HTTP client (transport, proxy, timeout). Default: a client with a 30 s timeout.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.httpClient = hc } }

// WithTimeout bounds each attempt of a request (default 30 s; it applies to a WithHTTPClient client
// too, on a copy). The context.Context bounds the whole call, retries included.
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithMaxRetries sets how often a request is retried after 429, 503 or a network error (default 2; 0: never).
func WithMaxRetries(n int) Option { return func(c *Client) { c.maxRetries = max(0, n) } }

// WithMaxRetryAfter sets the longest Retry-After the client waits for (default 1 minute); a longer
// one is returned as the 429's *Error instead.
func WithMaxRetryAfter(d time.Duration) Option { return func(c *Client) { c.maxRetryAfter = d } }

// WithUserAgent sets a User-Agent prefix naming your application.
func WithUserAgent(ua string) Option {
	return func(c *Client) { c.userAgent = ua + " " + c.userAgent }
}

// NewClient returns a client for the API at baseURL (e.g. https://slipway.example.com).
func NewClient(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("slipway: base URL %q is not an http(s) URL", baseURL)
	}
	c := &Client{
		baseURL:       strings.TrimRight(baseURL, "/"),
		httpClient:    &http.Client{Timeout: 30 * time.Second},
		maxRetries:    defaultMaxRetries,
		maxRetryAfter: defaultMaxRetryAfter,
		userAgent:     "slipway-go/" + Version,
		sleep:         sleepContext,
	}
	for _, opt := range opts {
		opt(c)
	}
	if c.timeout > 0 {
		hc := *c.httpClient
		hc.Timeout = c.timeout
		c.httpClient = &hc
	}
	if c.apiKey == "" && c.tokenSource == nil {
		return nil, errors.New("slipway: no credential: use WithAPIKey, WithAccessToken or WithTokenSource")
	}
	if c.apiKey != "" && c.tokenSource != nil {
		return nil, errors.New("slipway: use only one of WithAPIKey and WithTokenSource/WithAccessToken")
	}
	c.Projects = &ProjectsService{c}
	c.Deployments = &DeploymentsService{c}
	c.Configurations = &ConfigurationsService{c}
	c.APIKeys = &APIKeysService{c}
	c.Users = &UsersService{c}
	c.OAuthClients = &OAuthClientsService{c}
	c.Events = &EventsService{c}
	c.Webhooks = &WebhooksService{c}
	return c, nil
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

func (c *Client) token() (string, error) {
	if c.apiKey != "" {
		return c.apiKey, nil
	}
	t, err := c.tokenSource.Token()
	if err != nil {
		return "", fmt.Errorf("slipway: getting an access token: %w", err)
	}
	return t.AccessToken, nil
}

// do sends one API call, with retries, and decodes a 2xx JSON body into out (when not nil).
func (c *Client) do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("slipway: encoding the request: %w", err)
		}
	}
	target := c.baseURL + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	// One key per call, reused by every retry of it, so the server runs a POST at most once.
	idempotencyKey := ""
	if method == http.MethodPost {
		idempotencyKey = crand.Text()
	}
	refreshed := false
	for attempt := 0; ; attempt++ {
		token, err := c.token()
		if err != nil {
			return err
		}
		var reader io.Reader
		if body != nil {
			reader = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, target, reader)
		if err != nil {
			return fmt.Errorf("slipway: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", c.userAgent)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if idempotencyKey != "" {
			req.Header.Set("Idempotency-Key", idempotencyKey)
		}
		resp, err := c.httpClient.Do(req)
		if err != nil {
			if ctx.Err() != nil || attempt >= c.maxRetries {
				return fmt.Errorf("slipway: %s %s: %w", method, path, err)
			}
			if err := c.sleep(ctx, backoff(attempt)); err != nil {
				return err
			}
			continue
		}
		respBody, readErr := io.ReadAll(resp.Body)
		resp.Body.Close()
		if readErr != nil {
			if ctx.Err() != nil || attempt >= c.maxRetries {
				return fmt.Errorf("slipway: %s %s: reading the response: %w", method, path, readErr)
			}
			if err := c.sleep(ctx, backoff(attempt)); err != nil {
				return err
			}
			continue
		}
		if resp.StatusCode < 400 {
			if out != nil && resp.StatusCode != http.StatusNoContent && len(respBody) > 0 {
				if err := json.Unmarshal(respBody, out); err != nil {
					return fmt.Errorf("slipway: decoding the response of %s %s: %w", method, path, err)
				}
			}
			return nil
		}
		apiErr := errorFromResponse(resp, respBody)
		if apiErr.Status == http.StatusUnauthorized && !refreshed && isInvalidToken(resp, apiErr) {
			if inv, ok := c.tokenSource.(invalidator); ok {
				// The access token expired early or was revoked: refresh once and send again.
				inv.Invalidate(token)
				refreshed = true
				attempt--
				continue
			}
		}
		if (apiErr.Status != http.StatusTooManyRequests && apiErr.Status != http.StatusServiceUnavailable) || attempt >= c.maxRetries {
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
			return err
		}
	}
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
