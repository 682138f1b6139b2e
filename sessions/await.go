package sessions

import (
	"context"
	"time"
)

// AwaitEnd waits until feed's run has ended (its Changed channel closes), ctx is done or d
// has passed.
func AwaitEnd(ctx context.Context, feed Feed, d time.Duration) {
	timeout := time.After(d)
	for {
		select {
		case _, ok := <-feed.Changed():
			if !ok {
				return
			}
		case <-ctx.Done():
			return
		case <-timeout:
			return
		}
	}
}
