// Package gen generates the Go SDK's code from Slipway's OpenAPI document (the server's
// /openapi.json): the types (types.gen.go, by oapi-codegen used as a library), the services
// (services.gen.go: one service per resource, one method per operation, like stripe-node's
// generated resources) and the API's version and error codes (api.gen.go). Hand-written code is
// the ergonomic layer only: the HTTP client, retries, paging, OAuth, webhooks and errors.
//
// Run it with scripts/generate.sh BASE_URL (or go run ./internal/cmd/generate -spec FILE|URL);
// TestGeneratedCodeMatchesTheServersOpenAPIDocument fails when a checked-in file differs from
// what Generate makes of the live server's document.
package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oapi-codegen/oapi-codegen/v2/pkg/codegen"
)

// Files are the generated files, by name, as they are checked in next to this module's go.mod.
type Files map[string][]byte

// FileNames are the files Generate makes.
var FileNames = []string{"types.gen.go", "services.gen.go", "api.gen.go"}

// Config is what oapi-codegen is told (formerly oapi-codegen.yaml).
func Config() codegen.Configuration {
	return codegen.Configuration{
		PackageName: "slipway",
		Generate:    codegen.GenerateOptions{Models: true},
		OutputOptions: codegen.OutputOptions{
			// The error body is the hand-written *Error (errors.go), usable with errors.As.
			ExcludeSchemas: []string{"Error"},
			// Keep every component schema: WebhookPayload is referenced only from the document's
			// `webhooks` (what Slipway POSTs to receivers), which pruning does not count.
			SkipPrune: true,
			// A nullable field is a nullable.Nullable[T] (slipway.Nullable[T]): absent, null or a value,
			// so an update can set a field to null.
			NullableType: true,
			// Go initialisms everywhere: ID, URL, APIKey, URIs, SHA.
			NameNormalizer:        string(codegen.NameNormalizerFunctionToCamelCaseWithInitialisms),
			AdditionalInitialisms: []string{"URIs", "SHA"},
		},
	}
}

// resourceNouns maps an operation's tag to its service (the namespace on the Client) and the noun
// that is removed from operationIds to name its methods.
var resourceNouns = map[string]struct{ service, singular, plural string }{
	"Projects":        {"Projects", "Project", "Projects"},
	"Deployments":     {"Deployments", "Deployment", "Deployments"},
	"Configurations":  {"Configurations", "Configuration", "Configurations"},
	"API keys":        {"APIKeys", "ApiKey", "ApiKeys"},
	"Users":           {"Users", "User", "Users"},
	"Accounts":        {"Accounts", "Account", "Accounts"},
	"Environments":    {"Environments", "Environment", "Environments"},
	"Deployment logs": {"DeploymentLogs", "DeploymentLog", "DeploymentLogs"},
	"Trust policies":  {"TrustPolicies", "TrustPolicy", "TrustPolicies"},
	"OAuth clients":   {"OAuthClients", "OAuthClient", "OAuthClients"},
	"Events":          {"Events", "Event", "Events"},
	"Webhooks":        {"Webhooks", "Webhook", "Webhooks"},
}

// methodNames are the operations whose method name is not their operationId minus the noun.
var methodNames = map[string]string{
	"getCurrentUser":           "Me",
	"changeOwnPassword":        "ChangePassword",
	"registerOAuthClient":      "Create",
	"redeliverWebhookDelivery": "Redeliver",
}

// Generate makes the generated files from the OpenAPI document doc (JSON).
func Generate(doc []byte) (Files, error) {
	var raw map[string]any
	if err := json.Unmarshal(doc, &raw); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is not JSON: %w", err)
	}
	normalize(raw)
	normalized, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	// Two loads: oapi-codegen rewrites the document it is given (its operationIds, for one).
	spec, err := openapi3.NewLoader().LoadFromData(normalized)
	if err != nil {
		return nil, fmt.Errorf("loading the OpenAPI document: %w", err)
	}
	forTypes, err := openapi3.NewLoader().LoadFromData(normalized)
	if err != nil {
		return nil, fmt.Errorf("loading the OpenAPI document: %w", err)
	}
	types, err := codegen.Generate(forTypes, Config())
	if err != nil {
		return nil, fmt.Errorf("oapi-codegen: %w", err)
	}
	declared, err := declaredTypes(types)
	if err != nil {
		return nil, err
	}
	order, err := pathOrder(doc)
	if err != nil {
		return nil, err
	}
	services, err := generateServices(spec, order, declared)
	if err != nil {
		return nil, err
	}
	api, err := generateAPI(spec)
	if err != nil {
		return nil, err
	}
	return Files{"types.gen.go": []byte(types), "services.gen.go": services, "api.gen.go": api}, nil
}

// normalize adjusts the document for Go before oapi-codegen reads it:
//   - `null` leaves enums (nullability is the `"null"` in `type`), so no "<nil>" constant is made;
//   - a boolean enum (first_party: [false]) becomes a plain boolean, so no `False` constant is made;
//   - the Idempotency-Key header parameter goes: it is a per-call option (WithIdempotencyKey), not
//     a field of a generated …Params type.
func normalize(node any) {
	switch n := node.(type) {
	case map[string]any:
		if enum, ok := n["enum"].([]any); ok {
			kept := enum[:0:0]
			for _, v := range enum {
				if v != nil {
					kept = append(kept, v)
				}
			}
			n["enum"] = kept
			if isBoolean(n["type"]) {
				delete(n, "enum")
			}
		}
		if params, ok := n["parameters"].([]any); ok {
			kept := params[:0:0]
			for _, p := range params {
				if m, ok := p.(map[string]any); ok && m["in"] == "header" && strings.EqualFold(fmt.Sprint(m["name"]), "Idempotency-Key") {
					continue
				}
				kept = append(kept, p)
			}
			n["parameters"] = kept
		}
		for _, v := range n {
			normalize(v)
		}
	case []any:
		for _, v := range n {
			normalize(v)
		}
	}
}

func isBoolean(t any) bool {
	switch t := t.(type) {
	case string:
		return t == "boolean"
	case []any:
		return slices.Contains(t, any("boolean"))
	}
	return false
}

// idempotent reports whether the document's operation takes an Idempotency-Key (read before normalize).
func idempotentOperations(doc []byte) (map[string]bool, error) {
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, item := range d.Paths {
		for _, rawOp := range item {
			var op struct {
				OperationID string `json:"operationId"`
				Parameters  []struct {
					Name string `json:"name"`
					In   string `json:"in"`
				} `json:"parameters"`
			}
			if json.Unmarshal(rawOp, &op) != nil || op.OperationID == "" {
				continue
			}
			for _, p := range op.Parameters {
				if p.In == "header" && strings.EqualFold(p.Name, "Idempotency-Key") {
					out[op.OperationID] = true
				}
			}
		}
	}
	return out, nil
}

// pathOrder returns the document's paths in the order it lists them, with their idempotent operations.
type docOrder struct {
	paths      []string
	idempotent map[string]bool
}

func pathOrder(doc []byte) (docOrder, error) {
	var d struct {
		Paths json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return docOrder{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(d.Paths))
	if _, err := dec.Token(); err != nil {
		return docOrder{}, err
	}
	var out docOrder
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return docOrder{}, err
		}
		out.paths = append(out.paths, key.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return docOrder{}, err
		}
	}
	idem, err := idempotentOperations(doc)
	out.idempotent = idem
	return out, err
}

// declaredTypes lists the type names declared in oapi-codegen's output.
func declaredTypes(src string) (map[string]bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "types.gen.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parsing oapi-codegen's output: %w", err)
	}
	out := map[string]bool{}
	for _, decl := range f.Decls {
		if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, s := range g.Specs {
				out[s.(*ast.TypeSpec).Name.Name] = true
			}
		}
	}
	return out, nil
}

func gofmt(name string, b *bytes.Buffer) ([]byte, error) {
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", name, err, b.String())
	}
	return out, nil
}

// comment writes text as Go comment lines with the given indentation.
func comment(b *bytes.Buffer, indent, text string) {
	for line := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
		line = strings.TrimRight(line, " ")
		if line == "" {
			b.WriteString(indent + "//\n")
		} else {
			b.WriteString(indent + "// " + line + "\n")
		}
	}
}

var errNoOperations = errors.New("the OpenAPI document has no /v1 operations")
