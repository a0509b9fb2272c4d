package slipway

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// DPoP (RFC 9449): with WithDPoP, the tokens a user gets are bound to a key pair of the
// application's. Every token request (code exchange, refresh) and every API call made with a bound
// token carries a fresh proof signed with that key, so a copied access or refresh token is useless
// without the key.

type dpopContextKey struct{}

// dpopSession is one key pair and the latest DPoP-Nonce of each server it talked to.
type dpopSession struct {
	key    crypto.Signer
	alg    string
	jwk    map[string]string
	mu     sync.Mutex
	nonces map[string]string // origin (scheme://host) → latest DPoP-Nonce
}

// WithDPoP returns a copy of ctx with DPoP on, for Exchange and OAuthTokenSource (pass them this
// context): the code exchange and every refresh carry a DPoP proof, the tokens are bound to the key
// (token_type DPoP), and a Client given that TokenSource sends each API call as
// `Authorization: DPoP <token>` with a fresh proof. key is nil for a new ECDSA P-256 (ES256) key pair,
// made here and kept in memory only; or your own *ecdsa.PrivateKey (P-256) or ed25519.PrivateKey
// (or any crypto.Signer with such a public key) to keep a session across restarts: a bound refresh
// token is useless without its key. The oauth2.HTTPClient in ctx, if any, is still used (its transport
// under the proofs).
func WithDPoP(ctx context.Context, key crypto.Signer) (context.Context, error) {
	s, err := newDPoPSession(key)
	if err != nil {
		return nil, err
	}
	base := http.DefaultTransport
	hc := &http.Client{}
	if c, ok := ctx.Value(oauth2.HTTPClient).(*http.Client); ok && c != nil {
		*hc = *c
		if c.Transport != nil {
			base = c.Transport
		}
	}
	hc.Transport = &dpopTransport{session: s, base: base}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, hc)
	return context.WithValue(ctx, dpopContextKey{}, s), nil
}

func dpopFrom(ctx context.Context) *dpopSession {
	s, _ := ctx.Value(dpopContextKey{}).(*dpopSession)
	return s
}

func newDPoPSession(key crypto.Signer) (*dpopSession, error) {
	if key == nil {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("slipway: making a DPoP key: %w", err)
		}
		key = k
	}
	s := &dpopSession{key: key, nonces: map[string]string{}}
	switch pub := key.Public().(type) {
	case *ecdsa.PublicKey:
		if pub.Curve != elliptic.P256() {
			return nil, errors.New("slipway: a DPoP ECDSA key must be on P-256 (ES256)")
		}
		b, err := pub.Bytes() // 0x04 || X || Y
		if err != nil {
			return nil, fmt.Errorf("slipway: the DPoP key: %w", err)
		}
		s.alg = "ES256"
		s.jwk = map[string]string{"kty": "EC", "crv": "P-256", "x": b64(b[1:33]), "y": b64(b[33:])}
	case ed25519.PublicKey:
		s.alg = "EdDSA"
		s.jwk = map[string]string{"kty": "OKP", "crv": "Ed25519", "x": b64(pub)}
	default:
		return nil, fmt.Errorf("slipway: a DPoP key must be ECDSA P-256 or Ed25519, not %T", pub)
	}
	return s, nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// proof is a new DPoP proof JWT for method and target (query and fragment left out of htu), with ath
// when accessToken is not empty and the latest nonce of target's server.
func (s *dpopSession) proof(method string, target *urlParts, accessToken string) (string, error) {
	header, _ := json.Marshal(map[string]any{"typ": "dpop+jwt", "alg": s.alg, "jwk": s.jwk})
	claims := map[string]any{"jti": rand.Text(), "iat": time.Now().Unix(), "htm": method, "htu": target.htu}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = b64(sum[:])
	}
	if n := s.nonce(target.origin); n != "" {
		claims["nonce"] = n
	}
	payload, _ := json.Marshal(claims)
	input := b64(header) + "." + b64(payload)
	var sig []byte
	var err error
	if s.alg == "ES256" {
		digest := sha256.Sum256([]byte(input))
		var der []byte
		if der, err = s.key.Sign(rand.Reader, digest[:], crypto.SHA256); err == nil {
			sig, err = rawECDSASignature(der)
		}
	} else {
		sig, err = s.key.Sign(rand.Reader, []byte(input), crypto.Hash(0))
	}
	if err != nil {
		return "", fmt.Errorf("slipway: signing a DPoP proof: %w", err)
	}
	return input + "." + b64(sig), nil
}

// rawECDSASignature turns an ASN.1 ECDSA signature into JWS's r || s (32 bytes each for P-256).
func rawECDSASignature(der []byte) ([]byte, error) {
	var rs struct{ R, S *big.Int }
	if rest, err := asn1.Unmarshal(der, &rs); err != nil || len(rest) > 0 {
		return nil, errors.New("not an ASN.1 ECDSA signature")
	}
	out := make([]byte, 64)
	rs.R.FillBytes(out[:32])
	rs.S.FillBytes(out[32:])
	return out, nil
}

func (s *dpopSession) nonce(origin string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nonces[origin]
}

func (s *dpopSession) remember(origin string, resp *http.Response) {
	if n := resp.Header.Get("DPoP-Nonce"); n != "" {
		s.mu.Lock()
		s.nonces[origin] = n
		s.mu.Unlock()
	}
}

type urlParts struct{ origin, htu string }

func partsOf(req *http.Request) *urlParts {
	origin := strings.ToLower(req.URL.Scheme) + "://" + strings.ToLower(req.URL.Host)
	return &urlParts{origin: origin, htu: origin + req.URL.EscapedPath()}
}

// do sends req (which it does not change) with a fresh proof, as `Authorization: DPoP accessToken`
// when accessToken is not empty, and once more with the server's nonce when it answers
// use_dpop_nonce (401 from a resource, 400 from the token endpoint).
func (s *dpopSession) do(req *http.Request, accessToken string, send func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	target := partsOf(req)
	for attempt := 0; ; attempt++ {
		r := req.Clone(req.Context())
		if attempt > 0 && req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return nil, errors.New("slipway: cannot send the request again with the DPoP nonce: its body cannot be replayed")
			}
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
		proof, err := s.proof(req.Method, target, accessToken)
		if err != nil {
			return nil, err
		}
		r.Header.Set("DPoP", proof)
		if accessToken != "" {
			r.Header.Set("Authorization", "DPoP "+accessToken)
		}
		resp, err := send(r)
		if err != nil {
			return nil, err
		}
		s.remember(target.origin, resp)
		if attempt > 0 || resp.Header.Get("DPoP-Nonce") == "" || !asksForNonce(resp) {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// asksForNonce: a 401 with WWW-Authenticate error="use_dpop_nonce", or a 400 whose OAuth error is
// use_dpop_nonce (the body is read and put back).
func asksForNonce(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="use_dpop_nonce"`)
	case http.StatusBadRequest:
		b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(b))
		var e struct {
			Error string `json:"error"`
		}
		return err == nil && json.Unmarshal(b, &e) == nil && e.Error == CodeUseDpopNonce
	}
	return false
}

// dpopTransport adds a proof (without ath) to the requests of the OAuth flow (token endpoint).
type dpopTransport struct {
	session *dpopSession
	base    http.RoundTripper
}

func (t *dpopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.session.do(req, "", t.base.RoundTrip)
}
