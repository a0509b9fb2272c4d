// Package slipway is the official Go client for the Slipway API: projects, deployments,
// configurations, API keys, users, OAuth clients and events.
//
//	client, err := slipway.NewClient("https://slipway.example.com", slipway.WithAPIKey(os.Getenv("SLIPWAY_API_KEY")))
//	deployment, err := client.Deployments.Create(ctx, projectID, slipway.CreateDeployment{Environment: "production", Branch: "main"})
//
// Every call takes a context.Context. Lists come as one page (List) or as an iter.Seq2 over every
// page (All). API errors are *Error values (use errors.As). Requests that get 429 (after
// Retry-After), 503 or a network error are retried with backoff; every POST carries a generated
// Idempotency-Key that its retries reuse, so a retried POST never creates twice.
//
// The types of the API's objects (Project, Deployment, ...) are generated from /openapi.json by
// oapi-codegen into types.gen.go; run scripts/generate.sh BASE_URL to regenerate them.
package slipway
