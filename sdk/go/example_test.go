package slipway_test

// Examples for the package documentation (and the calls of the repository's README), compiled by
// go test. They have no Output comment, so they are built, not run: they talk to a Slipway elsewhere.
// README.md's own blocks are compiled by TestREADMEExamplesCompile.

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"

	"golang.org/x/oauth2"
	slipway "slipway.dev/sdk/go"
)

// Stand-ins for the reader's own code.
var (
	callbackURL string
	save        = func(*oauth2.Token) {}
	saveSecret  = func(string) {}
	secret      string
)

// CI with an API key creates a deployment.
func Example_deploymentWithAnAPIKey() {
	ctx := context.Background()
	client, err := slipway.NewClient("https://slipway.example.com", slipway.WithAPIKey(os.Getenv("SLIPWAY_API_KEY")))
	if err != nil {
		log.Fatal(err)
	}
	d, err := client.Deployments.Create(ctx, "proj_...", slipway.CreateDeployment{Environment: "production", Branch: "main"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.ID, d.Status) // dep_... queued
}

// An application logs a user in with Authorization Code + PKCE and calls the API as that user.
func Example_logInWithPKCE() {
	ctx := context.Background()
	cfg := slipway.OAuthConfig("https://slipway.example.com/oauth", "cli_...", "", "http://127.0.0.1:8765/callback", "read", "write")
	req := slipway.NewAuthorizationRequest(cfg) // S256 challenge (oauth2.GenerateVerifier), random state
	// Keep req.State and req.Verifier for this login, send the user to req.URL; on the redirect back:
	tok, err := slipway.Exchange(ctx, cfg, req, callbackURL) // checks state, sends the verifier
	if err != nil {
		log.Fatal(err)
	}
	ts := slipway.OAuthTokenSource(ctx, cfg, tok)
	ts.OnToken = func(t *oauth2.Token) { save(t) } // Slipway rotates refresh tokens: store the new one
	client, err := slipway.NewClient("https://slipway.example.com", slipway.WithTokenSource(ts))
	if err != nil {
		log.Fatal(err)
	}
	me, err := client.Users.Me(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(me.Email)
	for project, err := range client.Projects.All(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(project.Name)
	}
}

// An administrator registers a webhook endpoint, pings it and reads its delivery log.
func ExampleWebhooksService_Create() {
	ctx := context.Background()
	client, err := slipway.NewClient("https://slipway.example.com", slipway.WithAccessToken(os.Getenv("SLIPWAY_TOKEN")))
	if err != nil {
		log.Fatal(err)
	}
	hook, err := client.Webhooks.Create(ctx, slipway.CreateWebhook{
		URL:    "https://ci.example.com/hooks/slipway",
		Events: []slipway.CreateWebhookEvents{"deployment.status_changed"},
	})
	if err != nil {
		log.Fatal(err)
	}
	saveSecret(hook.Secret.MustGet())           // whsec_...
	_, err = client.Webhooks.Ping(ctx, hook.ID) // a webhook.ping delivery, signed like every other
	if err != nil {
		log.Fatal(err)
	}
	for delivery, err := range client.Webhooks.AllDeliveries(ctx, hook.ID, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(delivery.ID, delivery.Status, len(delivery.Attempts))
	}
}

// A receiver verifies each delivery's Slipway-Signature before trusting it.
func ExampleConstructWebhookEvent() {
	http.HandleFunc("/hooks/slipway", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		event, err := slipway.ConstructWebhookEvent(body, r.Header.Get(slipway.WebhookSignatureHeader), secret, 0)
		if err != nil { // errors.Is(err, slipway.ErrInvalidSignature)
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		fmt.Println(event.Type, event.Data)
	})
}
