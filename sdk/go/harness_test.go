package slipway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	slipway "slipway.dev/sdk/go"
)

// harnessInfo is the JSON line of sdk/testserver/start.ts (see sdk/testserver/README.md).
type harnessInfo struct {
	BaseURL string `json:"base_url"`
	Issuer  string `json:"issuer"`
	Owner   struct {
		ID, Email, Password string
		AccountID           string `json:"account_id"`
	} `json:"owner"`
	Viewer struct {
		ID, Email, Password string
	} `json:"viewer"`
	PublicClient struct {
		ClientID    string `json:"client_id"`
		RedirectURI string `json:"redirect_uri"`
	} `json:"public_client"`
	ConfidentialClient struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	} `json:"confidential_client"`
	Project struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"project"`
	APIKey struct {
		ID        string `json:"id"`
		Key       string `json:"key"`
		ProjectID string `json:"project_id"`
	} `json:"api_key"`
}

type harness struct {
	harnessInfo
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
}

// command sends a harness command ("database stop", "database start") and returns its JSON answer.
func (h *harness) command(line string) (map[string]string, error) {
	if _, err := io.WriteString(h.stdin, line+"\n"); err != nil {
		return nil, err
	}
	answer, err := h.stdout.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	var out map[string]string
	return out, json.Unmarshal(answer, &out)
}

var server *harness

// startHarness runs the shared live-server harness from the repository root.
func startHarness(args ...string) (*harness, error) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return nil, err
	}
	node := os.Getenv("SLIPWAY_NODE")
	if node == "" {
		node = filepath.Join(root, "node_modules", ".bin", "node")
	}
	cmd := exec.Command(node, append([]string{"sdk/testserver/start.ts"}, args...)...)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	reader := bufio.NewReader(stdout)
	line, err := reader.ReadBytes('\n')
	if err != nil {
		_ = cmd.Wait()
		return nil, fmt.Errorf("the test server did not start: %w", err)
	}
	h := &harness{cmd: cmd, stdin: stdin, stdout: reader}
	if err := json.Unmarshal(line, &h.harnessInfo); err != nil {
		return nil, err
	}
	return h, nil
}

// stop closes the harness's stdin, which stops the server and database and removes its files.
func (h *harness) stop() {
	_ = h.stdin.Close()
	done := make(chan struct{})
	go func() { _ = h.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = h.cmd.Process.Kill()
	}
}

func TestMain(m *testing.M) {
	var err error
	if server, err = startHarness(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	server.stop()
	os.Exit(code)
}

// redirectURI: any port on 127.0.0.1 is accepted for the loopback redirect URI (RFC 8252 §7.3).
const redirectURI = "http://127.0.0.1:53682/callback"

var formAction = regexp.MustCompile(`<form method="post" action="([^"]+)"`)

// logIn drives the real login and consent pages like a browser (cookies, redirects, the sign-in
// form, then Allow) and returns the redirect to redirectURI that carries the code.
func logIn(t *testing.T, authURL, email, password string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	next := authURL
	for range 20 {
		resp, err := browser.Get(next)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if loc := resp.Header.Get("Location"); loc != "" {
			next = resolve(t, resp.Request.URL, loc)
			if strings.HasPrefix(next, redirectURI) {
				return next
			}
			continue
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %.300s", next, resp.StatusCode, page)
		}
		m := formAction.FindSubmatch(page)
		if m == nil {
			t.Fatalf("no form on %s: %.300s", next, page)
		}
		action := resolve(t, resp.Request.URL, string(m[1]))
		form := url.Values{"decision": {"allow"}}
		if strings.Contains(string(page), `name="password"`) {
			form = url.Values{"email": {email}, "password": {password}}
		} else if !strings.Contains(string(page), ">Allow</button>") {
			t.Fatalf("expected the consent page at %s", next)
		}
		posted, err := browser.PostForm(action, form)
		if err != nil {
			t.Fatal(err)
		}
		posted.Body.Close()
		loc := posted.Header.Get("Location")
		if loc == "" {
			t.Fatalf("%s: %d without a redirect", action, posted.StatusCode)
		}
		next = resolve(t, posted.Request.URL, loc)
		if strings.HasPrefix(next, redirectURI) {
			return next
		}
	}
	t.Fatal("the login did not reach the redirect URI within 20 steps")
	return ""
}

func resolve(t *testing.T, base *url.URL, ref string) string {
	t.Helper()
	u, err := base.Parse(ref)
	if err != nil {
		t.Fatal(err)
	}
	return u.String()
}

// ownerTokens logs the owner in with PKCE (read write admin) and returns the config and token.
func ownerTokens(t *testing.T, ctx context.Context) (*slipway.TokenSource, string) {
	t.Helper()
	cfg := slipway.OAuthConfig(server.Issuer, server.PublicClient.ClientID, "", redirectURI, "read", "write", "admin")
	req := slipway.NewAuthorizationRequest(cfg)
	callback := logIn(t, req.URL, server.Owner.Email, server.Owner.Password)
	tok, err := slipway.Exchange(ctx, cfg, req, callback)
	if err != nil {
		t.Fatal(err)
	}
	if tok.RefreshToken == "" {
		t.Fatal("no refresh token")
	}
	return slipway.OAuthTokenSource(ctx, cfg, tok), tok.RefreshToken
}

var (
	adminOnce sync.Once
	admin     *slipway.Client
	adminTS   *slipway.TokenSource
)

// adminClient is the owner, logged in through the real pages once for the whole run (the server
// limits sign-ins per email per minute): may do everything.
func adminClient(t *testing.T) *slipway.Client {
	t.Helper()
	adminOnce.Do(func() {
		ts, _ := ownerTokens(t, context.Background())
		adminTS = ts
		c, err := slipway.NewClient(server.BaseURL, slipway.WithTokenSource(ts))
		if err != nil {
			t.Fatal(err)
		}
		admin = c
	})
	if admin == nil {
		t.Fatal("the owner could not log in")
	}
	return admin
}

// adminClientWith is another client of the owner's (the same tokens), with more options.
func adminClientWith(t *testing.T, opts ...slipway.Option) *slipway.Client {
	t.Helper()
	adminClient(t)
	c, err := slipway.NewClient(server.BaseURL, append([]slipway.Option{slipway.WithTokenSource(adminTS)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func apiKeyClient(t *testing.T, opts ...slipway.Option) *slipway.Client {
	t.Helper()
	c, err := slipway.NewClient(server.BaseURL, append([]slipway.Option{slipway.WithAPIKey(server.APIKey.Key)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func unique() string { return fmt.Sprintf("%x", time.Now().UnixNano())[6:] }
