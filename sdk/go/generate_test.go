package slipway_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// No drift: types.gen.go is exactly what the pinned oapi-codegen makes from the running server's
// /openapi.json with oapi-codegen.yaml.
func TestGeneratedTypesMatchTheServersOpenAPIDocument(t *testing.T) {
	resp, err := http.Get(server.BaseURL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("openapi.json: %d %v", resp.StatusCode, err)
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "openapi.json")
	if err := os.WriteFile(spec, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "types.gen.go")
	cmd := exec.Command("go", "tool", "oapi-codegen", "-config", "oapi-codegen.yaml", "-o", out, spec)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, b)
	}
	generated, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	checkedIn, err := os.ReadFile("types.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(generated, checkedIn) {
		t.Fatal("types.gen.go is stale: run scripts/generate.sh BASE_URL")
	}
}
