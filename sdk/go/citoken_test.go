package slipway_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	slipway "slipway.dev/sdk/go"
)

// The exchange's two requests as a CI job makes them: GitHub Actions' token service (Bearer request
// token, audience = the base URL) and the token endpoint's RFC 8693 form without client authentication;
// the server's refusal comes back as an *Error with its OAuth code. (The exchange itself against the real
// server and a CI issuer is the server's and the CLI's suites.)
func TestExchangeCIToken(t *testing.T) {
	var gotForm atomic.Value
	var exchanges atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/_apis/token":
			if r.Header.Get("Authorization") != "Bearer ghs_request" {
				w.WriteHeader(http.StatusForbidden)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"count":1,"value":"jwt-for-` + r.URL.Query().Get("audience") + `"}`))
		case "/oauth/token":
			exchanges.Add(1)
			_ = r.ParseForm()
			gotForm.Store(r.PostForm)
			w.Header().Set("Content-Type", "application/json")
			if r.PostForm.Get("subject_token") == "refused" {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"invalid_grant","error_description":"The subject token is not acceptable."}`))
				return
			}
			_, _ = w.Write([]byte(`{"access_token":"at","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","token_type":"Bearer","expires_in":900,"scope":"read write"}`))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	ctx := context.Background()

	tok, err := slipway.ExchangeCIToken(ctx, srv.URL+"/", slipway.CIToken{Token: " jwt \n", Project: "proj_1", Scope: "write"})
	if err != nil || tok.AccessToken != "at" || tok.Expiry.IsZero() {
		t.Fatalf("token %+v, err %v", tok, err)
	}
	form := gotForm.Load().(url.Values)
	want := map[string]string{"grant_type": slipway.TokenExchangeGrant, "subject_token": "jwt", "subject_token_type": slipway.JWTTokenType, "audience": "proj_1", "scope": "write"}
	for k, v := range want {
		if got := form[k]; len(got) != 1 || got[0] != v {
			t.Errorf("form %s = %v, want %q", k, got, v)
		}
	}
	if _, ok := form["client_id"]; ok || len(form) != len(want) {
		t.Errorf("form %v: only the exchange's parameters, no client authentication", form)
	}

	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("\nfrom-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := slipway.ExchangeCIToken(ctx, srv.URL, slipway.CIToken{TokenFile: file}); err != nil {
		t.Fatal(err)
	}
	if got := gotForm.Load().(url.Values)["subject_token"]; got[0] != "from-file" {
		t.Errorf("subject_token from the file = %v", got)
	}

	t.Setenv("ACTIONS_ID_TOKEN_REQUEST_URL", srv.URL+"/_apis/token?api-version=2.0")
	t.Setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ghs_request")
	if _, err := slipway.ExchangeCIToken(ctx, srv.URL, slipway.CIToken{GitHub: true}); err != nil {
		t.Fatal(err)
	}
	if got := gotForm.Load().(url.Values)["subject_token"]; got[0] != "jwt-for-"+srv.URL {
		t.Errorf("subject_token from GitHub = %v, want the one for the audience %s", got, srv.URL)
	}

	before := exchanges.Load()
	t.Setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ghs_wrong")
	var apiErr *slipway.Error
	if _, err := slipway.ExchangeCIToken(ctx, srv.URL, slipway.CIToken{GitHub: true}); !errors.As(err, &apiErr) || apiErr.Code != slipway.CodeCITokenUnavailable || apiErr.Status != 403 {
		t.Errorf("wrong request token: %v", err)
	}
	if exchanges.Load() != before {
		t.Error("nothing is exchanged without a CI token")
	}

	if _, err := slipway.ExchangeCIToken(ctx, srv.URL, slipway.CIToken{Token: "refused"}); !errors.As(err, &apiErr) || apiErr.Code != "invalid_grant" || apiErr.Status != 400 || apiErr.Message != "The subject token is not acceptable." {
		t.Errorf("refusal: %v", err)
	}
	if _, err := slipway.ExchangeCIToken(ctx, srv.URL, slipway.CIToken{Token: "a", GitHub: true}); err == nil {
		t.Error("two sources at once must be refused")
	}
}
