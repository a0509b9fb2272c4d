package slipway_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	slipway "slipway.dev/sdk/go"
	"slipway.dev/sdk/go/internal/gen"
)

func openAPIDocument(t *testing.T) []byte {
	t.Helper()
	resp, err := http.Get(server.BaseURL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("openapi.json: %d %v", resp.StatusCode, err)
	}
	return doc
}

// No drift: every generated file (types, services, API version and error codes) is exactly what
// the generator makes from the running server's /openapi.json, regenerated into a temporary
// directory and compared byte for byte with the checked-in one.
func TestGeneratedCodeMatchesTheServersOpenAPIDocument(t *testing.T) {
	files, err := gen.Generate(openAPIDocument(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range gen.FileNames {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o600); err != nil {
			t.Fatal(err)
		}
		generated, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		checkedIn, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(generated, checkedIn) {
			t.Errorf("%s is stale: run scripts/generate.sh BASE_URL", name)
		}
	}
}

// The SDK states the API version it targets: the document's info.version, checked against the
// live server's; the release tag is sdk/go/v + Version.
func TestTheSDKTargetsTheServersAPIVersion(t *testing.T) {
	var doc struct {
		Info struct {
			Version string `json:"version"`
		} `json:"info"`
	}
	if err := json.Unmarshal(openAPIDocument(t), &doc); err != nil {
		t.Fatal(err)
	}
	t.Logf("slipway-go %s (tag sdk/go/v%s) targets API %s; the server's document is version %s", slipway.Version, slipway.Version, slipway.APIVersion, doc.Info.Version)
	if doc.Info.Version == "" || slipway.APIVersion != doc.Info.Version {
		t.Fatalf("APIVersion %q, the server's info.version %q", slipway.APIVersion, doc.Info.Version)
	}
}

// The tree decided for the three SDKs: one service per resource, these methods and no others, and
// every operation of the document wrapped by one of them.
func TestTheResourceTree(t *testing.T) {
	want := map[string][]string{
		"Projects":       {"List", "All", "Create", "Get", "Update", "Delete"},
		"Deployments":    {"List", "All", "Create", "Get", "Update", "Redeploy", "ListReviews", "AllReviews", "Review", "GetConfiguration"},
		"DeploymentLogs": {"Read", "Append", "Follow"},
		"Environments":   {"List", "All", "Create", "Get", "Update", "Delete", "Lock", "Unlock", "Rollback"},
		"TrustPolicies":  {"List", "All", "Create", "Get", "Delete"},
		"Configurations": {"List", "All", "Create", "Get", "Update", "Delete"},
		"APIKeys":        {"List", "All", "Create", "Get", "Revoke", "Rotate"},
		"Users":          {"List", "All", "Create", "Me", "ChangePassword", "Get", "Update", "Delete"},
		"Accounts":       {"List", "All"},
		"OAuthClients":   {"List", "All", "Create", "Get", "Delete", "RotateSecret"},
		"Events":         {"List", "All"},
		"Webhooks":       {"List", "All", "Create", "Get", "Update", "Delete", "RotateSecret", "Ping", "ListDeliveries", "AllDeliveries", "Redeliver"},
	}
	c := apiKeyClient(t)
	resources := reflect.ValueOf(c.Resources)
	if resources.NumField() != len(want) {
		t.Fatalf("%d services, want %d", resources.NumField(), len(want))
	}
	for i := range resources.NumField() {
		name := resources.Type().Field(i).Name
		methods, ok := want[name]
		if !ok {
			t.Errorf("unexpected service %s", name)
			continue
		}
		svc := resources.Field(i).Type()
		var got []string
		for m := range svc.NumMethod() {
			got = append(got, svc.Method(m).Name)
		}
		slices.Sort(got)
		methods = slices.Sorted(slices.Values(methods))
		if !slices.Equal(got, methods) {
			t.Errorf("%s has %v, want %v", name, got, methods)
		}
	}
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openAPIDocument(t), &doc); err != nil {
		t.Fatal(err)
	}
	services, err := os.ReadFile("services.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths {
		for method, op := range item {
			if !strings.HasPrefix(path, "/v1/") || op.OperationID == "" {
				continue
			}
			n++
			if !strings.Contains(string(services), "// Operation "+op.OperationID+".\n") {
				t.Errorf("%s %s (%s) has no method", method, path, op.OperationID)
			}
		}
	}
	t.Logf("%d operations, %d services", n, len(want))
}
