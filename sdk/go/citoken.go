package slipway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// TokenExchangeGrant and JWTTokenType are the RFC 8693 values of a CI token exchange.
const (
	TokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
	JWTTokenType       = "urn:ietf:params:oauth:token-type:jwt"
)

// CodeCITokenUnavailable is the code of an error getting the CI's own token (no variables, an unreadable
// file, GitHub's token service refusing): nothing was sent to Slipway.
const CodeCITokenUnavailable = "ci_token_unavailable"

// CIToken says where a CI job's OpenID Connect token comes from and how to exchange it: exactly one of
// Token, TokenFile and GitHub.
type CIToken struct {
	// Token is the JWT itself (e.g. GitLab's id_tokens variable).
	Token string
	// TokenFile is a file holding it (surrounding whitespace ignored).
	TokenFile string
	// GitHub asks GitHub Actions' token service: GET $ACTIONS_ID_TOKEN_REQUEST_URL&audience=… with
	// Authorization: Bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN (the job needs permissions: id-token: write).
	GitHub bool
	// GitHubAudience is the audience asked of GitHub (default: the Slipway base URL).
	GitHubAudience string
	// Project (proj_…) is sent as audience: needed only when policies of several projects accept the token.
	Project string
	// Scope asks for fewer scopes than the trust policy's (space-separated).
	Scope string
	// HTTPClient is used for both requests (default http.DefaultClient).
	HTTPClient *http.Client
}

func ciUnavailable(status int, format string, args ...any) *Error {
	return &Error{Status: status, Code: CodeCITokenUnavailable, Message: fmt.Sprintf(format, args...)}
}

// ReadCIToken returns the CI's OIDC token from Token, TokenFile or GitHub (for audience baseURL unless
// GitHubAudience is set).
func ReadCIToken(ctx context.Context, baseURL string, src CIToken) (string, error) {
	given := 0
	for _, set := range []bool{src.Token != "", src.TokenFile != "", src.GitHub} {
		if set {
			given++
		}
	}
	if given != 1 {
		return "", errors.New("slipway: give exactly one of Token, TokenFile or GitHub")
	}
	var token string
	switch {
	case src.Token != "":
		token = src.Token
	case src.TokenFile != "":
		data, err := os.ReadFile(src.TokenFile)
		if err != nil {
			return "", ciUnavailable(0, "could not read the CI token file %s: %v", src.TokenFile, err)
		}
		token = string(data)
	default:
		var err error
		if token, err = githubToken(ctx, baseURL, src); err != nil {
			return "", err
		}
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return "", ciUnavailable(0, "the CI token is empty")
	}
	return token, nil
}

func githubToken(ctx context.Context, baseURL string, src CIToken) (string, error) {
	requestURL, requestToken := strings.TrimSpace(os.Getenv("ACTIONS_ID_TOKEN_REQUEST_URL")), strings.TrimSpace(os.Getenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN"))
	if requestURL == "" || requestToken == "" {
		return "", ciUnavailable(0, "ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN are not set: run in GitHub Actions with permissions: id-token: write")
	}
	u, err := url.Parse(requestURL)
	if err != nil {
		return "", ciUnavailable(0, "ACTIONS_ID_TOKEN_REQUEST_URL is not a URL: %v", err)
	}
	audience := src.GitHubAudience
	if audience == "" {
		audience = strings.TrimRight(baseURL, "/")
	}
	q := u.Query()
	q.Set("audience", audience)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+requestToken)
	req.Header.Set("Accept", "application/json")
	res, err := httpClient(src).Do(req)
	if err != nil {
		return "", ciUnavailable(0, "could not reach GitHub's token service: %v", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return "", ciUnavailable(res.StatusCode, "GitHub's token service answered %d", res.StatusCode)
	}
	var body struct {
		Value string `json:"value"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&body); err != nil || body.Value == "" {
		return "", ciUnavailable(res.StatusCode, "GitHub's token service answered without a token (no value)")
	}
	return body.Value, nil
}

func httpClient(src CIToken) *http.Client {
	if src.HTTPClient != nil {
		return src.HTTPClient
	}
	return http.DefaultClient
}

// ExchangeCIToken exchanges a CI job's OpenID Connect token at {baseURL}/oauth/token (RFC 8693, no client
// authentication) for an access token of the project whose trust policy accepts it. Use it with
// WithAccessToken(tok.AccessToken): a Bearer token (not DPoP-bound by this helper), the policy's
// max_ttl_seconds long (900 s by default), never refreshed. A refusal is an *Error with the server's OAuth
// code (invalid_grant, invalid_target, invalid_scope) and status.
func ExchangeCIToken(ctx context.Context, baseURL string, src CIToken) (*oauth2.Token, error) {
	base := strings.TrimRight(baseURL, "/")
	subject, err := ReadCIToken(ctx, base, src)
	if err != nil {
		return nil, err
	}
	form := url.Values{"grant_type": {TokenExchangeGrant}, "subject_token": {subject}, "subject_token_type": {JWTTokenType}}
	if src.Project != "" {
		form.Set("audience", src.Project)
	}
	if src.Scope != "" {
		form.Set("scope", src.Scope)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/oauth/token", strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	res, err := httpClient(src).Do(req)
	if err != nil {
		return nil, &Error{Code: CodeNetworkError, Message: "could not reach the authorization server", err: err}
	}
	defer res.Body.Close()
	var body struct {
		AccessToken      string `json:"access_token"`
		TokenType        string `json:"token_type"`
		ExpiresIn        int64  `json:"expires_in"`
		Scope            string `json:"scope"`
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
	}
	decodeErr := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&body)
	if res.StatusCode != http.StatusOK || decodeErr != nil || body.AccessToken == "" {
		code, message := body.Error, body.ErrorDescription
		if code == "" {
			code = fmt.Sprintf("http_%d", res.StatusCode)
		}
		if message == "" {
			message = fmt.Sprintf("the token endpoint answered %d", res.StatusCode)
		}
		return nil, &Error{Status: res.StatusCode, Code: code, Message: message, Header: res.Header}
	}
	tok := &oauth2.Token{AccessToken: body.AccessToken, TokenType: body.TokenType}
	if body.ExpiresIn > 0 {
		tok.Expiry = time.Now().Add(time.Duration(body.ExpiresIn) * time.Second)
	}
	return tok.WithExtra(map[string]any{"scope": body.Scope}), nil
}
