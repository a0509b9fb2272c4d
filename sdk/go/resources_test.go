package slipway_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	slipway "slipway.dev/sdk/go"
)

// collect drains an iterator, failing the test on an error.
func collect[T any](t *testing.T, seq func(func(T, error) bool)) []T {
	t.Helper()
	var out []T
	for item, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, item)
	}
	return out
}

func wantNotFound(t *testing.T, err error) {
	t.Helper()
	var apiErr *slipway.Error
	if !errors.As(err, &apiErr) || apiErr.Status != 404 || apiErr.Code != "not_found" {
		t.Fatalf("want 404 not_found, got %v", err)
	}
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func TestAPIKeyCreatesADeployment(t *testing.T) {
	ctx := context.Background()
	c := apiKeyClient(t)
	d := must[*slipway.Deployment](t)(c.Deployments.Create(ctx, server.APIKey.ProjectID, slipway.CreateDeployment{Environment: "production", Branch: "main", CommitSHA: slipway.NotNull("9fceb02d")}))
	if d.ProjectID != server.APIKey.ProjectID || d.Status != "queued" || d.CreatedBy.Type != "api_key" || d.CreatedBy.ID != server.APIKey.ID {
		t.Fatalf("deployment = %+v", d)
	}
	got := must[*slipway.Deployment](t)(c.Deployments.Get(ctx, d.ProjectID, d.ID))
	if got.ID != d.ID || got.Branch != "main" {
		t.Fatalf("get = %+v", got)
	}
}

func TestProjects(t *testing.T) {
	ctx := context.Background()
	c := adminClient(t)
	u := unique()
	var ids []string
	for i := range 5 {
		p := must[*slipway.Project](t)(c.Projects.Create(ctx, slipway.CreateProject{Name: fmt.Sprintf("go-%s-%d", u, i)}))
		ids = append(ids, p.ID)
	}
	first := must[*slipway.ProjectList](t)(c.Projects.List(ctx, &slipway.ListProjectsParams{PerPage: slipway.Ptr(2)}))
	if len(first.Data) != 2 || first.Pagination.Total < 5 {
		t.Fatalf("first page = %+v", first.Pagination)
	}
	all := collect(t, c.Projects.All(ctx, &slipway.ListProjectsParams{PerPage: slipway.Ptr(2)}))
	seen := map[string]bool{}
	for _, p := range all {
		seen[p.ID] = true
	}
	if len(all) != first.Pagination.Total || len(seen) != len(all) {
		t.Fatalf("All gave %d items (%d distinct), total %d", len(all), len(seen), first.Pagination.Total)
	}
	for _, id := range ids {
		if !seen[id] {
			t.Fatalf("All misses %s", id)
		}
	}
	// Stopping early fetches no more.
	n := 0
	for _, err := range c.Projects.All(ctx, &slipway.ListProjectsParams{PerPage: slipway.Ptr(1)}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 2 {
			break
		}
	}

	paused := slipway.UpdateProjectStatus("paused")
	p := must[*slipway.Project](t)(c.Projects.Update(ctx, ids[0], slipway.UpdateProject{Name: slipway.Ptr("go-" + u + "-renamed"), Status: &paused}))
	if p.Name != "go-"+u+"-renamed" || p.Status != "paused" {
		t.Fatalf("updated = %+v", p)
	}
	if err := c.Projects.Delete(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	_, err := c.Projects.Get(ctx, ids[0])
	wantNotFound(t, err)
}

func TestDeployments(t *testing.T) {
	ctx := context.Background()
	c := adminClient(t)
	project := must[*slipway.Project](t)(c.Projects.Create(ctx, slipway.CreateProject{Name: "go-dep-" + unique()}))
	var made []string
	for i := range 5 {
		env := "production"
		if i%2 == 1 {
			env = "staging"
		}
		d := must[*slipway.Deployment](t)(c.Deployments.Create(ctx, project.ID, slipway.CreateDeployment{Environment: env, Branch: fmt.Sprintf("feature/%d", i)}))
		made = append(made, d.ID)
	}
	page := must[*slipway.DeploymentList](t)(c.Deployments.List(ctx, project.ID, &slipway.ListDeploymentsParams{PerPage: slipway.Ptr(2)}))
	if page.Pagination.Total != 5 || len(page.Data) != 2 {
		t.Fatalf("page = %+v", page.Pagination)
	}
	var got []string
	for _, d := range collect(t, c.Deployments.All(ctx, project.ID, &slipway.ListDeploymentsParams{PerPage: slipway.Ptr(2)})) {
		got = append(got, d.ID)
	}
	slices.Sort(got)
	slices.Sort(made)
	if !slices.Equal(got, made) {
		t.Fatalf("All = %v, want %v", got, made)
	}
	staging := collect(t, c.Deployments.All(ctx, project.ID, &slipway.ListDeploymentsParams{Environment: slipway.Ptr("staging"), PerPage: slipway.Ptr(1)}))
	if len(staging) != 2 {
		t.Fatalf("staging = %d", len(staging))
	}
	d := must[*slipway.Deployment](t)(c.Deployments.Update(ctx, project.ID, made[0], slipway.UpdateDeployment{Status: "building"}))
	if d.Status != "building" || d.StartedAt.IsNull() {
		t.Fatalf("updated = %+v", d)
	}
}

func TestConfigurations(t *testing.T) {
	ctx := context.Background()
	c := adminClient(t)
	project := must[*slipway.Project](t)(c.Projects.Create(ctx, slipway.CreateProject{Name: "go-cfg-" + unique()}))
	var ids []string
	for i := range 3 {
		cfg := must[*slipway.Configuration](t)(c.Configurations.Create(ctx, project.ID, slipway.CreateConfiguration{Environment: "production", Key: fmt.Sprintf("KEY_%d", i), Value: fmt.Sprint(i)}))
		ids = append(ids, cfg.ID)
	}
	secret := must[*slipway.Configuration](t)(c.Configurations.Create(ctx, project.ID, slipway.CreateConfiguration{Environment: "production", Key: "DATABASE_URL", Value: "postgres://db", Secret: slipway.Ptr(true)}))
	if !secret.Secret || !secret.Value.IsNull() {
		t.Fatalf("secret = %+v", secret)
	}
	revealed := must[*slipway.Configuration](t)(c.Configurations.Get(ctx, project.ID, secret.ID, &slipway.GetConfigurationParams{Reveal: slipway.Ptr(true)}))
	if revealed.Value.IsNull() || revealed.Value.MustGet() != "postgres://db" {
		t.Fatalf("revealed = %+v", revealed)
	}
	if all := collect(t, c.Configurations.All(ctx, project.ID, &slipway.ListConfigurationsParams{PerPage: slipway.Ptr(3)})); len(all) != 4 {
		t.Fatalf("All = %d", len(all))
	}
	updated := must[*slipway.Configuration](t)(c.Configurations.Update(ctx, project.ID, ids[0], slipway.UpdateConfiguration{Value: slipway.Ptr("new")}))
	if updated.Value.MustGet() != "new" {
		t.Fatalf("updated = %+v", updated)
	}
	if err := c.Configurations.Delete(ctx, project.ID, ids[0]); err != nil {
		t.Fatal(err)
	}
	_, err := c.Configurations.Get(ctx, project.ID, ids[0], nil)
	wantNotFound(t, err)
}

func TestAPIKeys(t *testing.T) {
	ctx := context.Background()
	c := adminClient(t)
	project := must[*slipway.Project](t)(c.Projects.Create(ctx, slipway.CreateProject{Name: "go-keys-" + unique()}))
	var issued []*slipway.IssuedAPIKey
	for i := range 3 {
		k := must[*slipway.IssuedAPIKey](t)(c.APIKeys.Create(ctx, project.ID, slipway.CreateAPIKey{Name: fmt.Sprintf("ci %d", i), Scopes: []slipway.CreateAPIKeyScopes{"read"}}))
		issued = append(issued, k)
	}
	reader, err := slipway.NewClient(server.BaseURL, slipway.WithAPIKey(issued[0].Key.MustGet()))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := reader.Projects.Get(ctx, project.ID); err != nil || p.ID != project.ID {
		t.Fatalf("the new key: %v", err)
	}
	if all := collect(t, c.APIKeys.All(ctx, project.ID, &slipway.ListAPIKeysParams{PerPage: slipway.Ptr(2)})); len(all) != 3 {
		t.Fatalf("All = %d", len(all))
	}
	if k := must[*slipway.APIKey](t)(c.APIKeys.Get(ctx, project.ID, issued[0].ID)); k.Name != "ci 0" {
		t.Fatalf("get = %+v", k)
	}
	rotated := must[*slipway.IssuedAPIKey](t)(c.APIKeys.Rotate(ctx, project.ID, issued[1].ID, slipway.RotateAPIKey{GracePeriodSeconds: slipway.Ptr(0)}))
	if rotated.ID != issued[1].ID || rotated.Key.IsNull() || rotated.Key.MustGet() == issued[1].Key.MustGet() {
		t.Fatalf("rotated = %+v", rotated)
	}
	revoked := must[*slipway.APIKey](t)(c.APIKeys.Revoke(ctx, project.ID, issued[2].ID))
	if revoked.Status != "revoked" {
		t.Fatalf("revoked = %+v", revoked)
	}
}

func TestUsers(t *testing.T) {
	ctx := context.Background()
	c := adminClient(t)
	u := unique()
	var ids []string
	for i := range 3 {
		created := must[*slipway.CreatedUser](t)(c.Users.Create(ctx, slipway.CreateUser{Email: fmt.Sprintf("go-%s-%d@example.com", u, i), Name: "User", Role: "viewer", Password: slipway.Ptr("correct horse battery staple")}))
		ids = append(ids, created.ID)
	}
	first := must[*slipway.UserList](t)(c.Users.List(ctx, &slipway.ListUsersParams{PerPage: slipway.Ptr(2)}))
	all := collect(t, c.Users.All(ctx, &slipway.ListUsersParams{PerPage: slipway.Ptr(2)}))
	if len(all) != first.Pagination.Total || len(all) < 5 {
		t.Fatalf("All = %d, total %d", len(all), first.Pagination.Total)
	}
	developer := slipway.UpdateUserRole("developer")
	updated := must[*slipway.User](t)(c.Users.Update(ctx, ids[0], slipway.UpdateUser{Name: slipway.Ptr("Renamed"), Role: &developer}))
	if updated.Name != "Renamed" || updated.Role != "developer" {
		t.Fatalf("updated = %+v", updated)
	}
	if err := c.Users.Delete(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	_, err := c.Users.Get(ctx, ids[0])
	wantNotFound(t, err)
}

func TestAccounts(t *testing.T) {
	c := adminClient(t)
	page := must[*slipway.MembershipList](t)(c.Accounts.List(context.Background(), nil))
	owner := server.Owner
	if len(page.Data) != 1 || page.Data[0].AccountID != owner.AccountID || page.Data[0].UserID != owner.ID || page.Data[0].Role != "owner" || !page.Data[0].Current {
		t.Fatalf("accounts = %+v", page.Data)
	}
}

func TestOAuthClients(t *testing.T) {
	ctx := context.Background()
	c := adminClient(t)
	u := unique()
	var ids []string
	for i := range 2 {
		cl := must[*slipway.RegisteredOAuthClient](t)(c.OAuthClients.Create(ctx, slipway.RegisterOAuthClient{ClientName: fmt.Sprintf("go-%s-%d", u, i), RedirectURIs: &[]string{"https://app.example.com/callback"}}))
		ids = append(ids, cl.ClientID)
	}
	method := slipway.RegisterOAuthClientTokenEndpointAuthMethod("client_secret_basic")
	conf := must[*slipway.RegisteredOAuthClient](t)(c.OAuthClients.Create(ctx, slipway.RegisterOAuthClient{ClientName: "go-" + u + "-svc", TokenEndpointAuthMethod: &method, GrantTypes: &[]slipway.RegisterOAuthClientGrantTypes{"client_credentials"}}))
	if conf.ClientSecret.IsNull() || conf.ClientSecret.MustGet() == "" {
		t.Fatal("no client secret")
	}
	first := must[*slipway.OAuthClientList](t)(c.OAuthClients.List(ctx, &slipway.ListOAuthClientsParams{PerPage: slipway.Ptr(2)}))
	if all := collect(t, c.OAuthClients.All(ctx, &slipway.ListOAuthClientsParams{PerPage: slipway.Ptr(2)})); len(all) != first.Pagination.Total || len(all) < 5 {
		t.Fatalf("All = %d, total %d", len(all), first.Pagination.Total)
	}
	if got := must[*slipway.OAuthClient](t)(c.OAuthClients.Get(ctx, ids[0])); got.ClientName != fmt.Sprintf("go-%s-0", u) {
		t.Fatalf("get = %+v", got)
	}
	rotated := must[*slipway.RegisteredOAuthClient](t)(c.OAuthClients.RotateSecret(ctx, conf.ClientID))
	if rotated.ClientSecret.IsNull() || rotated.ClientSecret.MustGet() == conf.ClientSecret.MustGet() {
		t.Fatal("the secret did not change")
	}
	if err := c.OAuthClients.Delete(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	_, err := c.OAuthClients.Get(ctx, ids[0])
	wantNotFound(t, err)
}

func TestEvents(t *testing.T) {
	ctx := context.Background()
	c := adminClient(t)
	project := must[*slipway.Project](t)(c.Projects.Create(ctx, slipway.CreateProject{Name: "go-evt-" + unique()}))
	for i := range 3 {
		must[*slipway.Deployment](t)(c.Deployments.Create(ctx, project.ID, slipway.CreateDeployment{Environment: "production", Branch: fmt.Sprintf("b%d", i)}))
	}
	events := collect(t, c.Events.All(ctx, &slipway.ListEventsParams{ProjectID: &project.ID, PerPage: slipway.Ptr(2)}))
	created := 0
	for _, e := range events {
		if e.ProjectID.IsNull() || e.ProjectID.MustGet() != project.ID {
			t.Fatalf("event of another project: %+v", e)
		}
		if e.Type == "deployment.created" {
			created++
		}
	}
	if created != 3 || len(events) < 4 {
		t.Fatalf("events = %d, deployment.created = %d", len(events), created)
	}
	page := must[*slipway.EventList](t)(c.Events.List(ctx, &slipway.ListEventsParams{ProjectID: &project.ID, PerPage: slipway.Ptr(2)}))
	if page.Pagination.Total != len(events) {
		t.Fatalf("total %d, iterated %d", page.Pagination.Total, len(events))
	}
}
