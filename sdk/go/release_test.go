package slipway_test

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
	slipway "slipway.dev/sdk/go"
)

// The module is publishable as the tag sdk/go/v<Version>: a valid module zip (what the Go module
// proxy would serve for slipway.dev/sdk/go@v<Version>) builds from this directory, with go.mod,
// the license, the README and the generated code in it, and go.mod has no replace.
func TestTheModuleZipForTheReleaseTag(t *testing.T) {
	version := "v" + slipway.Version
	if !semver.IsValid(version) || semver.Major(version) != "v0" && semver.Major(version) != "v1" {
		t.Fatalf("Version %q: the tag sdk/go/%s needs a v0 or v1 semantic version (v2+ would need a /v2 module path)", slipway.Version, version)
	}
	data, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(mod.Replace) > 0 || len(mod.Exclude) > 0 {
		t.Fatal("go.mod has replace or exclude directives, which a published module does not honour")
	}
	m := module.Version{Path: mod.Module.Mod.Path, Version: version}
	if err := module.Check(m.Path, m.Version); err != nil {
		t.Fatal(err)
	}
	checked, err := modzip.CheckDir(".")
	if err != nil {
		t.Fatalf("%v (invalid: %v)", err, checked.Invalid)
	}
	var buf bytes.Buffer
	if err := modzip.CreateFromDir(&buf, m, "."); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, strings.TrimPrefix(f.Name, m.String()+"/"))
	}
	for _, want := range []string{"go.mod", "go.sum", "LICENSE", "README.md", "client.go", "types.gen.go", "services.gen.go", "api.gen.go"} {
		if !slices.Contains(names, want) {
			t.Errorf("the module zip lacks %s", want)
		}
	}
	t.Logf("module zip %s (tag sdk/go/%s, API %s): %d files, %d bytes", m, version, slipway.APIVersion, len(names), buf.Len())
	// CI keeps the zip as the release artifact when it names a directory for it.
	if dir := os.Getenv("SLIPWAY_SDK_ARTIFACTS"); dir != "" {
		out := filepath.Join(dir, "slipway-sdk-go-"+version+".zip")
		if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", out)
	}
}

// goIn runs the go command in dir, failing the test with its output.
func goIn(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// readmeSection returns the text of README.md under the heading "## title", up to the next "## ".
func readmeSection(t *testing.T, title string) string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "\n## "+title+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", title)
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	return section
}

// A newcomer's module in a fresh directory outside the repository uses this checkout exactly as
// README.md says (a replace directive, or a go.work), and runs the README's quick start against
// the live server.
func TestInstallFromACheckoutAndRunTheQuickStart(t *testing.T) {
	section := readmeSection(t, "Quick start")
	blocks := goBlock.FindAllStringSubmatch(section, -1)
	if len(blocks) != 1 || !strings.HasPrefix(blocks[0][1], "package main") {
		t.Fatalf("want one package main Go block in the README's quick start, found %d", len(blocks))
	}
	quickStart := blocks[0][1]
	checkout, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"SLIPWAY_URL=" + server.BaseURL, "SLIPWAY_API_KEY=" + server.APIKey.Key, "GOWORK=off", "GOFLAGS=-mod=mod"}
	want := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(server.Project.Name) + ` dep_[0-9a-z]{26} queued$`)

	// The README's commands, with /path/to/slipway/sdk/go being this checkout.
	for _, how := range []string{"replace", "go.work"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(quickStart), 0o600); err != nil {
				t.Fatal(err)
			}
			goIn(t, dir, env, "mod", "init", "example.com/quickstart")
			runEnv := env
			switch how {
			case "replace":
				goIn(t, dir, env, "mod", "edit", "-replace", "slipway.dev/sdk/go="+checkout)
				goIn(t, dir, env, "mod", "tidy")
			case "go.work":
				goIn(t, dir, nil, "work", "init", ".", checkout)
				runEnv = []string{"SLIPWAY_URL=" + server.BaseURL, "SLIPWAY_API_KEY=" + server.APIKey.Key, "GOWORK=" + filepath.Join(dir, "go.work")}
			}
			out := goIn(t, dir, runEnv, "run", ".")
			t.Logf("quick start (%s) printed: %s", how, strings.TrimSpace(out))
			if !want.MatchString(out) {
				t.Fatalf("the quick start printed %q, want a line like %q", out, server.Project.Name+" dep_… queued")
			}
		})
	}
}
