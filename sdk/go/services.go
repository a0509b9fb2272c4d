package slipway

import (
	"context"
	"iter"
)

// ProjectsService: /v1/projects.
type ProjectsService struct{ c *Client }

// List returns one page of projects, newest first (params may be nil).
func (s *ProjectsService) List(ctx context.Context, params *ListProjectsParams) (*ProjectList, error) {
	var out ProjectList
	return done(&out, s.c.do(ctx, "GET", "/v1/projects", encodeQuery(params), nil, &out))
}

// All iterates over every project, page by page (params may be nil; Page is where it starts).
func (s *ProjectsService) All(ctx context.Context, params *ListProjectsParams) iter.Seq2[Project, error] {
	return all[Project](ctx, s.c, "/v1/projects", encodeQuery(params))
}

// Create creates a project.
func (s *ProjectsService) Create(ctx context.Context, params CreateProject) (*Project, error) {
	var out Project
	return done(&out, s.c.do(ctx, "POST", "/v1/projects", nil, params, &out))
}

// Get returns a project.
func (s *ProjectsService) Get(ctx context.Context, projectID string) (*Project, error) {
	var out Project
	return done(&out, s.c.do(ctx, "GET", "/v1/projects/"+pathEscape(projectID), nil, nil, &out))
}

// Update changes a project's name, deploy target or status.
func (s *ProjectsService) Update(ctx context.Context, projectID string, params UpdateProject) (*Project, error) {
	var out Project
	return done(&out, s.c.do(ctx, "PATCH", "/v1/projects/"+pathEscape(projectID), nil, params, &out))
}

// Delete deletes a project (admin scope).
func (s *ProjectsService) Delete(ctx context.Context, projectID string) error {
	return s.c.do(ctx, "DELETE", "/v1/projects/"+pathEscape(projectID), nil, nil, nil)
}

// DeploymentsService: /v1/projects/{project_id}/deployments.
type DeploymentsService struct{ c *Client }

func deploymentsPath(projectID string) string {
	return "/v1/projects/" + pathEscape(projectID) + "/deployments"
}

// List returns one page of a project's deployments (params may be nil).
func (s *DeploymentsService) List(ctx context.Context, projectID string, params *ListDeploymentsParams) (*DeploymentList, error) {
	var out DeploymentList
	return done(&out, s.c.do(ctx, "GET", deploymentsPath(projectID), encodeQuery(params), nil, &out))
}

// All iterates over every deployment of a project that matches params (may be nil).
func (s *DeploymentsService) All(ctx context.Context, projectID string, params *ListDeploymentsParams) iter.Seq2[Deployment, error] {
	return all[Deployment](ctx, s.c, deploymentsPath(projectID), encodeQuery(params))
}

// Create starts a deployment of a branch to an environment.
func (s *DeploymentsService) Create(ctx context.Context, projectID string, params CreateDeployment) (*Deployment, error) {
	var out Deployment
	return done(&out, s.c.do(ctx, "POST", deploymentsPath(projectID), nil, params, &out))
}

// Get returns a deployment.
func (s *DeploymentsService) Get(ctx context.Context, projectID, deploymentID string) (*Deployment, error) {
	var out Deployment
	return done(&out, s.c.do(ctx, "GET", deploymentsPath(projectID)+"/"+pathEscape(deploymentID), nil, nil, &out))
}

// Update moves a deployment to another status.
func (s *DeploymentsService) Update(ctx context.Context, projectID, deploymentID string, params UpdateDeployment) (*Deployment, error) {
	var out Deployment
	return done(&out, s.c.do(ctx, "PATCH", deploymentsPath(projectID)+"/"+pathEscape(deploymentID), nil, params, &out))
}

// ConfigurationsService: /v1/projects/{project_id}/configurations.
type ConfigurationsService struct{ c *Client }

func configurationsPath(projectID string) string {
	return "/v1/projects/" + pathEscape(projectID) + "/configurations"
}

// List returns one page of a project's configuration values (params may be nil).
func (s *ConfigurationsService) List(ctx context.Context, projectID string, params *ListConfigurationsParams) (*ConfigurationList, error) {
	var out ConfigurationList
	return done(&out, s.c.do(ctx, "GET", configurationsPath(projectID), encodeQuery(params), nil, &out))
}

// All iterates over every configuration value of a project that matches params (may be nil).
func (s *ConfigurationsService) All(ctx context.Context, projectID string, params *ListConfigurationsParams) iter.Seq2[Configuration, error] {
	return all[Configuration](ctx, s.c, configurationsPath(projectID), encodeQuery(params))
}

// Create sets a configuration value (a secret one is encrypted at rest).
func (s *ConfigurationsService) Create(ctx context.Context, projectID string, params CreateConfiguration) (*Configuration, error) {
	var out Configuration
	return done(&out, s.c.do(ctx, "POST", configurationsPath(projectID), nil, params, &out))
}

// Get returns a configuration value (params may be nil; Reveal shows a secret's value).
func (s *ConfigurationsService) Get(ctx context.Context, projectID, configurationID string, params *GetConfigurationParams) (*Configuration, error) {
	var out Configuration
	return done(&out, s.c.do(ctx, "GET", configurationsPath(projectID)+"/"+pathEscape(configurationID), encodeQuery(params), nil, &out))
}

// Update changes a configuration's value or makes it secret.
func (s *ConfigurationsService) Update(ctx context.Context, projectID, configurationID string, params UpdateConfiguration) (*Configuration, error) {
	var out Configuration
	return done(&out, s.c.do(ctx, "PATCH", configurationsPath(projectID)+"/"+pathEscape(configurationID), nil, params, &out))
}

// Delete deletes a configuration value.
func (s *ConfigurationsService) Delete(ctx context.Context, projectID, configurationID string) error {
	return s.c.do(ctx, "DELETE", configurationsPath(projectID)+"/"+pathEscape(configurationID), nil, nil, nil)
}

// APIKeysService: /v1/projects/{project_id}/api_keys (admin scope).
type APIKeysService struct{ c *Client }

func apiKeysPath(projectID string) string {
	return "/v1/projects/" + pathEscape(projectID) + "/api_keys"
}

// List returns one page of a project's API keys (params may be nil).
func (s *APIKeysService) List(ctx context.Context, projectID string, params *ListApiKeysParams) (*ApiKeyList, error) {
	var out ApiKeyList
	return done(&out, s.c.do(ctx, "GET", apiKeysPath(projectID), encodeQuery(params), nil, &out))
}

// All iterates over every API key of a project that matches params (may be nil).
func (s *APIKeysService) All(ctx context.Context, projectID string, params *ListApiKeysParams) iter.Seq2[ApiKey, error] {
	return all[ApiKey](ctx, s.c, apiKeysPath(projectID), encodeQuery(params))
}

// Create issues an API key; its secret (Key) is in this response only.
func (s *APIKeysService) Create(ctx context.Context, projectID string, params CreateApiKey) (*IssuedApiKey, error) {
	var out IssuedApiKey
	return done(&out, s.c.do(ctx, "POST", apiKeysPath(projectID), nil, params, &out))
}

// Get returns an API key (never its secret).
func (s *APIKeysService) Get(ctx context.Context, projectID, apiKeyID string) (*ApiKey, error) {
	var out ApiKey
	return done(&out, s.c.do(ctx, "GET", apiKeysPath(projectID)+"/"+pathEscape(apiKeyID), nil, nil, &out))
}

// Revoke stops an API key at once.
func (s *APIKeysService) Revoke(ctx context.Context, projectID, apiKeyID string) (*ApiKey, error) {
	var out ApiKey
	return done(&out, s.c.do(ctx, "DELETE", apiKeysPath(projectID)+"/"+pathEscape(apiKeyID), nil, nil, &out))
}

// Rotate issues a new secret for the key (same id); the old one works GracePeriodSeconds more.
func (s *APIKeysService) Rotate(ctx context.Context, projectID, apiKeyID string, params RotateApiKey) (*IssuedApiKey, error) {
	var out IssuedApiKey
	return done(&out, s.c.do(ctx, "POST", apiKeysPath(projectID)+"/"+pathEscape(apiKeyID)+"/rotate", nil, params, &out))
}

// UsersService: /v1/users.
type UsersService struct{ c *Client }

// List returns one page of the account's users (params may be nil).
func (s *UsersService) List(ctx context.Context, params *ListUsersParams) (*UserList, error) {
	var out UserList
	return done(&out, s.c.do(ctx, "GET", "/v1/users", encodeQuery(params), nil, &out))
}

// All iterates over every user of the account (params may be nil).
func (s *UsersService) All(ctx context.Context, params *ListUsersParams) iter.Seq2[User, error] {
	return all[User](ctx, s.c, "/v1/users", encodeQuery(params))
}

// Create adds a user; without a password the response carries a one-time setup link.
func (s *UsersService) Create(ctx context.Context, params CreateUser) (*CreatedUser, error) {
	var out CreatedUser
	return done(&out, s.c.do(ctx, "POST", "/v1/users", nil, params, &out))
}

// Me returns the user the credential acts for.
func (s *UsersService) Me(ctx context.Context) (*User, error) {
	var out User
	return done(&out, s.c.do(ctx, "GET", "/v1/users/me", nil, nil, &out))
}

// ChangePassword changes the password of the user the credential acts for.
func (s *UsersService) ChangePassword(ctx context.Context, params ChangePassword) error {
	return s.c.do(ctx, "POST", "/v1/users/me/password", nil, params, nil)
}

// Get returns a user.
func (s *UsersService) Get(ctx context.Context, userID string) (*User, error) {
	var out User
	return done(&out, s.c.do(ctx, "GET", "/v1/users/"+pathEscape(userID), nil, nil, &out))
}

// Update changes a user's name or role.
func (s *UsersService) Update(ctx context.Context, userID string, params UpdateUser) (*User, error) {
	var out User
	return done(&out, s.c.do(ctx, "PATCH", "/v1/users/"+pathEscape(userID), nil, params, &out))
}

// Delete removes a user.
func (s *UsersService) Delete(ctx context.Context, userID string) error {
	return s.c.do(ctx, "DELETE", "/v1/users/"+pathEscape(userID), nil, nil, nil)
}

// OAuthClientsService: /v1/oauth_clients (admin scope).
type OAuthClientsService struct{ c *Client }

// List returns one page of the account's OAuth clients (params may be nil).
func (s *OAuthClientsService) List(ctx context.Context, params *ListOAuthClientsParams) (*OAuthClientList, error) {
	var out OAuthClientList
	return done(&out, s.c.do(ctx, "GET", "/v1/oauth_clients", encodeQuery(params), nil, &out))
}

// All iterates over every OAuth client of the account (params may be nil).
func (s *OAuthClientsService) All(ctx context.Context, params *ListOAuthClientsParams) iter.Seq2[OAuthClient, error] {
	return all[OAuthClient](ctx, s.c, "/v1/oauth_clients", encodeQuery(params))
}

// Create registers a client; a confidential client's ClientSecret is in this response only.
func (s *OAuthClientsService) Create(ctx context.Context, params RegisterOAuthClient) (*RegisteredOAuthClient, error) {
	var out RegisteredOAuthClient
	return done(&out, s.c.do(ctx, "POST", "/v1/oauth_clients", nil, params, &out))
}

// Get returns a client.
func (s *OAuthClientsService) Get(ctx context.Context, clientID string) (*OAuthClient, error) {
	var out OAuthClient
	return done(&out, s.c.do(ctx, "GET", "/v1/oauth_clients/"+pathEscape(clientID), nil, nil, &out))
}

// Delete removes a client.
func (s *OAuthClientsService) Delete(ctx context.Context, clientID string) error {
	return s.c.do(ctx, "DELETE", "/v1/oauth_clients/"+pathEscape(clientID), nil, nil, nil)
}

// RotateSecret gives a confidential client a new secret; the old one stops working at once on the instance that rotated it, within 15 s on others.
func (s *OAuthClientsService) RotateSecret(ctx context.Context, clientID string) (*RegisteredOAuthClient, error) {
	var out RegisteredOAuthClient
	return done(&out, s.c.do(ctx, "POST", "/v1/oauth_clients/"+pathEscape(clientID)+"/rotate_secret", nil, nil, &out))
}

// EventsService: /v1/events (admin scope).
type EventsService struct{ c *Client }

// List returns one page of the account's events, newest first (params may be nil).
func (s *EventsService) List(ctx context.Context, params *ListEventsParams) (*EventList, error) {
	var out EventList
	return done(&out, s.c.do(ctx, "GET", "/v1/events", encodeQuery(params), nil, &out))
}

// All iterates over every event that matches params (may be nil).
func (s *EventsService) All(ctx context.Context, params *ListEventsParams) iter.Seq2[Event, error] {
	return all[Event](ctx, s.c, "/v1/events", encodeQuery(params))
}

// WebhooksService: /v1/webhooks, the account's webhook endpoints (admin scope, not with an API key).
// Verify what they receive with VerifyWebhookSignature or ConstructWebhookEvent.
type WebhooksService struct{ c *Client }

func webhookPath(webhookID string) string { return "/v1/webhooks/" + pathEscape(webhookID) }

// List returns one page of the account's webhooks, oldest first (params may be nil). Secrets are never listed.
func (s *WebhooksService) List(ctx context.Context, params *ListWebhooksParams) (*WebhookList, error) {
	var out WebhookList
	return done(&out, s.c.do(ctx, "GET", "/v1/webhooks", encodeQuery(params), nil, &out))
}

// All iterates over every webhook of the account (params may be nil; Page is where it starts).
func (s *WebhooksService) All(ctx context.Context, params *ListWebhooksParams) iter.Seq2[Webhook, error] {
	return all[Webhook](ctx, s.c, "/v1/webhooks", encodeQuery(params))
}

// Create registers an endpoint for the given event types; its signing Secret (whsec_…) is in this
// response only: keep it to verify deliveries.
func (s *WebhooksService) Create(ctx context.Context, params CreateWebhook) (*WebhookWithSecret, error) {
	var out WebhookWithSecret
	return done(&out, s.c.do(ctx, "POST", "/v1/webhooks", nil, params, &out))
}

// Get returns a webhook (never its secret).
func (s *WebhooksService) Get(ctx context.Context, webhookID string) (*Webhook, error) {
	var out Webhook
	return done(&out, s.c.do(ctx, "GET", webhookPath(webhookID), nil, nil, &out))
}

// Update changes a webhook's URL, events, description or status (enabled | disabled).
func (s *WebhooksService) Update(ctx context.Context, webhookID string, params UpdateWebhook) (*Webhook, error) {
	var out Webhook
	return done(&out, s.c.do(ctx, "PATCH", webhookPath(webhookID), nil, params, &out))
}

// Delete removes a webhook with its delivery log; pending deliveries are dropped.
func (s *WebhooksService) Delete(ctx context.Context, webhookID string) error {
	return s.c.do(ctx, "DELETE", webhookPath(webhookID), nil, nil, nil)
}

// RotateSecret issues a new signing secret (in this response only); the previous one keeps signing
// beside it for 24 h, so receivers can roll over.
func (s *WebhooksService) RotateSecret(ctx context.Context, webhookID string) (*WebhookWithSecret, error) {
	var out WebhookWithSecret
	return done(&out, s.c.do(ctx, "POST", webhookPath(webhookID)+"/rotate_secret", nil, nil, &out))
}

// Ping queues a webhook.ping event to the endpoint and returns the queued delivery.
func (s *WebhooksService) Ping(ctx context.Context, webhookID string) (*WebhookDelivery, error) {
	var out WebhookDelivery
	return done(&out, s.c.do(ctx, "POST", webhookPath(webhookID)+"/ping", nil, nil, &out))
}

// ListDeliveries returns one page of a webhook's delivery log, newest first (params may be nil).
func (s *WebhooksService) ListDeliveries(ctx context.Context, webhookID string, params *ListWebhookDeliveriesParams) (*WebhookDeliveryList, error) {
	var out WebhookDeliveryList
	return done(&out, s.c.do(ctx, "GET", webhookPath(webhookID)+"/deliveries", encodeQuery(params), nil, &out))
}

// AllDeliveries iterates over every delivery of a webhook, newest first (params may be nil).
func (s *WebhooksService) AllDeliveries(ctx context.Context, webhookID string, params *ListWebhookDeliveriesParams) iter.Seq2[WebhookDelivery, error] {
	return all[WebhookDelivery](ctx, s.c, webhookPath(webhookID)+"/deliveries", encodeQuery(params))
}

// Redeliver sends a delivery again (same Slipway-Delivery id and body, a new signature).
func (s *WebhooksService) Redeliver(ctx context.Context, webhookID, deliveryID string) (*WebhookDelivery, error) {
	var out WebhookDelivery
	return done(&out, s.c.do(ctx, "POST", webhookPath(webhookID)+"/deliveries/"+pathEscape(deliveryID)+"/redeliver", nil, nil, &out))
}

// done returns (nil, err) on error so callers never see a half-filled value.
func done[T any](out *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return out, nil
}
