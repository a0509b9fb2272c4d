package slipway_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	slipway "slipway.dev/sdk/go"
)

// received is one delivery that reached the receiver, verified with the SDK's own helper.
type received struct {
	deliveryID string
	eventType  string
	event      *slipway.Event
	err        error // the verification's result with the receiver's secrets
}

// receiver is a real HTTP server on loopback that Slipway delivers to (the harness allows loopback).
// It verifies each delivery's Slipway-Signature against every secret it was given.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	secrets []string
	got     chan received
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	r := &receiver{got: make(chan received, 16)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		secrets := slices.Clone(r.secrets)
		r.mu.Unlock()
		got := received{deliveryID: req.Header.Get("Slipway-Delivery"), eventType: req.Header.Get("Slipway-Event")}
		got.err = errors.New("no secret")
		for _, secret := range secrets {
			// Every secret must verify: during a rotation the header carries a v1 for each.
			got.event, got.err = slipway.ConstructWebhookEvent(body, req.Header.Get(slipway.WebhookSignatureHeader), secret, 0)
			if got.err != nil {
				break
			}
		}
		if got.err != nil {
			w.WriteHeader(http.StatusUnauthorized)
		} else {
			w.WriteHeader(http.StatusNoContent)
		}
		r.got <- got
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) trust(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets = secrets
}

// next waits (bounded) for the next delivery.
func (r *receiver) next(t *testing.T) received {
	t.Helper()
	select {
	case got := <-r.got:
		return got
	case <-time.After(30 * time.Second):
		t.Fatal("no delivery reached the receiver within 30 s")
		return received{}
	}
}

func TestWebhooksCreateListGetUpdateRotateDelete(t *testing.T) {
	ctx := context.Background()
	c := adminClient(t)
	u := unique()
	var created []*slipway.WebhookWithSecret
	for i := range 3 {
		w := must[*slipway.WebhookWithSecret](t)(c.Webhooks.Create(ctx, slipway.CreateWebhook{
			// Loopback (the harness allows it); nothing listens there and nothing is pinged.
			URL:         "http://127.0.0.1:9/" + u + "/" + string(rune('a'+i)),
			Events:      []slipway.CreateWebhookEvents{"deployment.status_changed"},
			Description: slipway.NotNull("go " + u),
		}))
		if w.Secret.IsNull() || !strings.HasPrefix(w.Secret.MustGet(), "whsec_") || w.Status != "enabled" {
			t.Fatalf("created = %+v", w)
		}
		created = append(created, w)
	}

	first := must[*slipway.WebhookList](t)(c.Webhooks.List(ctx, &slipway.ListWebhooksParams{PerPage: slipway.Ptr(2)}))
	if len(first.Data) != 2 || first.Pagination.Total < 3 {
		t.Fatalf("first page = %d items, total %d", len(first.Data), first.Pagination.Total)
	}
	var ids []string
	for w, err := range c.Webhooks.All(ctx, &slipway.ListWebhooksParams{PerPage: slipway.Ptr(2)}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, w.ID)
	}
	for _, w := range created {
		if !slices.Contains(ids, w.ID) {
			t.Fatalf("All over pages of 2 misses %s: %v", w.ID, ids)
		}
	}

	got := must[*slipway.Webhook](t)(c.Webhooks.Get(ctx, created[0].ID))
	if got.URL != created[0].URL || got.Description.IsNull() || got.Description.MustGet() != "go "+u {
		t.Fatalf("get = %+v", got)
	}
	disabled := slipway.UpdateWebhookStatus("disabled")
	updated := must[*slipway.Webhook](t)(c.Webhooks.Update(ctx, created[0].ID, slipway.UpdateWebhook{
		Events: &[]slipway.UpdateWebhookEvents{"*"},
		Status: &disabled,
	}))
	if updated.Status != "disabled" || len(updated.Events) != 1 || updated.Events[0] != "*" {
		t.Fatalf("updated = %+v", updated)
	}

	rotated := must[*slipway.WebhookWithSecret](t)(c.Webhooks.RotateSecret(ctx, created[1].ID))
	if rotated.ID != created[1].ID || rotated.Secret.IsNull() || !strings.HasPrefix(rotated.Secret.MustGet(), "whsec_") || rotated.Secret.MustGet() == created[1].Secret.MustGet() {
		t.Fatalf("rotated = %+v", rotated)
	}

	for _, w := range created {
		if err := c.Webhooks.Delete(ctx, w.ID); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.Webhooks.Get(ctx, created[0].ID)
	wantNotFound(t, err)
}

func TestWebhookPingIsDeliveredSignedToALoopbackReceiver(t *testing.T) {
	ctx := context.Background()
	c := adminClient(t)
	r := newReceiver(t)
	hook := must[*slipway.WebhookWithSecret](t)(c.Webhooks.Create(ctx, slipway.CreateWebhook{
		URL:    r.URL + "/slipway",
		Events: []slipway.CreateWebhookEvents{"deployment.status_changed"},
	}))
	t.Cleanup(func() { _ = c.Webhooks.Delete(ctx, hook.ID) })
	r.trust(hook.Secret.MustGet())

	ping := must[*slipway.WebhookDelivery](t)(c.Webhooks.Ping(ctx, hook.ID))
	if ping.WebhookID != hook.ID || ping.EventType != "webhook.ping" {
		t.Fatalf("ping = %+v", ping)
	}
	got := r.next(t)
	if got.err != nil {
		t.Fatalf("the delivery does not verify with the secret returned at creation: %v", got.err)
	}
	if got.deliveryID != ping.ID || got.eventType != "webhook.ping" || got.event.Type != "webhook.ping" || got.event.ID != ping.EventID {
		t.Fatalf("delivery %s (%s) = %+v, want %+v", got.deliveryID, got.eventType, got.event, ping)
	}

	// After a rotation both secrets sign (a v1 each) until the old one expires.
	rotated := must[*slipway.WebhookWithSecret](t)(c.Webhooks.RotateSecret(ctx, hook.ID))
	r.trust(hook.Secret.MustGet(), rotated.Secret.MustGet())
	second := must[*slipway.WebhookDelivery](t)(c.Webhooks.Ping(ctx, hook.ID))
	if got := r.next(t); got.err != nil || got.deliveryID != second.ID {
		t.Fatalf("after rotation: %s, %v", got.deliveryID, got.err)
	}

	// The log shows both, newest first, over pages of one; each succeeded (the receiver answered 204).
	var deliveries []slipway.WebhookDelivery
	for range 100 {
		deliveries = collect(t, c.Webhooks.AllDeliveries(ctx, hook.ID, &slipway.ListWebhookDeliveriesParams{PerPage: slipway.Ptr(1)}))
		if len(deliveries) == 2 && deliveries[0].Status == "succeeded" && deliveries[1].Status == "succeeded" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(deliveries) != 2 || deliveries[0].ID != second.ID || deliveries[1].ID != ping.ID {
		t.Fatalf("deliveries = %+v", deliveries)
	}
	for _, d := range deliveries {
		if d.Status != "succeeded" || d.AttemptCount != 1 || len(d.Attempts) != 1 || d.Attempts[0].StatusCode.IsNull() || d.Attempts[0].StatusCode.MustGet() != http.StatusNoContent {
			t.Fatalf("delivery = %+v", d)
		}
	}
	page := must[*slipway.WebhookDeliveryList](t)(c.Webhooks.ListDeliveries(ctx, hook.ID, &slipway.ListWebhookDeliveriesParams{PerPage: slipway.Ptr(1)}))
	if page.Pagination.Total != 2 || len(page.Data) != 1 {
		t.Fatalf("page = %+v", page.Pagination)
	}

	// A redelivery carries the same Slipway-Delivery id, signed anew.
	again := must[*slipway.WebhookDelivery](t)(c.Webhooks.Redeliver(ctx, hook.ID, ping.ID))
	if again.ID != ping.ID || again.Status != "pending" {
		t.Fatalf("redeliver = %+v", again)
	}
	if got := r.next(t); got.err != nil || got.deliveryID != ping.ID || got.event.ID != ping.EventID {
		t.Fatalf("redelivery: %s, %v", got.deliveryID, got.err)
	}
}
