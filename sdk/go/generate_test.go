package slipway_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
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
