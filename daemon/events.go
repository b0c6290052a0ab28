package daemon

import (
	"sync"
	"time"

	"github.com/ragd/ragd/ipc"
)

// eventHub fans indexing events out to /v1/events subscribers. A
// subscriber that does not keep up loses events (and is told so with a
// "lagged" event) rather than slowing indexing down.
type eventHub struct {
	mu   sync.Mutex
	subs map[chan ipc.Event]*subState
}

type subState struct{ lagged bool }

// subscriberBuffer is how many events a subscriber may fall behind.
const subscriberBuffer = 1024

func newEventHub() *eventHub { return &eventHub{subs: make(map[chan ipc.Event]*subState)} }

func (h *eventHub) subscribe() (<-chan ipc.Event, func()) {
	ch := make(chan ipc.Event, subscriberBuffer)
	h.mu.Lock()
	h.subs[ch] = &subState{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		if _, ok := h.subs[ch]; ok {
			delete(h.subs, ch)
			close(ch)
		}
		h.mu.Unlock()
	}
}

// closeAll ends every subscription.
func (h *eventHub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		delete(h.subs, ch)
		close(ch)
	}
}

func (h *eventHub) publish(ev ipc.Event) {
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch, st := range h.subs {
		if st.lagged {
			// Make room for the lag notice first.
			select {
			case ch <- ipc.Event{Type: ipc.EventLagged, Time: ev.Time}:
				st.lagged = false
			default:
				continue
			}
		}
		select {
		case ch <- ev:
		default:
			st.lagged = true
		}
	}
}
