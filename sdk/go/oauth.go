package slipway

import (
	"context"
	"crypto"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"golang.org/x/oauth2"
)

// OAuthConfig returns the golang.org/x/oauth2 configuration of a Slipway OAuth client. issuer is
// {base_url}/oauth; its endpoints are {issuer}/authorize and {issuer}/token (TokenURL, also the one
// for client credentials). A public client has no secret (clientSecret ""). The client id goes in
// the form body, so a refresh sends exactly grant_type=refresh_token, refresh_token and client_id.
func OAuthConfig(issuer, clientID, clientSecret, redirectURL string, scopes ...string) *oauth2.Config {
	issuer = strings.TrimRight(issuer, "/")
	return &oauth2.Config{
		ClientID:     clientID,
		ClientSecret: clientSecret,
		RedirectURL:  redirectURL,
		Scopes:       scopes,
		Endpoint: oauth2.Endpoint{
			AuthURL:   issuer + "/authorize",
			TokenURL:  issuer + "/token",
			AuthStyle: oauth2.AuthStyleInParams,
		},
	}
}

// AuthorizationRequest is where to send the user, and what to keep until the callback.
type AuthorizationRequest struct {
	URL      string
	State    string
	Verifier string
}

// NewAuthorizationRequest builds an Authorization Code + PKCE (S256) URL with a fresh state and verifier.
func NewAuthorizationRequest(cfg *oauth2.Config, opts ...oauth2.AuthCodeOption) AuthorizationRequest {
	verifier := oauth2.GenerateVerifier()
	state := rand.Text()
	opts = append([]oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}, opts...)
	return AuthorizationRequest{URL: cfg.AuthCodeURL(state, opts...), State: state, Verifier: verifier}
}

// ErrStateMismatch is the cause of Exchange's *Error (Code CodeStateMismatch) when the callback's
// state is not the request's: a callback that is not the answer to this login (a forged or stale
// one). Check it with errors.Is(err, slipway.ErrStateMismatch); do not retry, start a new login.
var ErrStateMismatch = errors.New("slipway: the callback's state does not match the authorization request")

// Exchange checks the callback URL (state, error) and trades its code and the PKCE verifier for
// tokens (DPoP-bound ones, with a proof, when ctx comes from WithDPoP). Its errors are *Error: Code CodeStateMismatch (wrapping ErrStateMismatch), the
// authorization server's `error` from the callback (access_denied when the user refused, Status 0),
// or the token endpoint's (invalid_grant for a used or expired code, with its Status).
func Exchange(ctx context.Context, cfg *oauth2.Config, req AuthorizationRequest, callbackURL string) (*oauth2.Token, error) {
	u, err := url.Parse(callbackURL)
	if err != nil {
		return nil, &Error{Code: CodeInvalidRequest, Message: "the callback URL: " + err.Error(), err: err}
	}
	q := u.Query()
	if e := q.Get("error"); e != "" {
		return nil, &Error{Code: e, Message: fmt.Sprintf("authorization refused: %s", q.Get("error_description"))}
	}
	if q.Get("state") != req.State {
		return nil, &Error{Code: CodeStateMismatch, Message: ErrStateMismatch.Error(), err: ErrStateMismatch}
	}
	tok, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(req.Verifier))
	if err != nil {
		return nil, tokenError(err)
	}
	return tok, nil
}

// TokenSource is a refreshing oauth2.TokenSource for a user's tokens: it refreshes (through the
// oauth2.Config) when the access token has expired, and after the API refused it (Invalidate, which
// the Client calls on 401 invalid_token). Slipway rotates refresh tokens; OnToken, when set, gets
// every new token so the application can store it.
type TokenSource struct {
	ctx     context.Context
	cfg     *oauth2.Config
	mu      sync.Mutex
	tok     *oauth2.Token
	dpop    *dpopSession
	OnToken func(*oauth2.Token)
}

// OAuthTokenSource returns a TokenSource starting from tok (from Exchange, or stored earlier). ctx is
// used for refresh requests (oauth2.HTTPClient in it selects their HTTP client). With a ctx from
// WithDPoP, refreshes carry a DPoP proof and a Client sends this source's tokens as DPoP-bound
// (`Authorization: DPoP` and a proof), unless tok.TokenType says Bearer.
func OAuthTokenSource(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) *TokenSource {
	return &TokenSource{ctx: ctx, cfg: cfg, tok: tok, dpop: dpopFrom(ctx)}
}

// DPoPKey is the key this source's tokens are bound to (nil without WithDPoP). To use the tokens
// after a restart, store it (e.g. x509.MarshalPKCS8PrivateKey, kept as secret as the refresh token)
// and pass it to WithDPoP again.
func (s *TokenSource) DPoPKey() crypto.Signer {
	if s.dpop == nil {
		return nil
	}
	return s.dpop.key
}

func (s *TokenSource) dpopSession() *dpopSession { return s.dpop }

// Token returns a valid access token, refreshing first if needed. A failed refresh returns an
// *Error: the token endpoint's code and status (invalid_grant, 400, when the refresh token was
// revoked, expired or already used: the user must log in again), network_error or timeout; with no
// refresh token, invalid_token (401). A Client's call returns that *Error as is.
func (s *TokenSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok.Valid() {
		return s.tok, nil
	}
	if s.tok.RefreshToken == "" {
		return nil, &Error{Status: http.StatusUnauthorized, Code: CodeInvalidToken, Message: "the access token is no longer valid and there is no refresh token"}
	}
	// An oauth2 token source over the refresh token alone refreshes at once (x/oauth2 does the request).
	t, err := s.cfg.TokenSource(s.ctx, &oauth2.Token{RefreshToken: s.tok.RefreshToken}).Token()
	if err != nil {
		return nil, tokenError(err)
	}
	s.tok = t
	if s.OnToken != nil {
		s.OnToken(t)
	}
	return t, nil
}

// Invalidate marks accessToken as refused, so the next Token refreshes (unless another caller
// already replaced it: a rotated refresh token must not be used twice).
func (s *TokenSource) Invalidate(accessToken string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok.AccessToken == accessToken {
		s.tok = &oauth2.Token{RefreshToken: s.tok.RefreshToken}
	}
}
