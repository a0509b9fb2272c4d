package slipway_test

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

var docsGoExample = regexp.MustCompile(`(?s)<pre class="example" data-example="sdk" data-language="go" data-task="([a-z]+)"><code>(.*?)</code></pre>`)

// The Go examples of the live server's /docs (its Client libraries section) compile against this
// package: each becomes a function of a throwaway package inside this module, checked by go vet.
func TestDocsExamplesCompile(t *testing.T) {
	resp, err := http.Get(server.BaseURL + "/docs")
	if err != nil {
		t.Fatal(err)
	}
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	matches := docsGoExample.FindAllStringSubmatch(string(page), -1)
	if len(matches) != 2 {
		t.Fatalf("want the 2 Go examples on /docs, found %d", len(matches))
	}
	var src strings.Builder
	// The names the examples use without defining them (the reader's own), and every import they may need.
	src.WriteString("package docsexamples\n\nimport (\n\t\"context\"\n\t\"fmt\"\n\t\"log\"\n\t\"os\"\n\n\tslipway \"slipway.dev/sdk/go\"\n)\n\n")
	src.WriteString("var (\n\t_ = fmt.Sprint\n\t_ = log.Fatal\n\t_ = os.Getenv\n\t_ = slipway.Ptr[int]\n)\n\n")
	for i, m := range matches {
		fmt.Fprintf(&src, "// %s\nfunc example%d(ctx context.Context, callbackURL string) {\n\t_ = callbackURL\n%s\n}\n\n", m[1], i, indent(html.UnescapeString(m[2])))
	}
	dir, err := os.MkdirTemp(".", "_docs_examples_")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(dir+"/examples.go", []byte(src.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "vet", "./"+dir).CombinedOutput()
	if err != nil {
		t.Fatalf("the /docs Go examples do not compile: %v\n%s\n%s", err, out, src.String())
	}
}

func indent(code string) string {
	return "\t" + strings.ReplaceAll(code, "\n", "\n\t")
}
