package slipway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	slipway "slipway.dev/sdk/go"
)

// followDeployment creates a deployment of the API key's project with n lines in its log.
func followDeployment(t *testing.T, ctx context.Context, c *slipway.Client, n int) *slipway.Deployment {
	t.Helper()
	d, err := c.Deployments.Create(ctx, server.APIKey.ProjectID, slipway.CreateDeployment{Environment: "staging", Branch: "go-follow-" + unique()})
	if err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		appendLines(t, ctx, c, d.ID, 1, n)
	}
	return d
}

// appendLines appends the lines "line from" … "line to".
func appendLines(t *testing.T, ctx context.Context, c *slipway.Client, deploymentID string, from, to int) {
	t.Helper()
	var lines []map[string]string
	for i := from; i <= to; i++ {
		lines = append(lines, map[string]string{"text": fmt.Sprintf("line %d", i)})
	}
	raw, _ := json.Marshal(map[string]any{"lines": lines})
	var body slipway.AppendLog
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeploymentLogs.Append(ctx, server.APIKey.ProjectID, deploymentID, body); err != nil {
		t.Fatal(err)
	}
}

func moveTo(t *testing.T, ctx context.Context, c *slipway.Client, deploymentID string, statuses ...string) {
	t.Helper()
	for _, s := range statuses {
		if _, err := c.Deployments.Update(ctx, server.APIKey.ProjectID, deploymentID, slipway.UpdateDeployment{Status: slipway.UpdateDeploymentStatus(s)}); err != nil {
			t.Fatal(err)
		}
	}
}

func seqsOf(events []slipway.LogEvent) []int {
	var seqs []int
	for _, e := range events {
		if e.Type == slipway.LogEventLine {
			seqs = append(seqs, e.Line.Seq)
		}
	}
	return seqs
}

func upTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func TestFollowLinesStatusesEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := apiKeyClient(t)
	d := followDeployment(t, ctx, c, 3)
	var events []slipway.LogEvent
	moved := make(chan error, 1)
	started := false
	for event, err := range c.DeploymentLogs.Follow(ctx, server.APIKey.ProjectID, d.ID, nil) {
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, event)
		if event.Type == slipway.LogEventLine && event.Line.Seq == 3 {
			// While the follow waits: building, two more lines, deploying, succeeded.
			started = true
			go func() {
				update := func(s string) error {
					_, err := c.Deployments.Update(ctx, server.APIKey.ProjectID, d.ID, slipway.UpdateDeployment{Status: slipway.UpdateDeploymentStatus(s)})
					return err
				}
				var body slipway.AppendLog
				_ = json.Unmarshal([]byte(`{"lines":[{"text":"line 4"},{"text":"line 5","stream":"stderr"}]}`), &body)
				err := update("building")
				if err == nil {
					_, err = c.DeploymentLogs.Append(ctx, server.APIKey.ProjectID, d.ID, body)
				}
				if err == nil {
					err = update("deploying")
				}
				if err == nil {
					err = update("succeeded")
				}
				moved <- err
			}()
		}
	}
	if !started {
		t.Fatalf("the follow ended before line 3: %+v", events)
	}
	if err := <-moved; err != nil {
		t.Fatal(err)
	}
	if got := seqsOf(events); !slices.Equal(got, upTo(5)) {
		t.Fatalf("seqs = %v", got)
	}
	for _, e := range events {
		if e.Type == slipway.LogEventLine && e.Line.Text != fmt.Sprintf("line %d", e.Line.Seq) {
			t.Fatalf("line %d = %+v", e.Line.Seq, e.Line)
		}
	}
	// The server reports the status it sees at each poll: quick changes may arrive as the last one.
	var statuses []string
	for _, e := range events {
		if e.Type == slipway.LogEventStatus {
			statuses = append(statuses, string(e.Deployment.Status))
		}
	}
	if len(statuses) == 0 || statuses[len(statuses)-1] != "succeeded" || !slices.IsSorted(slices.Collect(func(yield func(int) bool) {
		for _, s := range statuses {
			if !yield(slices.Index([]string{"building", "deploying", "succeeded"}, s)) {
				return
			}
		}
	})) {
		t.Fatalf("statuses = %v", statuses)
	}
	last := events[len(events)-1]
	if last.Type != slipway.LogEventEnd || last.Status != slipway.DeploymentStatusSucceeded || last.LastSeq != 5 {
		t.Fatalf("last event = %+v", last)
	}
}

func TestFollowAfter(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := apiKeyClient(t)
	d := followDeployment(t, ctx, c, 6)
	moveTo(t, ctx, c, d.ID, "building", "deploying", "succeeded")
	var events []slipway.LogEvent
	for event, err := range c.DeploymentLogs.Follow(ctx, server.APIKey.ProjectID, d.ID, &slipway.FollowParams{After: 4}) {
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, event)
	}
	if got := seqsOf(events); !slices.Equal(got, []int{5, 6}) || events[len(events)-1].LastSeq != 6 {
		t.Fatalf("events = %+v", events)
	}
}

// cuttingTransport cuts the i-th log stream after cuts[i] `line` events: the body fails (a reset
// connection) or ends (a closed one) right after that event. It records each stream's Last-Event-ID.
type cuttingTransport struct {
	cuts        []cut
	mu          sync.Mutex
	lastEventID []string
	auth        []string
}

type cut struct {
	after int
	reset bool
}

func (c *cuttingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || req.Header.Get("Accept") != "text/event-stream" {
		return resp, err
	}
	c.mu.Lock()
	i := len(c.lastEventID)
	c.lastEventID = append(c.lastEventID, req.Header.Get("Last-Event-ID"))
	c.auth = append(c.auth, req.Header.Get("Authorization"))
	c.mu.Unlock()
	if i >= len(c.cuts) {
		return resp, nil
	}
	pr, pw := io.Pipe()
	go func(body io.ReadCloser, k cut) {
		defer body.Close()
		r := bufio.NewReader(body)
		var block strings.Builder
		lines := 0
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				pw.CloseWithError(err)
				return
			}
			block.WriteString(l)
			if l != "\n" {
				continue
			}
			text := block.String()
			block.Reset()
			if _, err := io.WriteString(pw, text); err != nil {
				return
			}
			if strings.Contains(text, "event: line\n") {
				lines++
				if lines == k.after {
					if k.reset {
						pw.CloseWithError(errors.New("connection reset by peer"))
					} else {
						pw.Close()
					}
					return
				}
			}
		}
	}(resp.Body, c.cuts[i])
	resp.Body = pr
	return resp, nil
}

func TestFollowResumesAfterDroppedConnections(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	transport := &cuttingTransport{cuts: []cut{{after: 4, reset: true}, {after: 3}}}
	c := apiKeyClient(t, slipway.WithHTTPClient(&http.Client{Transport: transport}))
	waits := slipway.RecordSleeps(c)
	d := followDeployment(t, ctx, c, 12)
	moveTo(t, ctx, c, d.ID, "building", "deploying", "succeeded")
	var events []slipway.LogEvent
	for event, err := range c.DeploymentLogs.Follow(ctx, server.APIKey.ProjectID, d.ID, nil) {
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, event)
	}
	if got := seqsOf(events); !slices.Equal(got, upTo(12)) {
		t.Fatalf("seqs = %v, want 1..12 once each", got)
	}
	if last := events[len(events)-1]; last.Type != slipway.LogEventEnd || last.LastSeq != 12 {
		t.Fatalf("last event = %+v", last)
	}
	if !slices.Equal(transport.lastEventID, []string{"", "4", "7"}) || len(*waits) != 2 {
		t.Fatalf("Last-Event-ID = %q, waits = %v", transport.lastEventID, *waits)
	}
	for _, a := range transport.auth {
		if a != "Bearer "+server.APIKey.Key {
			t.Fatalf("Authorization = %q", a)
		}
	}
}

type failingTransport struct{ attempts int }

func (f *failingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	f.attempts++
	return nil, errors.New("connection refused")
}

func TestFollowGivesUp(t *testing.T) {
	ctx := context.Background()
	transport := &failingTransport{}
	c := apiKeyClient(t, slipway.WithHTTPClient(&http.Client{Transport: transport}))
	slipway.RecordSleeps(c)
	var errs []error
	for _, err := range c.DeploymentLogs.Follow(ctx, server.APIKey.ProjectID, "dep_missing", &slipway.FollowParams{MaxReconnects: 3}) {
		errs = append(errs, err)
	}
	var apiErr *slipway.Error
	if len(errs) != 1 || !errors.As(errs[0], &apiErr) || apiErr.Code != slipway.CodeNetworkError || transport.attempts != 4 {
		t.Fatalf("errs = %v, attempts = %d", errs, transport.attempts)
	}
}

func TestFollowNotFoundIsNotRetried(t *testing.T) {
	transport := &cuttingTransport{}
	c := apiKeyClient(t, slipway.WithHTTPClient(&http.Client{Transport: transport}))
	var errs []error
	for _, err := range c.DeploymentLogs.Follow(context.Background(), server.APIKey.ProjectID, "dep_doesnotexist", nil) {
		errs = append(errs, err)
	}
	var apiErr *slipway.Error
	if len(errs) != 1 || !errors.As(errs[0], &apiErr) || apiErr.Status != http.StatusNotFound || len(transport.lastEventID) != 1 {
		t.Fatalf("errs = %v, requests = %d", errs, len(transport.lastEventID))
	}
}

func TestFollowCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := apiKeyClient(t)
	d := followDeployment(t, ctx, c, 2)
	var seqs []int
	var last error
	for event, err := range c.DeploymentLogs.Follow(ctx, server.APIKey.ProjectID, d.ID, nil) {
		if err != nil {
			last = err
			continue
		}
		seqs = append(seqs, event.Line.Seq)
		if len(seqs) == 2 {
			cancel()
		}
	}
	var apiErr *slipway.Error
	if !slices.Equal(seqs, []int{1, 2}) || !errors.As(last, &apiErr) || apiErr.Code != slipway.CodeRequestAborted {
		t.Fatalf("seqs = %v, err = %v", seqs, last)
	}
}
