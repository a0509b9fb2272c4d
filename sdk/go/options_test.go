package slipway_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	slipway "slipway.dev/sdk/go"
)

// headerRecorder is the real transport, remembering the requests' headers.
type headerRecorder struct {
	mu      sync.Mutex
	headers []http.Header
}

func (h *headerRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.headers = append(h.headers, req.Header.Clone())
	h.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func TestPerCallIdempotencyKeyAndHeaders(t *testing.T) {
	ctx := context.Background()
	rec := &headerRecorder{}
	c := apiKeyClient(t, slipway.WithHTTPClient(&http.Client{Transport: rec}))
	key := "go-key-" + unique()
	body := slipway.CreateDeployment{Environment: "production", Branch: "go-opt-" + unique()}
	first := must[*slipway.Deployment](t)(c.Deployments.Create(ctx, server.APIKey.ProjectID, body, slipway.WithIdempotencyKey(key), slipway.WithHeader("X-Correlation-Id", "job-1")))
	// Another client (a restarted process) with the same key: the first deployment, not a second.
	again := must[*slipway.Deployment](t)(apiKeyClient(t).Deployments.Create(ctx, server.APIKey.ProjectID, body, slipway.WithIdempotencyKey(key)))
	if again.ID != first.ID {
		t.Fatalf("the same key made %s and %s", first.ID, again.ID)
	}
	must[*slipway.Project](t)(c.Projects.Get(ctx, server.APIKey.ProjectID, slipway.WithHeader("X-Correlation-Id", "job-2")))
	if len(rec.headers) != 2 || rec.headers[0].Get("Idempotency-Key") != key || rec.headers[0].Get("X-Correlation-Id") != "job-1" ||
		rec.headers[1].Get("X-Correlation-Id") != "job-2" || rec.headers[1].Get("Idempotency-Key") != "" {
		t.Fatalf("headers = %v", rec.headers)
	}
	// A header cannot replace the credential.
	_, err := c.Projects.Get(ctx, server.APIKey.ProjectID, slipway.WithHeader("Authorization", "Bearer nope"))
	if err != nil || rec.headers[2].Get("Authorization") != "Bearer "+server.APIKey.Key {
		t.Fatalf("Authorization was replaced: %v %v", err, rec.headers[2])
	}
}

// Many calls at once with one key, from two clients: one deployment, every call answered with it.
func TestConcurrentCallsWithOneIdempotencyKeyCreateOnce(t *testing.T) {
	ctx := context.Background()
	key := "go-burst-" + unique()
	body := slipway.CreateDeployment{Environment: "production", Branch: "go-burst-" + unique()}
	clients := []*slipway.Client{apiKeyClient(t), apiKeyClient(t)}
	ids := make([]string, 20)
	errs := make([]error, 20)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			d, err := clients[i%2].Deployments.Create(ctx, server.APIKey.ProjectID, body, slipway.WithIdempotencyKey(key), slipway.WithRequestMaxRetries(5))
			if err == nil {
				ids[i] = d.ID
			}
			errs[i] = err
		})
	}
	wg.Wait()
	conflicts := 0
	answered := map[string]bool{}
	for i, err := range errs {
		var apiErr *slipway.Error
		if errors.As(err, &apiErr) && apiErr.Code == slipway.CodeConflict {
			conflicts++ // still in progress after the server's wait: retry with the same key
			continue
		}
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		answered[ids[i]] = true
	}
	if len(answered) != 1 {
		t.Fatalf("the calls were answered with %v, want one deployment", answered)
	}
	var made []string
	for d, err := range apiKeyClient(t).Deployments.All(ctx, server.APIKey.ProjectID, &slipway.ListDeploymentsParams{Branch: &body.Branch}) {
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, d.ID)
	}
	t.Logf("20 concurrent creates with one key: %d deployment(s), %d answered 409 conflict", len(made), conflicts)
	if len(made) != 1 {
		t.Fatalf("deployments = %v", made)
	}
}

func TestPerCallMaxRetries(t *testing.T) {
	c, _ := slipway.NewClient(closedPort(t), slipway.WithAPIKey("slw_x"), slipway.WithMaxRetries(3))
	waits := slipway.RecordSleeps(c)
	_, err := c.Projects.List(context.Background(), nil, slipway.WithRequestMaxRetries(0))
	var apiErr *slipway.Error
	if !errors.As(err, &apiErr) || apiErr.Code != slipway.CodeNetworkError || len(*waits) != 0 {
		t.Fatalf("err = %v, waits = %v", err, *waits)
	}
	_, _ = c.Projects.List(context.Background(), nil, slipway.WithRequestMaxRetries(1))
	if len(*waits) != 1 {
		t.Fatalf("waits = %v", *waits)
	}
}

func TestDoSendsARawRequest(t *testing.T) {
	ctx := context.Background()
	c := apiKeyClient(t)
	var project map[string]any
	if err := c.Do(ctx, http.MethodGet, "/v1/projects/"+server.APIKey.ProjectID, nil, nil, &project); err != nil || project["id"] != server.APIKey.ProjectID {
		t.Fatalf("GET: %v %v", err, project)
	}
	var page struct {
		Data []struct {
			Environment string `json:"environment"`
		} `json:"data"`
	}
	branch := "go-do-" + unique()
	if err := c.Do(ctx, "post", "/v1/projects/"+server.APIKey.ProjectID+"/deployments", nil, map[string]string{"environment": "staging", "branch": branch}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, http.MethodGet, "/v1/projects/"+server.APIKey.ProjectID+"/deployments", url.Values{"branch": {branch}}, nil, &page); err != nil || len(page.Data) != 1 || page.Data[0].Environment != "staging" {
		t.Fatalf("list: %v %+v", err, page)
	}
	var apiErr *slipway.Error
	if err := c.Do(ctx, http.MethodGet, "/v1/projects/proj_00000000000000000000000000", nil, nil, nil); !errors.As(err, &apiErr) || apiErr.Code != slipway.CodeNotFound {
		t.Fatalf("404: %v", err)
	}
	if err := c.Do(ctx, http.MethodGet, "v1/projects", nil, nil, nil); !errors.As(err, &apiErr) || apiErr.Code != slipway.CodeInvalidRequest {
		t.Fatalf("relative path: %v", err)
	}
}

// A POST without an Idempotency-Key whose response was lost is not sent again (it may have run);
// with a key it is, and runs once.
func TestAPOSTWithoutAKeyIsNotResent(t *testing.T) {
	ctx := context.Background()
	path := "/v1/projects/" + server.APIKey.ProjectID + "/deployments"
	for _, withKey := range []bool{false, true} {
		transport := &dropFirstPOSTResponse{}
		c := apiKeyClient(t, slipway.WithHTTPClient(&http.Client{Transport: transport}))
		waits := slipway.RecordSleeps(c)
		branch := "go-nokey-" + unique()
		var opts []slipway.RequestOption
		if withKey {
			opts = append(opts, slipway.WithIdempotencyKey("go-do-"+branch))
		}
		err := c.Do(ctx, http.MethodPost, path, nil, map[string]string{"environment": "production", "branch": branch}, nil, opts...)
		var apiErr *slipway.Error
		switch {
		case !withKey && (!errors.As(err, &apiErr) || apiErr.Code != slipway.CodeNetworkError || len(transport.keys) != 1 || len(*waits) != 0):
			t.Fatalf("without a key: err = %v, sent %d, waits %v", err, len(transport.keys), *waits)
		case withKey && (err != nil || len(transport.keys) != 2):
			t.Fatalf("with a key: err = %v, sent %d", err, len(transport.keys))
		}
		n := 0
		for _, err := range apiKeyClient(t).Deployments.All(ctx, server.APIKey.ProjectID, &slipway.ListDeploymentsParams{Branch: &branch}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 1 {
			t.Fatalf("withKey=%v: %d deployments, want 1 (the lost response's)", withKey, n)
		}
	}
}

func TestA2xxThatIsNotJSONIsInvalidResponse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>a captive portal</html>"))
	}))
	defer srv.Close()
	c, _ := slipway.NewClient(srv.URL, slipway.WithAPIKey("slw_x"))
	_, err := c.Projects.List(context.Background(), nil)
	var apiErr *slipway.Error
	if !errors.As(err, &apiErr) || apiErr.Code != slipway.CodeInvalidResponse || apiErr.Status != 200 {
		t.Fatalf("err = %v", err)
	}
}

func TestErrorCodeConstants(t *testing.T) {
	// Every code of the README's error list is a constant, and the client-side ones are distinct.
	for _, code := range []string{"invalid_request", "unauthorized", "invalid_token", "insufficient_scope", "forbidden", "not_found",
		"method_not_allowed", "conflict", "invalid_transition", "project_not_active", "payload_too_large", "unsupported_media_type",
		"validation_failed", "idempotency_key_reused", "rate_limited", "internal_error", "service_unavailable"} {
		found := false
		for _, c := range slipway.APIErrorCodes {
			found = found || c == code
		}
		if !found {
			t.Errorf("no constant for %s", code)
		}
	}
	if slipway.CodeHTTPStatus(502) != "http_502" {
		t.Fatal(slipway.CodeHTTPStatus(502))
	}
}

// SLIPWAY_URL is the one name of the three SDKs; SLIPWAY_BASE_URL (the Python SDK's former name) still
// works with one notice per process, until v0.4.0; an explicit base URL always wins.
func TestBaseURLFromTheEnvironment(t *testing.T) {
	ctx := context.Background()
	t.Setenv("SLIPWAY_BASE_URL", "")
	t.Setenv("SLIPWAY_URL", server.BaseURL)
	c, err := slipway.NewClient("", slipway.WithAPIKey(server.APIKey.Key))
	if err != nil {
		t.Fatal(err)
	}
	if got := must[*slipway.Project](t)(c.Projects.Get(ctx, server.APIKey.ProjectID)); got.ID != server.APIKey.ProjectID {
		t.Fatalf("got project %s", got.ID)
	}

	var notices strings.Builder
	saved := slipway.DeprecationNotices
	slipway.DeprecationNotices = &notices
	defer func() { slipway.DeprecationNotices = saved }()
	slipway.ResetBaseURLNotice()
	t.Setenv("SLIPWAY_URL", "")
	t.Setenv("SLIPWAY_BASE_URL", server.BaseURL)
	for range 2 {
		old, err := slipway.NewClient("", slipway.WithAPIKey(server.APIKey.Key))
		if err != nil {
			t.Fatal(err)
		}
		if got := must[*slipway.Project](t)(old.Projects.Get(ctx, server.APIKey.ProjectID)); got.ID != server.APIKey.ProjectID {
			t.Fatalf("got project %s", got.ID)
		}
	}
	if want := "slipway: SLIPWAY_BASE_URL is deprecated and stops working in v0.4.0: set SLIPWAY_URL instead\n"; notices.String() != want {
		t.Fatalf("notices %q, want it once: %q", notices.String(), want)
	}

	// An explicit base URL wins, and nothing at all is an error naming SLIPWAY_URL.
	if _, err := slipway.NewClient("http://127.0.0.1:9", slipway.WithAPIKey(server.APIKey.Key)); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SLIPWAY_BASE_URL", "")
	if _, err := slipway.NewClient("", slipway.WithAPIKey(server.APIKey.Key)); err == nil || !strings.Contains(err.Error(), "set SLIPWAY_URL") {
		t.Fatalf("no base URL: %v", err)
	}
}
