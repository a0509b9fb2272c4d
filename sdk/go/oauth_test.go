package slipway_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
	slipway "slipway.dev/sdk/go"
)

// recordingTransport is the real transport, remembering the form bodies sent to the token endpoint.
type recordingTransport struct {
	mu     sync.Mutex
	bodies []url.Values
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.HasSuffix(req.URL.Path, "/token") && req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(strings.NewReader(string(b)))
		form, _ := url.ParseQuery(string(b))
		r.mu.Lock()
		r.bodies = append(r.bodies, form)
		r.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(req)
}

func TestAuthorizationURLUsesPKCEAndState(t *testing.T) {
	cfg := slipway.OAuthConfig(server.Issuer, server.PublicClient.ClientID, "", redirectURI, "read", "write")
	req := slipway.NewAuthorizationRequest(cfg)
	u, err := url.Parse(req.URL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if got := u.Scheme + "://" + u.Host + u.Path; got != server.Issuer+"/authorize" {
		t.Fatalf("authorization endpoint %s", got)
	}
	sum := sha256.Sum256([]byte(req.Verifier))
	want := map[string]string{
		"response_type": "code", "client_id": server.PublicClient.ClientID, "redirect_uri": redirectURI, "scope": "read write",
		"state": req.State, "code_challenge_method": "S256", "code_challenge": base64.RawURLEncoding.EncodeToString(sum[:]),
	}
	for k, v := range want {
		if q.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, q.Get(k), v)
		}
	}
	if other := slipway.NewAuthorizationRequest(cfg); other.State == req.State || other.Verifier == req.Verifier {
		t.Error("state and verifier must be fresh for every request")
	}
}

func TestLoginWithPKCEAndCallTheAPIAsTheUser(t *testing.T) {
	ctx := context.Background()
	ts, _ := ownerTokens(t, ctx)
	c, err := slipway.NewClient(server.BaseURL, slipway.WithTokenSource(ts))
	if err != nil {
		t.Fatal(err)
	}
	me, err := c.Users.Me(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if me.ID != server.Owner.ID || string(me.Email) != server.Owner.Email {
		t.Fatalf("me = %+v", me)
	}
}

func TestExchangeRefusesAnotherState(t *testing.T) {
	cfg := slipway.OAuthConfig(server.Issuer, server.PublicClient.ClientID, "", redirectURI, "read")
	req := slipway.NewAuthorizationRequest(cfg)
	callback := logIn(t, req.URL, server.Owner.Email, server.Owner.Password)
	req.State = "not-the-state"
	_, err := slipway.Exchange(context.Background(), cfg, req, callback)
	var apiErr *slipway.Error
	if !errors.Is(err, slipway.ErrStateMismatch) || !errors.As(err, &apiErr) || apiErr.Code != slipway.CodeStateMismatch {
		t.Fatalf("err = %v", err)
	}
}

func loggedInWithRecorder(t *testing.T) (*slipway.TokenSource, *recordingTransport, *oauth2.Token) {
	t.Helper()
	rec := &recordingTransport{}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Transport: rec})
	cfg := slipway.OAuthConfig(server.Issuer, server.PublicClient.ClientID, "", redirectURI, "read", "write", "admin")
	req := slipway.NewAuthorizationRequest(cfg)
	tok, err := slipway.Exchange(ctx, cfg, req, logIn(t, req.URL, server.Owner.Email, server.Owner.Password))
	if err != nil {
		t.Fatal(err)
	}
	rec.bodies = nil
	return slipway.OAuthTokenSource(ctx, cfg, tok), rec, tok
}

func wantRefreshBody(t *testing.T, rec *recordingTransport, refreshToken string) {
	t.Helper()
	want := []url.Values{{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}, "client_id": {server.PublicClient.ClientID}}}
	if !reflect.DeepEqual(rec.bodies, want) {
		t.Fatalf("token requests = %v, want exactly %v", rec.bodies, want)
	}
}

func TestRefreshesAnExpiredAccessTokenWithExactlyTheSpecParameters(t *testing.T) {
	ctx := context.Background()
	_, rec, tok := loggedInWithRecorder(t)
	// As after the token's hour: a source holding the same tokens, expired.
	expired := *tok
	expired.Expiry = time.Now().Add(-time.Hour)
	var stored []*oauth2.Token
	ts := slipway.OAuthTokenSource(context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Transport: rec}), oauthCfg(), &expired)
	ts.OnToken = func(t *oauth2.Token) { stored = append(stored, t) }
	c, err := slipway.NewClient(server.BaseURL, slipway.WithTokenSource(ts))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Users.Me(ctx); err != nil {
		t.Fatal(err)
	}
	wantRefreshBody(t, rec, tok.RefreshToken)
	if len(stored) != 1 || stored[0].AccessToken == tok.AccessToken || stored[0].RefreshToken == tok.RefreshToken || stored[0].RefreshToken == "" {
		t.Fatalf("expected a new access token and a rotated refresh token, got %+v", stored)
	}
}

func oauthCfg() *oauth2.Config {
	return slipway.OAuthConfig(server.Issuer, server.PublicClient.ClientID, "", redirectURI, "read", "write", "admin")
}

func TestRefreshesOnceOn401InvalidToken(t *testing.T) {
	ctx := context.Background()
	_, rec, tok := loggedInWithRecorder(t)
	// A token the client believes valid but the API refuses (revoked, or expired early).
	refused := *tok
	refused.AccessToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"
	ts := slipway.OAuthTokenSource(context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Transport: rec}), oauthCfg(), &refused)
	c, err := slipway.NewClient(server.BaseURL, slipway.WithTokenSource(ts))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Projects.Get(ctx, server.Project.ID)
	if err != nil || p.ID != server.Project.ID {
		t.Fatalf("get = %v, %v", p, err)
	}
	wantRefreshBody(t, rec, tok.RefreshToken)
}

func TestAnAccessTokenTheAPIRefusesIsAnInvalidTokenError(t *testing.T) {
	c, err := slipway.NewClient(server.BaseURL, slipway.WithAccessToken("not-a-token"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Users.Me(context.Background())
	var apiErr *slipway.Error
	if !errors.As(err, &apiErr) || apiErr.Status != 401 || apiErr.Code != "invalid_token" || apiErr.RequestID == "" {
		t.Fatalf("err = %#v", err)
	}
}

// A refresh the token endpoint refuses ends the call with its OAuth error as an *Error.
func TestAFailedRefreshIsAnErrorWithTheTokenEndpointsCode(t *testing.T) {
	ctx := context.Background()
	expired := &oauth2.Token{AccessToken: "expired", RefreshToken: "not-a-refresh-token", Expiry: time.Now().Add(-time.Hour)}
	c, err := slipway.NewClient(server.BaseURL, slipway.WithTokenSource(slipway.OAuthTokenSource(ctx, oauthCfg(), expired)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Users.Me(ctx)
	var apiErr *slipway.Error
	var retrieve *oauth2.RetrieveError
	if !errors.As(err, &apiErr) || apiErr.Code != "invalid_grant" || apiErr.Status != http.StatusBadRequest || !errors.As(err, &retrieve) {
		t.Fatalf("err = %#v", err)
	}

	// Without a refresh token: invalid_token, and nothing is sent.
	noRefresh := &oauth2.Token{AccessToken: "expired", Expiry: time.Now().Add(-time.Hour)}
	c2, _ := slipway.NewClient(server.BaseURL, slipway.WithTokenSource(slipway.OAuthTokenSource(ctx, oauthCfg(), noRefresh)))
	if _, err := c2.Users.Me(ctx); !errors.As(err, &apiErr) || apiErr.Code != slipway.CodeInvalidToken || apiErr.Status != http.StatusUnauthorized {
		t.Fatalf("err = %#v", err)
	}
}

func TestAClientCredentialsTokenSourceWorks(t *testing.T) {
	ctx := context.Background()
	cc := clientcredentials.Config{
		ClientID:     server.ConfidentialClient.ClientID,
		ClientSecret: server.ConfidentialClient.ClientSecret,
		TokenURL:     server.Issuer + "/token",
		Scopes:       []string{"read"},
	}
	c, err := slipway.NewClient(server.BaseURL, slipway.WithTokenSource(cc.TokenSource(ctx)))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := c.Projects.Get(ctx, server.Project.ID); err != nil || p.ID != server.Project.ID {
		t.Fatalf("get = %v, %v", p, err)
	}
}
