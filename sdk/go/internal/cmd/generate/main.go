// Command generate writes the SDK's generated files (see package internal/gen) from an OpenAPI
// document, a file or a running server's URL:
//
//	go run ./internal/cmd/generate -spec http://127.0.0.1:3000/openapi.json -out .
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"slipway.dev/sdk/go/internal/gen"
)

func main() {
	spec := flag.String("spec", "", "the OpenAPI document: a file, or an http(s) URL such as BASE_URL/openapi.json")
	out := flag.String("out", ".", "the directory to write the generated files to")
	flag.Parse()
	if *spec == "" {
		fmt.Fprintln(os.Stderr, "usage: generate -spec FILE|URL [-out DIR]")
		os.Exit(2)
	}
	doc, err := read(*spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	files, err := gen.Generate(doc)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, name := range gen.FileNames {
		path := filepath.Join(*out, name)
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("wrote", path)
	}
}

func read(spec string) ([]byte, error) {
	if !strings.HasPrefix(spec, "http://") && !strings.HasPrefix(spec, "https://") {
		return os.ReadFile(spec)
	}
	resp, err := http.Get(spec)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", spec, resp.Status)
	}
	return io.ReadAll(resp.Body)
}
