package host

import (
	"slices"
	"sync"
	"time"
)

// latencyRing is how many recent call latencies the percentiles use.
const latencyRing = 256

// stats counts a plugin's calls and keeps its recent latencies.
type stats struct {
	mu     sync.Mutex
	calls  int64
	errors int64
	ring   [latencyRing]time.Duration
	n      int // latencies recorded (ring holds the last min(n, latencyRing))
}

func (s *stats) record(d time.Duration, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if err != nil {
		s.errors++
	}
	s.ring[s.n%latencyRing] = d
	s.n++
}

// snapshot returns the counters and the p50/p95 latency in milliseconds.
func (s *stats) snapshot() (calls, errors int64, p50, p95 float64) {
	s.mu.Lock()
	calls, errors = s.calls, s.errors
	lat := slices.Clone(s.ring[:min(s.n, latencyRing)])
	s.mu.Unlock()
	if len(lat) == 0 {
		return calls, errors, 0, 0
	}
	slices.Sort(lat)
	return calls, errors, ms(percentile(lat, 0.50)), ms(percentile(lat, 0.95))
}

// percentile is the nearest-rank percentile of sorted.
func percentile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
