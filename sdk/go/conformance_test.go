package slipway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	slipway "slipway.dev/sdk/go"
)

// The shared scenario (sdk/scenarios/conformance.json), run with the same inputs and expectations
// as the TypeScript and Python suites: every case in order, failing on a case it does not know.
func TestConformanceScenario(t *testing.T) {
	raw, err := os.ReadFile("../scenarios/conformance.json")
	if err != nil {
		t.Fatal(err)
	}
	var scenario struct {
		Version int `json:"version"`
		Cases   []struct {
			Name   string          `json:"name"`
			Input  json.RawMessage `json:"input"`
			Expect json.RawMessage `json:"expect"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &scenario); err != nil {
		t.Fatal(err)
	}
	if scenario.Version != 1 || len(scenario.Cases) == 0 {
		t.Fatalf("scenario version %d with %d cases", scenario.Version, len(scenario.Cases))
	}
	run := unique()
	s := &conformance{run: run}
	for _, c := range scenario.Cases {
		step, ok := conformanceSteps[c.Name]
		if !ok {
			t.Fatalf("unknown conformance case %q: implement it in conformance_test.go", c.Name)
		}
		ok = t.Run(c.Name, func(t *testing.T) {
			input := decodeObject(t, []byte(strings.ReplaceAll(string(c.Input), "{run}", run)))
			expect := decodeObject(t, c.Expect)
			step(t, s, input, expect)
		})
		if !ok {
			t.Fatalf("case %s failed; the later cases depend on it", c.Name)
		}
	}
}

type conformance struct {
	run     string
	project *slipway.Project
}

type object map[string]any

func decodeObject(t *testing.T, raw []byte) object {
	t.Helper()
	var o object
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	return o
}

// str, num and list read an input or expectation, failing on a missing one or a wrong type.
func (o object) str(t *testing.T, key string) string {
	t.Helper()
	v, ok := o[key].(string)
	if !ok {
		t.Fatalf("%s: want a string, got %#v", key, o[key])
	}
	return v
}

func (o object) num(t *testing.T, key string) int {
	t.Helper()
	v, ok := o[key].(float64)
	if !ok {
		t.Fatalf("%s: want a number, got %#v", key, o[key])
	}
	return int(v)
}

func (o object) list(t *testing.T, key string) []string {
	t.Helper()
	v, ok := o[key].([]any)
	if !ok {
		t.Fatalf("%s: want a list, got %#v", key, o[key])
	}
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = fmt.Sprint(s)
	}
	return out
}

// only fails when o has a key the step does not read, so a changed scenario is noticed.
func (o object) only(t *testing.T, keys ...string) {
	t.Helper()
	for k := range o {
		if !slices.Contains(keys, k) {
			t.Fatalf("unknown key %q: implement it in conformance_test.go", k)
		}
	}
}

// wantSDKError checks a failure against error_type/code/status.
func wantSDKError(t *testing.T, err error, expect object) {
	t.Helper()
	expect.only(t, "error_type", "code", "status")
	var e *slipway.Error
	if expect.str(t, "error_type") != "sdk" || !errors.As(err, &e) {
		t.Fatalf("want the SDK's *slipway.Error, got %T %v", err, err)
	}
	if e.Code != expect.str(t, "code") {
		t.Fatalf("code %q, want %q (%v)", e.Code, expect.str(t, "code"), err)
	}
	wantStatus := 0 // null: no response
	if expect["status"] != nil {
		wantStatus = expect.num(t, "status")
	}
	if e.Status != wantStatus {
		t.Fatalf("status %d, want %d", e.Status, wantStatus)
	}
}

var conformanceSteps = map[string]func(t *testing.T, s *conformance, input, expect object){
	"create": func(t *testing.T, s *conformance, input, expect object) {
		input.only(t, "name", "deploy_target")
		expect.only(t, "status", "deploy_target", "id_prefix")
		p, err := adminClient(t).Projects.Create(context.Background(), slipway.CreateProject{
			Name:         input.str(t, "name"),
			DeployTarget: slipway.NotNull(slipway.CreateProjectDeployTarget(input.str(t, "deploy_target"))),
		})
		if err != nil {
			t.Fatal(err)
		}
		target, err := p.DeployTarget.Get()
		if err != nil || string(target) != expect.str(t, "deploy_target") || string(p.Status) != expect.str(t, "status") || !strings.HasPrefix(p.ID, expect.str(t, "id_prefix")) {
			t.Fatalf("project = %+v", p)
		}
		s.project = p
	},

	"nested_list": func(t *testing.T, s *conformance, input, expect object) {
		input.only(t, "environments", "branch", "per_page")
		expect.only(t, "count", "order", "pages_fetched")
		ctx := context.Background()
		var pages atomic.Int32
		deploymentsPath := "/v1/projects/" + s.project.ID + "/deployments"
		counting := roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.Method == http.MethodGet && req.URL.Path == deploymentsPath {
				pages.Add(1)
			}
			return http.DefaultTransport.RoundTrip(req)
		})
		c := adminClientWith(t, slipway.WithHTTPClient(&http.Client{Transport: counting}))
		for _, env := range input.list(t, "environments") {
			if _, err := c.Deployments.Create(ctx, s.project.ID, slipway.CreateDeployment{Environment: env, Branch: input.str(t, "branch")}); err != nil {
				t.Fatal(err)
			}
		}
		var seen []string
		ids := map[string]bool{}
		for d, err := range c.Deployments.All(ctx, s.project.ID, &slipway.ListDeploymentsParams{PerPage: slipway.Ptr(input.num(t, "per_page"))}) {
			if err != nil {
				t.Fatal(err)
			}
			seen = append(seen, d.Environment)
			ids[d.ID] = true
		}
		if len(seen) != expect.num(t, "count") || len(ids) != len(seen) || !slices.Equal(seen, expect.list(t, "order")) {
			t.Fatalf("iterated %v (%d distinct), want %v", seen, len(ids), expect.list(t, "order"))
		}
		if int(pages.Load()) != expect.num(t, "pages_fetched") {
			t.Fatalf("fetched %d pages, want %d", pages.Load(), expect.num(t, "pages_fetched"))
		}
	},

	"idempotent_retry": func(t *testing.T, s *conformance, input, expect object) {
		input.only(t, "name", "idempotency_key")
		expect.only(t, "same_id", "projects_with_name")
		ctx := context.Background()
		name, key := input.str(t, "name"), input.str(t, "idempotency_key")
		// Two client instances, as a retry after a process restart would be.
		var ids []string
		for range 2 {
			p, err := adminClientWith(t).Projects.Create(ctx, slipway.CreateProject{Name: name}, slipway.WithIdempotencyKey(key))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		if (ids[0] == ids[1]) != expect["same_id"].(bool) {
			t.Fatalf("ids %v, same_id %v", ids, expect["same_id"])
		}
		n := 0
		for p, err := range adminClient(t).Projects.All(ctx, &slipway.ListProjectsParams{PerPage: slipway.Ptr(100)}) {
			if err != nil {
				t.Fatal(err)
			}
			if p.Name == name {
				n++
			}
		}
		if n != expect.num(t, "projects_with_name") {
			t.Fatalf("%d projects named %q, want %d", n, name, expect.num(t, "projects_with_name"))
		}
	},

	"set_to_null": func(t *testing.T, s *conformance, input, expect object) {
		input.only(t, "deploy_target")
		expect.only(t, "deploy_target")
		if v, ok := input["deploy_target"]; !ok || v != nil {
			t.Fatalf("input deploy_target %#v, want null", v)
		}
		ctx := context.Background()
		c := adminClient(t)
		updated, err := c.Projects.Update(ctx, s.project.ID, slipway.UpdateProject{DeployTarget: slipway.Null[slipway.UpdateProjectDeployTarget]()})
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Projects.Get(ctx, s.project.ID)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := expect["deploy_target"]; !ok || v != nil || !updated.DeployTarget.IsNull() || !got.DeployTarget.IsNull() {
			t.Fatalf("deploy_target: updated %v, read back %v, want null", updated.DeployTarget, got.DeployTarget)
		}
	},

	"aborted_call": func(t *testing.T, s *conformance, input, expect object) {
		input.only(t, "timeout_ms", "max_retries")
		base, accepted := silentServer(t)
		c, err := slipway.NewClient(base, slipway.WithAPIKey("slw_conformance"))
		if err != nil {
			t.Fatal(err)
		}
		timeout := time.Duration(input.num(t, "timeout_ms")) * time.Millisecond
		_, err = c.Projects.List(context.Background(), nil, slipway.WithRequestTimeout(timeout), slipway.WithRequestMaxRetries(input.num(t, "max_retries")))
		wantSDKError(t, err, expect)
		time.Sleep(2 * timeout) // a retry after the deadline would connect again
		if n := accepted.Load(); n != int32(input.num(t, "max_retries"))+1 {
			t.Fatalf("%d connections, want %d", n, input.num(t, "max_retries")+1)
		}
	},

	"html_502": func(t *testing.T, s *conformance, input, expect object) {
		input.only(t, "status", "content_type", "body", "max_retries")
		var requests atomic.Int32
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			w.Header().Set("Content-Type", input.str(t, "content_type"))
			w.WriteHeader(input.num(t, "status"))
			_, _ = w.Write([]byte(input.str(t, "body")))
		}))
		defer proxy.Close()
		c, err := slipway.NewClient(proxy.URL, slipway.WithAPIKey("slw_conformance"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Projects.List(context.Background(), nil, slipway.WithRequestMaxRetries(input.num(t, "max_retries")))
		wantSDKError(t, err, expect)
		if n := requests.Load(); n != int32(input.num(t, "max_retries"))+1 {
			t.Fatalf("%d requests, want %d", n, input.num(t, "max_retries")+1)
		}
	},
}

// silentServer accepts connections and never answers; it counts the connections.
func silentServer(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + l.Addr().String(), &accepted
}
