package slipway_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
	slipway "slipway.dev/sdk/go"
)

// dpopProof is a proof's header and claims, after its signature was checked with the key in its header.
type dpopProof struct {
	Header struct {
		Typ, Alg string
		JWK      map[string]string
	}
	Claims struct {
		JTI   string `json:"jti"`
		IAT   int64  `json:"iat"`
		HTM   string `json:"htm"`
		HTU   string `json:"htu"`
		ATH   string `json:"ath"`
		Nonce string `json:"nonce"`
	}
}

func parseProof(t *testing.T, jwt string) dpopProof {
	t.Helper()
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		t.Fatalf("proof %q is not a JWS", jwt)
	}
	var p dpopProof
	h, _ := base64.RawURLEncoding.DecodeString(parts[0])
	c, _ := base64.RawURLEncoding.DecodeString(parts[1])
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	if json.Unmarshal(h, &p.Header) != nil || json.Unmarshal(c, &p.Claims) != nil {
		t.Fatalf("proof %q: bad JSON", jwt)
	}
	input := []byte(parts[0] + "." + parts[1])
	coord := func(s string) *big.Int {
		b, _ := base64.RawURLEncoding.DecodeString(s)
		return new(big.Int).SetBytes(b)
	}
	switch p.Header.Alg {
	case "ES256":
		pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: coord(p.Header.JWK["x"]), Y: coord(p.Header.JWK["y"])}
		sum := sha256.Sum256(input)
		if len(sig) != 64 || !ecdsa.Verify(pub, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
			t.Fatal("the ES256 proof's signature does not verify with the key in its header")
		}
	case "EdDSA":
		x, _ := base64.RawURLEncoding.DecodeString(p.Header.JWK["x"])
		if !ed25519.Verify(ed25519.PublicKey(x), input, sig) {
			t.Fatal("the EdDSA proof's signature does not verify with the key in its header")
		}
	default:
		t.Fatalf("alg %q", p.Header.Alg)
	}
	if p.Header.Typ != "dpop+jwt" || p.Header.JWK["d"] != "" {
		t.Fatalf("header %+v", p.Header)
	}
	return p
}

func athOf(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// A local stand-in for Slipway: its token endpoint and /v1 both answer use_dpop_nonce to a proof
// without its current nonce (400 and 401, as the real ones), and record every proof.
type nonceStub struct {
	mu     sync.Mutex
	nonce  string
	proofs []dpopProof
	auths  []string
	paths  []string
}

func (s *nonceStub) handler(t *testing.T) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := parseProof(t, r.Header.Get("DPoP"))
		s.mu.Lock()
		s.proofs = append(s.proofs, p)
		s.auths = append(s.auths, r.Header.Get("Authorization"))
		s.paths = append(s.paths, r.Method+" "+r.URL.Path)
		ok := p.Claims.Nonce == s.nonce
		nonce := s.nonce
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if !ok {
			w.Header().Set("DPoP-Nonce", nonce)
			if r.URL.Path == "/oauth/token" {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, `{"error":"use_dpop_nonce","error_description":"use the nonce"}`)
				return
			}
			w.Header().Set("WWW-Authenticate", `DPoP realm="slipway", error="use_dpop_nonce"`)
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"code":"use_dpop_nonce","message":"use the nonce"}}`)
			return
		}
		if r.URL.Path == "/oauth/token" {
			body, _ := io.ReadAll(r.Body)
			if !strings.Contains(string(body), "code=the-code") {
				t.Errorf("token request body %q", body)
			}
			fmt.Fprint(w, `{"access_token":"at-1","token_type":"DPoP","expires_in":3600,"refresh_token":"rt-1"}`)
			return
		}
		if r.URL.Path == "/v1/projects/p1" && r.Header.Get("Authorization") == "DPoP at-1" && r.Method == http.MethodDelete {
			w.Header().Set("WWW-Authenticate", `DPoP error="invalid_dpop_proof"`)
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"code":"invalid_dpop_proof","message":"bad proof"}}`)
			return
		}
		fmt.Fprint(w, `{"id":"p1","name":"x"}`)
	})
}

func TestDPoPProofsCarryTheRightClaimsAndTheNonceIsRetriedOnceAndRemembered(t *testing.T) {
	stub := &nonceStub{nonce: "nonce-1"}
	srv := httptest.NewServer(stub.handler(t))
	defer srv.Close()

	ctx, err := slipway.WithDPoP(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := slipway.OAuthConfig(srv.URL+"/oauth", "cli_x", "", redirectURI, "read")
	req := slipway.AuthorizationRequest{State: "st", Verifier: "v"}
	tok, err := slipway.Exchange(ctx, cfg, req, redirectURI+"?code=the-code&state=st")
	if err != nil {
		t.Fatal(err)
	}
	if tok.Type() != "DPoP" || tok.AccessToken != "at-1" {
		t.Fatalf("token %+v", tok)
	}
	ts := slipway.OAuthTokenSource(ctx, cfg, tok)
	c, err := slipway.NewClient(srv.URL, slipway.WithTokenSource(ts))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Projects.Get(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	// The server moves on to a new nonce: the API call is answered use_dpop_nonce, retried once.
	stub.mu.Lock()
	stub.nonce = "nonce-2"
	stub.mu.Unlock()
	if err := c.Do(ctx, "PATCH", "/v1/projects/p1", url.Values{"q": {"x"}}, map[string]string{"name": "y"}, nil); err != nil {
		t.Fatal(err)
	}

	wantPaths := []string{
		"POST /oauth/token", "POST /oauth/token", // no nonce yet, then the token endpoint's
		"GET /v1/projects/p1", // the nonce is remembered for the server
		"PATCH /v1/projects/p1", "PATCH /v1/projects/p1",
	}
	wantNonces := []string{"", "nonce-1", "nonce-1", "nonce-1", "nonce-2"}
	if strings.Join(stub.paths, ",") != strings.Join(wantPaths, ",") {
		t.Fatalf("requests %v, want %v", stub.paths, wantPaths)
	}
	jtis := map[string]bool{}
	for i, p := range stub.proofs {
		method, path, _ := strings.Cut(wantPaths[i], " ")
		if p.Claims.HTM != method || p.Claims.HTU != srv.URL+path || p.Claims.Nonce != wantNonces[i] {
			t.Errorf("proof %d: htm %q htu %q nonce %q", i, p.Claims.HTM, p.Claims.HTU, p.Claims.Nonce)
		}
		if d := time.Since(time.Unix(p.Claims.IAT, 0)); d < -time.Minute || d > time.Minute {
			t.Errorf("proof %d: iat %d", i, p.Claims.IAT)
		}
		if jtis[p.Claims.JTI] || len(p.Claims.JTI) < 16 {
			t.Errorf("proof %d: jti %q is not fresh", i, p.Claims.JTI)
		}
		jtis[p.Claims.JTI] = true
		if p.Header.Alg != "ES256" || p.Header.JWK["kty"] != "EC" || p.Header.JWK["x"] != stub.proofs[0].Header.JWK["x"] {
			t.Errorf("proof %d: not the session's ES256 key: %+v", i, p.Header)
		}
		wantAth, wantAuth := "", ""
		if strings.HasPrefix(path, "/v1") {
			wantAth, wantAuth = athOf("at-1"), "DPoP at-1"
		}
		if p.Claims.ATH != wantAth || stub.auths[i] != wantAuth {
			t.Errorf("proof %d: ath %q, Authorization %q", i, p.Claims.ATH, stub.auths[i])
		}
	}

	// An invalid_dpop_proof refusal is the SDK's *Error with that code.
	err = c.Projects.Delete(ctx, "p1")
	var apiErr *slipway.Error
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnauthorized || apiErr.Code != slipway.CodeInvalidDpopProof {
		t.Fatalf("err = %#v", err)
	}
}

func TestDPoPWithYourOwnKey(t *testing.T) {
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	stub := &nonceStub{}
	srv := httptest.NewServer(stub.handler(t))
	defer srv.Close()
	ctx, err := slipway.WithDPoP(context.Background(), edKey)
	if err != nil {
		t.Fatal(err)
	}
	ts := slipway.OAuthTokenSource(ctx, oauthCfg(), &oauth2.Token{AccessToken: "at-2", Expiry: time.Now().Add(time.Hour)})
	if ts.DPoPKey() == nil || !edKey.Equal(ts.DPoPKey()) {
		t.Fatal("DPoPKey is not the key given")
	}
	c, _ := slipway.NewClient(srv.URL, slipway.WithTokenSource(ts))
	if _, err := c.Projects.Get(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	p := stub.proofs[0]
	if p.Header.Alg != "EdDSA" || p.Header.JWK["crv"] != "Ed25519" || p.Claims.ATH != athOf("at-2") || stub.auths[0] != "DPoP at-2" {
		t.Fatalf("proof %+v, Authorization %q", p, stub.auths[0])
	}
	rsaLike, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if _, err := slipway.WithDPoP(context.Background(), rsaLike); err == nil {
		t.Fatal("a P-384 key was accepted")
	}
}

// proofRecorder is the real transport, counting token requests with and without a DPoP proof.
type proofRecorder struct {
	mu                      sync.Mutex
	withProof, withoutProof int
}

func (r *proofRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.HasSuffix(req.URL.Path, "/token") {
		r.mu.Lock()
		if req.Header.Get("DPoP") != "" {
			r.withProof++
		} else {
			r.withoutProof++
		}
		r.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(req)
}

func TestDPoPLoginAgainstTheServer(t *testing.T) {
	rec := &proofRecorder{}
	ctx, err := slipway.WithDPoP(context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Transport: rec}), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := slipway.OAuthConfig(server.Issuer, server.PublicClient.ClientID, "", redirectURI, "read")
	req := slipway.NewAuthorizationRequest(cfg)
	tok, err := slipway.Exchange(ctx, cfg, req, logIn(t, req.URL, server.Viewer.Email, server.Viewer.Password))
	if err != nil {
		t.Fatal(err)
	}
	if tok.Type() != "DPoP" || tok.RefreshToken == "" {
		t.Fatalf("token_type %q, refresh token %v", tok.Type(), tok.RefreshToken != "")
	}
	// The access token (a JWT) carries the key's thumbprint.
	if parts := strings.Split(tok.AccessToken, "."); len(parts) == 3 {
		claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
		if !strings.Contains(string(claims), `"jkt"`) {
			t.Fatalf("the access token has no cnf.jkt: %s", claims)
		}
	}

	var stored []*oauth2.Token
	ts := slipway.OAuthTokenSource(ctx, cfg, tok)
	ts.OnToken = func(t *oauth2.Token) { stored = append(stored, t) }
	c, err := slipway.NewClient(server.BaseURL, slipway.WithTokenSource(ts))
	if err != nil {
		t.Fatal(err)
	}
	if me, err := c.Users.Me(ctx); err != nil || me.ID != server.Viewer.ID {
		t.Fatalf("me = %+v, %v", me, err)
	}

	// Many calls at once, each with its own proof (a jti is single-use on the server).
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			if _, err := c.Users.Me(ctx); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent call: %v", err)
	}

	// Refresh (as after the token's hour): a proof is sent, the refresh token is not rotated.
	expired := *tok
	expired.Expiry = time.Now().Add(-time.Hour)
	ts2 := slipway.OAuthTokenSource(ctx, cfg, &expired)
	ts2.OnToken = func(t *oauth2.Token) { stored = append(stored, t) }
	c2, _ := slipway.NewClient(server.BaseURL, slipway.WithTokenSource(ts2))
	if _, err := c2.Users.Me(ctx); err != nil {
		t.Fatal(err)
	}
	if len(stored) != 1 || stored[0].AccessToken == tok.AccessToken || stored[0].RefreshToken != tok.RefreshToken || stored[0].Type() != "DPoP" {
		t.Fatalf("after the refresh: %d tokens, new access token %v, same refresh token %v", len(stored),
			len(stored) == 1 && stored[0].AccessToken != tok.AccessToken, len(stored) == 1 && stored[0].RefreshToken == tok.RefreshToken)
	}
	if rec.withProof != 2 || rec.withoutProof != 0 {
		t.Fatalf("token requests: %d with a proof, %d without", rec.withProof, rec.withoutProof)
	}

	// A thief with a copy of the access token but not the key: sent as Bearer, refused.
	raw, _ := http.NewRequest(http.MethodGet, server.BaseURL+"/v1/users/me", nil)
	raw.Header.Set("Authorization", "Bearer "+stored[0].AccessToken)
	resp, err := http.DefaultClient.Do(raw)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a bound token as Bearer: %d %s", resp.StatusCode, body)
	}
	t.Logf("bound token as Bearer: %d %s %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)

	// … or with a proof of another key.
	otherCtx, _ := slipway.WithDPoP(context.Background(), nil)
	thief, _ := slipway.NewClient(server.BaseURL, slipway.WithTokenSource(slipway.OAuthTokenSource(otherCtx, cfg, &oauth2.Token{AccessToken: stored[0].AccessToken, TokenType: "DPoP", Expiry: time.Now().Add(time.Hour)})))
	_, err = thief.Users.Me(ctx)
	var apiErr *slipway.Error
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnauthorized || apiErr.Code != slipway.CodeInvalidDpopProof {
		t.Fatalf("another key's proof: %#v", err)
	}

	// The refresh token without the key (a plain refresh, no proof) is refused.
	_, err = cfg.TokenSource(context.Background(), &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	var retrieve *oauth2.RetrieveError
	if !errors.As(err, &retrieve) || retrieve.Response.StatusCode != http.StatusBadRequest {
		t.Fatalf("a plain refresh of a bound refresh token: %v", err)
	}
	t.Logf("plain refresh of a bound refresh token: %d %s", retrieve.Response.StatusCode, retrieve.Body)
	// … and so is one with another key's proof.
	_, err = cfg.TokenSource(otherCtx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	if !errors.As(err, &retrieve) || retrieve.Response.StatusCode != http.StatusBadRequest {
		t.Fatalf("a refresh with another key: %v", err)
	}

	// The token is still good with the key.
	if _, err := c2.Users.Me(ctx); err != nil {
		t.Fatal(err)
	}
}
