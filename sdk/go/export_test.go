package slipway

import (
	"context"
	"sync"
	"time"
)

// RecordSleeps makes c record its waits between retries instead of sleeping (tests only).
func RecordSleeps(c *Client) *[]time.Duration {
	waits := &[]time.Duration{}
	c.sleep = func(_ context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return nil
	}
	return waits
}

// VerifyWebhookSignatureAt checks a signature as if it were now (tests only).
var VerifyWebhookSignatureAt = verifyWebhookSignatureAt

// ResetBaseURLNotice lets a test see the SLIPWAY_BASE_URL notice again (tests only).
func ResetBaseURLNotice() { baseURLNotice = sync.Once{} }
