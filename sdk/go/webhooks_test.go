package slipway_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	slipway "slipway.dev/sdk/go"
)

const (
	whSecret = "whsec_c2xpcHdheS10ZXN0LXNlY3JldA"
	whBody   = `{"id":"evt_01jd8z9r3t5v7x9z1b3d5f7h9k","type":"webhook.ping"}`
	// From openssl: printf '%s.%s' 1700000000 "$BODY" | openssl dgst -sha256 -hmac "$SECRET"
	whKnownV1 = "4a5002a2bb4140286fb90d902a63771c0746c7902c46e3bfcffcd9712e7bd84e"
	whT       = 1700000000
)

func sign(secret string, t int64, body string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(t, 10) + "." + body))
	return hex.EncodeToString(mac.Sum(nil))
}

func TestWebhookSignature(t *testing.T) {
	at := func(sec int64) time.Time { return time.Unix(sec, 0) }
	rotated := sign("whsec_new", whT, whBody)
	ok := []struct {
		header, secret string
		now            int64
	}{
		{fmt.Sprintf("t=%d,v1=%s", whT, whKnownV1), whSecret, whT + 10},
		{fmt.Sprintf("t=%d, v1=%s", whT, whKnownV1), whSecret, whT - 10},
		{fmt.Sprintf("t=%d,v1=%s,v1=%s", whT, rotated, whKnownV1), whSecret, whT},
		{fmt.Sprintf("t=%d,v1=%s,v1=%s", whT, rotated, whKnownV1), "whsec_new", whT},
	}
	for _, c := range ok {
		if err := slipway.VerifyWebhookSignatureAt([]byte(whBody), c.header, c.secret, 0, at(c.now)); err != nil {
			t.Errorf("%s: %v", c.header, err)
		}
	}
	bad := []struct {
		body, header, secret string
		now                  int64
	}{
		{whBody + " ", fmt.Sprintf("t=%d,v1=%s", whT, whKnownV1), whSecret, whT},
		{whBody, fmt.Sprintf("t=%d,v1=%s", whT+1, whKnownV1), whSecret, whT},
		{whBody, fmt.Sprintf("t=%d,v1=%s", whT, whKnownV1), whSecret, whT + 301},
		{whBody, fmt.Sprintf("t=%d,v1=%s", whT, whKnownV1), whSecret, whT - 301},
		{whBody, "v1=" + whKnownV1, whSecret, whT},
		{whBody, fmt.Sprintf("t=%d", whT), whSecret, whT},
		{whBody, "", whSecret, whT},
		{whBody, fmt.Sprintf("t=%d,v1=%s", whT, whKnownV1), "whsec_other", whT},
	}
	for _, c := range bad {
		if err := slipway.VerifyWebhookSignatureAt([]byte(c.body), c.header, c.secret, 0, at(c.now)); !errors.Is(err, slipway.ErrInvalidSignature) {
			t.Errorf("%q with %q at %d: %v, want ErrInvalidSignature", c.body, c.header, c.now, err)
		}
	}
}

func TestConstructWebhookEvent(t *testing.T) {
	body := `{"id":"evt_01jd8z9r3t5v7x9z1b3d5f7h9k","type":"deployment.status_changed","actor":{"type":"api_key","id":"key_01jd8z4c8p6r0t2v4x6z8b0d2f"},"project_id":"proj_01jd8x3k9q7m2v4t6r8w0y1z3b","data":{"to":"succeeded"},"created_at":"2026-01-15T09:30:00.000Z"}`
	now := time.Now().Unix()
	header := fmt.Sprintf("t=%d,v1=%s", now, sign(whSecret, now, body))
	event, err := slipway.ConstructWebhookEvent([]byte(body), header, whSecret, 0)
	if err != nil {
		t.Fatal(err)
	}
	if event.Type != "deployment.status_changed" || event.Data["to"] != "succeeded" {
		t.Fatalf("event = %+v", event)
	}
	_, err = slipway.ConstructWebhookEvent([]byte(body), header, "whsec_other", 0)
	var apiErr *slipway.Error
	if !errors.Is(err, slipway.ErrInvalidSignature) || !errors.As(err, &apiErr) || apiErr.Code != slipway.CodeInvalidSignature {
		t.Fatalf("another secret: %v", err)
	}
	// Correctly signed, but not an event: the SDK's own error, never a bare decoding error.
	for _, other := range []string{`[1,2]`, `{"id":"evt_x"}`, `not json`} {
		h := fmt.Sprintf("t=%d,v1=%s", now, sign(whSecret, now, other))
		_, err := slipway.ConstructWebhookEvent([]byte(other), h, whSecret, 0)
		if !errors.As(err, &apiErr) || apiErr.Code != slipway.CodeInvalidResponse {
			t.Fatalf("%s: %v", other, err)
		}
	}
}
