package slipway

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// WebhookSignatureHeader is the header that signs a webhook delivery.
const WebhookSignatureHeader = "Slipway-Signature"

// DefaultWebhookTolerance is how far a delivery's timestamp may be from now.
const DefaultWebhookTolerance = 5 * time.Minute

// ErrInvalidSignature is returned when a delivery's Slipway-Signature is missing, malformed, too old,
// or matches no secret.
var ErrInvalidSignature = errors.New("slipway: invalid webhook signature")

// VerifyWebhookSignature checks header (Slipway-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
// "<t>.<payload>">, keyed with the whole whsec_… secret; during a rotation a second v1 signs with the
// old secret, and any may match) against payload, the body exactly as received. tolerance ≤ 0
// means DefaultWebhookTolerance. Compares in constant time.
func VerifyWebhookSignature(payload []byte, header, secret string, tolerance time.Duration) error {
	return verifyWebhookSignatureAt(payload, header, secret, tolerance, time.Now())
}

func verifyWebhookSignatureAt(payload []byte, header, secret string, tolerance time.Duration, now time.Time) error {
	if tolerance <= 0 {
		tolerance = DefaultWebhookTolerance
	}
	timestamp := int64(-1)
	var signatures [][]byte
	for part := range strings.SplitSeq(header, ",") {
		key, value, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch key {
		case "t":
			if t, err := strconv.ParseInt(value, 10, 64); err == nil && t >= 0 {
				timestamp = t
			}
		case "v1":
			if sig, err := hex.DecodeString(value); err == nil && len(sig) == sha256.Size {
				signatures = append(signatures, sig)
			}
		}
	}
	if timestamp < 0 || len(signatures) == 0 {
		return ErrInvalidSignature
	}
	if math.Abs(float64(now.Unix()-timestamp)) > tolerance.Seconds() {
		return ErrInvalidSignature
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(timestamp, 10) + "."))
	mac.Write(payload)
	expected := mac.Sum(nil)
	for _, sig := range signatures {
		if hmac.Equal(sig, expected) {
			return nil
		}
	}
	return ErrInvalidSignature
}

// ConstructWebhookEvent verifies a delivery (see VerifyWebhookSignature) and decodes its Event. Its
// failures are *Error: CodeInvalidSignature (errors.Is(err, ErrInvalidSignature): not a delivery from
// Slipway, answer 400) or, for a correctly signed body that is not an event, CodeInvalidResponse
// wrapping the decoding error.
func ConstructWebhookEvent(payload []byte, header, secret string, tolerance time.Duration) (*Event, error) {
	if err := VerifyWebhookSignature(payload, header, secret, tolerance); err != nil {
		return nil, &Error{Code: CodeInvalidSignature, Message: "the Slipway-Signature header does not match this payload and secret, or is too old", err: err}
	}
	var event Event
	if err := json.Unmarshal(payload, &event); err != nil {
		return nil, &Error{Code: CodeInvalidResponse, Message: "the webhook delivery is signed but its body is not an event: " + err.Error(), err: err}
	}
	if event.ID == "" || event.Type == "" {
		return nil, &Error{Code: CodeInvalidResponse, Message: "the webhook delivery is signed but its body has no event id or type"}
	}
	return &event, nil
}
