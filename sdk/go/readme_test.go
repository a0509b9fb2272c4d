package slipway_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Every Go block of README.md compiles against this package (the quick start, a whole program, is
// run by TestInstallFromACheckoutAndRunTheQuickStart): a block that declares a function stays as it
// is, any other becomes the body of a function of a throwaway package inside this module, with
// stand-ins for the reader's own names; go vet checks the package.
func TestREADMEExamplesCompile(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := goBlock.FindAllStringSubmatch(string(readme), -1)
	var src strings.Builder
	src.WriteString(`package readmeexamples

import (
	"context"
	"crypto/ecdsa"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
	slipway "slipway.dev/sdk/go"
)

// The reader's own names.
var (
	ctx         = context.Background()
	client      *slipway.Client
	cfg         *oauth2.Config
	projectID   string
	jobID       string
	callbackURL string
	ts          *slipway.TokenSource
	secret      string
	saved       struct {
		AccessToken, RefreshToken string
		Expiry                    time.Time
	}
	save       = func(*oauth2.Token) {}
	saveSecret = func(string) {}
)

var (
	_ = errors.Is
	_ = x509.MarshalPKCS8PrivateKey
	_ = ecdsa.GenerateKey
	_ = fmt.Sprint
	_ = io.EOF
	_ = log.Fatal
	_ = http.MethodGet
	_ = url.Values{}
	_ = os.Getenv
	_ = clientcredentials.Config{}
)
`)
	compiled := 0
	for i, b := range blocks {
		code := b[1]
		switch {
		case strings.HasPrefix(code, "package "):
			continue
		case strings.HasPrefix(code, "func "):
			fmt.Fprintf(&src, "\n// README block %d\n%s", i, code)
		default:
			fmt.Fprintf(&src, "\n// README block %d\nfunc readme%d() {\n\t%s}\n", i, i, strings.ReplaceAll(strings.TrimRight(code, "\n"), "\n", "\n\t")+"\n")
		}
		compiled++
	}
	if compiled < 10 {
		t.Fatalf("found %d Go blocks to compile in README.md, want at least 10", compiled)
	}
	dir, err := os.MkdirTemp(".", "_readme_examples_")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(dir+"/examples.go", []byte(src.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("go", "vet", "./"+dir).CombinedOutput(); err != nil {
		t.Fatalf("README.md's Go blocks do not compile: %v\n%s\n%s", err, out, src.String())
	}
	t.Logf("compiled %d Go blocks of README.md", compiled)
}
