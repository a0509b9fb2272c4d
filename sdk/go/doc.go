// Package slipway is the official Go client for the Slipway API: projects, deployments,
// configurations, API keys, users, OAuth clients, events and webhooks.
//
//	client, err := slipway.NewClient("https://slipway.example.com", slipway.WithAPIKey(os.Getenv("SLIPWAY_API_KEY")))
//	deployment, err := client.Deployments.Create(ctx, projectID, slipway.CreateDeployment{Environment: "production", Branch: "main"})
//
// The resources are services of the Client (Projects, Deployments, Configurations, APIKeys, Users,
// OAuthClients, Events, Webhooks), one method per API operation; a child resource's methods take
// the parent's id first. Every call takes a context.Context and, last, per-call options
// (WithIdempotencyKey, WithRequestTimeout, WithHeader, WithRequestMaxRetries); Client.Do sends a
// request to any path. Lists come as one page (List) or as an iter.Seq2 over every page (All).
// Every failure is an *Error (use errors.As) with a stable Code: the API's (CodeNotFound, ...),
// "http_<status>" for a response that is not Slipway's JSON, CodeTimeout, CodeRequestAborted,
// CodeNetworkError. Requests that get 429 (after Retry-After), 503, a timeout or a network error
// are retried with backoff; a POST that takes an Idempotency-Key carries one (generated, or yours)
// that its retries reuse, so a retried POST never creates twice. Nullable fields are Nullable[T]:
// absent, Null[T]() or NotNull(v). OAuth: OAuthConfig, NewAuthorizationRequest (PKCE), Exchange and
// OAuthTokenSource; with a context from WithDPoP, the tokens are DPoP-bound (RFC 9449) to a key of
// the application's and every token request and API call carries a proof.
//
// The types (types.gen.go), the services (services.gen.go), APIVersion and the error codes
// (api.gen.go) are generated from the server's /openapi.json by internal/gen; run
// scripts/generate.sh BASE_URL to regenerate them.
package slipway
