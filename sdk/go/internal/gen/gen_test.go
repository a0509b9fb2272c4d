package gen

import (
	"encoding/json"
	"testing"
)

func TestRemoveNoun(t *testing.T) {
	for _, c := range []struct{ id, tag, want string }{
		{"listProjects", "Projects", "List"},
		{"createProject", "Projects", "Create"},
		{"rotateWebhookSecret", "Webhooks", "RotateSecret"}, // "Webhook", not "Webhooks" + "ecret"
		{"listWebhookDeliveries", "Webhooks", "ListDeliveries"},
		{"pingWebhook", "Webhooks", "Ping"},
		{"rotateOAuthClientSecret", "OAuth clients", "RotateSecret"},
		{"revokeApiKey", "API keys", "Revoke"},
		{"listApiKeys", "API keys", "List"},
	} {
		n := resourceNouns[c.tag]
		if got := removeNoun(c.id, n.plural, n.singular); got != c.want {
			t.Errorf("removeNoun(%s) = %s, want %s", c.id, got, c.want)
		}
	}
}

func TestGoParamName(t *testing.T) {
	for in, want := range map[string]string{"project_id": "projectID", "api_key_id": "apiKeyID", "client_id": "clientID", "delivery_id": "deliveryID"} {
		if got := goParamName(in); got != want {
			t.Errorf("goParamName(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestNormalize(t *testing.T) {
	var doc map[string]any
	_ = json.Unmarshal([]byte(`{
		"target": {"type": ["string", "null"], "enum": ["fly", null]},
		"first_party": {"type": "boolean", "enum": [false]},
		"parameters": [{"name": "Idempotency-Key", "in": "header"}, {"name": "page", "in": "query"}]
	}`), &doc)
	normalize(doc)
	out, _ := json.Marshal(doc)
	want := `{"first_party":{"type":"boolean"},"parameters":[{"in":"query","name":"page"}],"target":{"enum":["fly"],"type":["string","null"]}}`
	if string(out) != want {
		t.Fatalf("normalize = %s\nwant        %s", out, want)
	}
}
