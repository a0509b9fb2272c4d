package slipway_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	slipway "slipway.dev/sdk/go"
)

func TestErrorMapping(t *testing.T) {
	ctx := context.Background()
	c := apiKeyClient(t)

	_, err := c.Deployments.Get(ctx, server.Project.ID, "dep_00000000000000000000000000")
	var notFound *slipway.Error
	if !errors.As(err, &notFound) || notFound.Status != 404 || notFound.Code != "not_found" || notFound.Message == "" || notFound.RequestID == "" {
		t.Fatalf("404: %#v", err)
	}
	if notFound.RequestID != notFound.Header.Get("X-Request-Id") {
		t.Fatalf("request id %q vs header %q", notFound.RequestID, notFound.Header.Get("X-Request-Id"))
	}

	_, err = c.Deployments.Create(ctx, server.Project.ID, slipway.CreateDeployment{Environment: "Not An Env!", Branch: "main"})
	var invalid *slipway.Error
	if !errors.As(err, &invalid) || invalid.Status != 422 || invalid.Code != "validation_failed" || len(invalid.Details) != 1 || invalid.Details[0].Field != "environment" {
		t.Fatalf("422: %#v", err)
	}

	// The harness's key has read + write; deleting a project needs admin.
	err = c.Projects.Delete(ctx, server.Project.ID)
	var denied *slipway.Error
	if !errors.As(err, &denied) || denied.Status != 403 || denied.Code != "insufficient_scope" {
		t.Fatalf("403: %#v", err)
	}
}

// dropFirstPOSTResponse is the real transport; the first POST reaches the server and runs, but its
// response is lost on the way back, as when a connection drops.
type dropFirstPOSTResponse struct {
	mu   sync.Mutex
	keys []string
}

func (d *dropFirstPOSTResponse) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost {
		return resp, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.keys = append(d.keys, req.Header.Get("Idempotency-Key"))
	if len(d.keys) == 1 {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, errors.New("connection reset by peer")
	}
	return resp, nil
}

func TestARetriedPOSTCreatesExactlyOnce(t *testing.T) {
	ctx := context.Background()
	transport := &dropFirstPOSTResponse{}
	c := apiKeyClient(t, slipway.WithHTTPClient(&http.Client{Transport: transport}))
	waits := slipway.RecordSleeps(c)
	branch := "go-once-" + unique()
	d, err := c.Deployments.Create(ctx, server.APIKey.ProjectID, slipway.CreateDeployment{Environment: "production", Branch: branch})
	if err != nil {
		t.Fatal(err)
	}
	if len(transport.keys) != 2 || transport.keys[0] == "" || transport.keys[0] != transport.keys[1] || len(*waits) != 1 {
		t.Fatalf("keys = %q, waits = %v", transport.keys, *waits)
	}
	// The server ran the POST once: the retry was answered from its record of the first.
	var same []string
	for dep, err := range apiKeyClient(t).Deployments.All(ctx, server.APIKey.ProjectID, &slipway.ListDeploymentsParams{Branch: &branch}) {
		if err != nil {
			t.Fatal(err)
		}
		same = append(same, dep.ID)
	}
	if len(same) != 1 || same[0] != d.ID {
		t.Fatalf("deployments of %s: %v, want [%s]", branch, same, d.ID)
	}
}

func TestEveryPOSTGetsItsOwnIdempotencyKey(t *testing.T) {
	ctx := context.Background()
	var keys []string
	rec := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		keys = append(keys, req.Header.Get("Idempotency-Key"))
		return http.DefaultTransport.RoundTrip(req)
	})
	c := apiKeyClient(t, slipway.WithHTTPClient(&http.Client{Transport: rec}))
	body := slipway.CreateDeployment{Environment: "production", Branch: "go-keys-" + unique()}
	a := must[*slipway.Deployment](t)(c.Deployments.Create(ctx, server.APIKey.ProjectID, body))
	b := must[*slipway.Deployment](t)(c.Deployments.Create(ctx, server.APIKey.ProjectID, body))
	must[*slipway.Project](t)(c.Projects.Get(ctx, server.APIKey.ProjectID))
	if a.ID == b.ID || keys[0] == "" || keys[0] == keys[1] || keys[2] != "" {
		t.Fatalf("keys = %q", keys)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestA429IsRetriedAfterRetryAfter(t *testing.T) {
	ctx := context.Background()
	// 3 requests an hour, in a window that ends 6 s after the harness is up: a real Retry-After ≤ 6 s.
	limited, err := startHarness("--rate-limit", "3", "--rate-limit-reset-in", "6")
	if err != nil {
		t.Fatal(err)
	}
	defer limited.stop()
	noRetry, _ := slipway.NewClient(limited.BaseURL, slipway.WithAPIKey(limited.APIKey.Key), slipway.WithMaxRetries(0))
	for range 3 {
		must[*slipway.Project](t)(noRetry.Projects.Get(ctx, limited.Project.ID))
	}
	_, err = noRetry.Projects.Get(ctx, limited.Project.ID)
	var limitedErr *slipway.Error
	if !errors.As(err, &limitedErr) || limitedErr.Status != 429 || limitedErr.Code != "rate_limited" {
		t.Fatalf("err = %#v", err)
	}
	retryAfter := limitedErr.RetryAfter
	if retryAfter <= 0 || retryAfter > 6*time.Second {
		t.Fatalf("Retry-After %v, want (0, 6 s]", retryAfter)
	}

	// A Retry-After longer than the client will wait for is returned, not waited for.
	impatient, _ := slipway.NewClient(limited.BaseURL, slipway.WithAPIKey(limited.APIKey.Key), slipway.WithMaxRetries(3), slipway.WithMaxRetryAfter(0))
	waits := slipway.RecordSleeps(impatient)
	if _, err := impatient.Projects.Get(ctx, limited.Project.ID); !errors.As(err, &limitedErr) || len(*waits) != 0 {
		t.Fatalf("err = %v, waits = %v", err, *waits)
	}

	type sent struct {
		at     time.Time
		status int
	}
	var log []sent
	rec := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		at := time.Now()
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err == nil {
			log = append(log, sent{at, resp.StatusCode})
		}
		return resp, err
	})
	patient, _ := slipway.NewClient(limited.BaseURL, slipway.WithAPIKey(limited.APIKey.Key), slipway.WithHTTPClient(&http.Client{Transport: rec}))
	p := must[*slipway.Project](t)(patient.Projects.Get(ctx, limited.Project.ID))
	if p.ID != limited.Project.ID || len(log) != 2 || log[0].status != 429 || log[1].status != 200 {
		t.Fatalf("sent = %+v", log)
	}
	// The retry went out no sooner than the server asked (whole seconds, rounded up by the server).
	if gap := log[1].at.Sub(log[0].at); gap < retryAfter-time.Second {
		t.Fatalf("retried after %v, Retry-After %v", gap, retryAfter)
	}
}

func TestA503WhileTheDatabaseIsDownIsRetriedAndCreatesOnce(t *testing.T) {
	ctx := context.Background()
	outage, err := startHarness()
	if err != nil {
		t.Fatal(err)
	}
	defer outage.stop()
	type post struct {
		status int
		key    string
	}
	var mu sync.Mutex
	var posts []post
	rec := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err == nil && req.Method == http.MethodPost {
			mu.Lock()
			posts = append(posts, post{resp.StatusCode, req.Header.Get("Idempotency-Key")})
			mu.Unlock()
		}
		return resp, err
	})
	c, _ := slipway.NewClient(outage.BaseURL, slipway.WithAPIKey(outage.APIKey.Key), slipway.WithMaxRetries(5), slipway.WithHTTPClient(&http.Client{Transport: rec}))
	must[*slipway.Project](t)(c.Projects.Get(ctx, outage.APIKey.ProjectID))
	if answer, err := outage.command("database stop"); err != nil || answer["database"] != "stopped" {
		t.Fatalf("database stop: %v %v", answer, err)
	}
	branch := "go-outage-" + unique()
	type result struct {
		d   *slipway.Deployment
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := c.Deployments.Create(ctx, outage.APIKey.ProjectID, slipway.CreateDeployment{Environment: "production", Branch: branch})
		done <- result{d, err}
	}()
	for range 300 {
		mu.Lock()
		got503 := len(posts) > 0 && posts[0].status == 503
		mu.Unlock()
		if got503 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if answer, err := outage.command("database start"); err != nil || answer["database"] != "started" {
		t.Fatalf("database start: %v %v", answer, err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(posts) < 2 || posts[0].status != 503 || posts[len(posts)-1].status != 201 {
		t.Fatalf("posts = %+v", posts)
	}
	for _, p := range posts {
		if p.key != posts[0].key || p.key == "" {
			t.Fatalf("keys differ: %+v", posts)
		}
	}
	var same []string
	for d, err := range c.Deployments.All(ctx, outage.APIKey.ProjectID, &slipway.ListDeploymentsParams{Branch: &branch}) {
		if err != nil {
			t.Fatal(err)
		}
		same = append(same, d.ID)
	}
	if len(same) != 1 || same[0] != r.d.ID {
		t.Fatalf("deployments of %s: %v, want [%s]", branch, same, r.d.ID)
	}
}

func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestNetworkErrorsAreRetriedThenReturned(t *testing.T) {
	c, _ := slipway.NewClient(closedPort(t), slipway.WithAPIKey("slw_x"), slipway.WithMaxRetries(3))
	waits := slipway.RecordSleeps(c)
	_, err := c.Projects.List(context.Background(), nil)
	var apiErr *slipway.Error
	if !errors.As(err, &apiErr) || apiErr.Code != slipway.CodeNetworkError || apiErr.Status != 0 || len(*waits) != 3 {
		t.Fatalf("err = %v, waits = %v", err, *waits)
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) {
		t.Fatalf("the cause is not unwrapped: %#v", err)
	}
	for _, w := range *waits {
		if w <= 0 || w > 8*time.Second {
			t.Fatalf("wait %v", w)
		}
	}

	off, _ := slipway.NewClient(closedPort(t), slipway.WithAPIKey("slw_x"), slipway.WithMaxRetries(0))
	offWaits := slipway.RecordSleeps(off)
	if _, err := off.Projects.List(context.Background(), nil); err == nil || len(*offWaits) != 0 {
		t.Fatalf("retries off: err = %v, waits = %v", err, *offWaits)
	}
}

func TestTimeoutAndCancellation(t *testing.T) {
	// A listener that accepts connections and never answers.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}()
	base := "http://" + l.Addr().String()

	c, _ := slipway.NewClient(base, slipway.WithAPIKey("slw_x"), slipway.WithTimeout(200*time.Millisecond), slipway.WithMaxRetries(0))
	var netErr net.Error
	var apiErr *slipway.Error
	if _, err := c.Projects.List(context.Background(), nil); !errors.As(err, &netErr) || !netErr.Timeout() || !errors.As(err, &apiErr) || apiErr.Code != slipway.CodeTimeout {
		t.Fatalf("timeout: %v", err)
	}

	// The timeout applies to an HTTP client of the caller's too, whatever the order of the options.
	own, _ := slipway.NewClient(base, slipway.WithAPIKey("slw_x"), slipway.WithTimeout(200*time.Millisecond), slipway.WithHTTPClient(&http.Client{}), slipway.WithMaxRetries(0))
	if _, err := own.Projects.List(context.Background(), nil); !errors.As(err, &netErr) || !netErr.Timeout() {
		t.Fatalf("timeout with WithHTTPClient: %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	c2, _ := slipway.NewClient(base, slipway.WithAPIKey("slw_x"))
	if _, err := c2.Projects.List(ctx, nil); !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &apiErr) || apiErr.Code != slipway.CodeTimeout || apiErr.Status != 0 {
		t.Fatalf("context: %v", err)
	}

	// The caller's cancel: request_aborted, still errors.Is context.Canceled, and no retry after it.
	canceled, cancelNow := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancelNow)
	waits := slipway.RecordSleeps(c2)
	if _, err := c2.Projects.List(canceled, nil); !errors.Is(err, context.Canceled) || !errors.As(err, &apiErr) || apiErr.Code != slipway.CodeRequestAborted || len(*waits) != 0 {
		t.Fatalf("cancel: %v, waits %v", err, *waits)
	}
	// Canceled before it starts: nothing is sent.
	if _, err := c2.Projects.List(canceled, nil); !errors.Is(err, context.Canceled) || !errors.As(err, &apiErr) || apiErr.Code != slipway.CodeRequestAborted {
		t.Fatalf("canceled already: %v", err)
	}

	// A per-call timeout replaces the client's (none here) for that call only.
	long, _ := slipway.NewClient(base, slipway.WithAPIKey("slw_x"), slipway.WithTimeout(0), slipway.WithMaxRetries(0))
	if _, err := long.Projects.List(context.Background(), nil, slipway.WithRequestTimeout(150*time.Millisecond)); !errors.As(err, &apiErr) || apiErr.Code != slipway.CodeTimeout {
		t.Fatalf("per-call timeout: %v", err)
	}
}

func TestForbiddenByRole(t *testing.T) {
	ctx := context.Background()
	// The viewer grants the app write, but a viewer's role allows reading only.
	cfg := slipway.OAuthConfig(server.Issuer, server.PublicClient.ClientID, "", redirectURI, "read", "write")
	req := slipway.NewAuthorizationRequest(cfg)
	tok, err := slipway.Exchange(ctx, cfg, req, logIn(t, req.URL, server.Viewer.Email, server.Viewer.Password))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := slipway.NewClient(server.BaseURL, slipway.WithTokenSource(slipway.OAuthTokenSource(ctx, cfg, tok)))
	must[*slipway.Project](t)(c.Projects.Get(ctx, server.Project.ID))
	_, err = c.Projects.Create(ctx, slipway.CreateProject{Name: "not-for-viewers"})
	var apiErr *slipway.Error
	if !errors.As(err, &apiErr) || apiErr.Status != 403 || apiErr.Code != "forbidden" {
		t.Fatalf("err = %#v", err)
	}
}

func TestConflict(t *testing.T) {
	ctx := context.Background()
	c := adminClient(t)
	name := "go-dup-" + unique()
	must[*slipway.Project](t)(c.Projects.Create(ctx, slipway.CreateProject{Name: name}))
	_, err := c.Projects.Create(ctx, slipway.CreateProject{Name: strings.ToUpper(name)}) // unique ignoring case
	var apiErr *slipway.Error
	if !errors.As(err, &apiErr) || apiErr.Status != 409 || apiErr.Code != "conflict" {
		t.Fatalf("err = %#v", err)
	}
}
