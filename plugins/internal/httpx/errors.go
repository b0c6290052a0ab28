package httpx

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryAfter parses a Retry-After header (seconds or an HTTP date); 0 when
// absent or unparsable.
func retryAfter(h string) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseFloat(h, 64); err == nil {
		if math.IsNaN(secs) || secs <= 0 {
			return 0
		}
		d = time.Duration(min(secs, MaxRetryAfter.Seconds()) * float64(time.Second))
	} else if t, err := http.ParseTime(h); err == nil {
		d = time.Until(t)
	}
	if d <= 0 {
		return 0
	}
	return min(d, MaxRetryAfter)
}

// message extracts a human message from an error body: the common JSON
// shapes {"error":"…"}, {"error":{"message":"…"}}, {"message":"…"},
// {"detail":"…"}, else the body itself; truncated.
func message(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var s string
		var obj struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return clipString(s)
		case json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			return clipString(obj.Message)
		case v.Message != "":
			return clipString(v.Message)
		case json.Unmarshal(v.Detail, &s) == nil && s != "":
			return clipString(s)
		case len(v.Detail) > 0:
			return clipString(string(v.Detail))
		}
	}
	return clip(body)
}

func clip(b []byte) string { return clipString(string(b)) }

func clipString(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxErrBody {
		return s
	}
	cut := maxErrBody
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
