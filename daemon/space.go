package daemon

import (
	"context"
	"errors"
	"time"

	"github.com/ragd/ragd/index"
)

// spacePollInterval is how often a daemon paused for disk space checks
// whether room has returned.
var spacePollInterval = 2 * time.Second

// pauseForSpace records that a write was refused for want of disk space:
// indexing passes are skipped until the room the write needed is free
// again, then every vault is reconciled in full (watchSpace).
func (d *Daemon) pauseForSpace(err error) {
	var df *index.DiskFullError
	if !errors.As(err, &df) {
		return
	}
	d.mu.Lock()
	was := d.diskFull
	d.diskFull = df
	d.mu.Unlock()
	if was == nil {
		d.log.Error("indexing paused: "+df.Error()+"; queries are still answered and indexing resumes when room returns",
			"dir", df.Dir, "free_mb", df.Free>>20, "need_mb", df.Need>>20)
		select {
		case d.spaceLow <- struct{}{}:
		default:
		}
	}
}

// pausedForSpace reports why indexing is paused, if it is.
func (d *Daemon) pausedForSpace() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.diskFull == nil {
		return ""
	}
	return d.diskFull.Error()
}

// watchSpace waits for pauses and, during one, for the room the refused
// write needed; it then lifts the pause and queues a full pass, which
// picks up everything skipped meanwhile.
func (d *Daemon) watchSpace(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.spaceLow:
		}
		t := time.NewTicker(spacePollInterval)
		for paused := true; paused; {
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			d.mu.Lock()
			df := d.diskFull
			d.mu.Unlock()
			free, err := d.store.Free()
			if err != nil || free < df.Need {
				continue
			}
			d.mu.Lock()
			d.diskFull = nil
			d.mu.Unlock()
			d.log.Info("disk space is back; resuming indexing", "free_mb", free>>20)
			d.queue.push(&job{trigger: triggerPeriodic})
			d.embedding.poke()
			paused = false
		}
		t.Stop()
	}
}
