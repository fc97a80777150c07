package updater

import (
	"context"
	"log"
	"time"
)

// Poll checks for a newer release every interval until ctx is done.
func Poll(ctx context.Context, c *Client, channel, current string, interval time.Duration, found func(*Release)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			rel, err := c.Latest(ctx, channel)
			if err != nil {
				log.Printf("update check failed: %v", err)
				continue
			}
			if rel.Version != current {
				found(rel)
			}
		}
	}
}
