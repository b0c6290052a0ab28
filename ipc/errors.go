package ipc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// Kinds of errors, for callers that branch on what went wrong. The handler
// maps them to HTTP status codes and the Client maps the codes back, so
// errors.Is(err, ipc.ErrNotFound) works on both sides of the socket.
var (
	ErrInvalid     = errors.New("invalid request")          // 400 (405, 413, 431 too): the request is wrong; retrying will not help
	ErrNotFound    = errors.New("not found")                // 404: no such vault, note, endpoint or graph query
	ErrUnavailable = errors.New("unavailable")              // 503: the daemon cannot serve it now (shutting down, not running)
	ErrTimeout     = errors.New("timed out")                // 504: the request ran past its deadline
	ErrInternal    = errors.New("internal error")           // 500: a failure inside the daemon (logged there)
	ErrVersion     = errors.New("protocol version differs") // 426: the daemon is older than the client
)

// Error is an error with an HTTP status: backends return it to choose the
// status code (BadRequest, NotFound, Unavailable, Errorf), and the Client
// returns it for every non-2xx answer. errors.Is matches it against the
// kind of its status (ErrInvalid for a 400, ...).
type Error struct {
	Status  int
	Message string
	cause   error // what Errorf wrapped with %w, if anything
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the error an Errorf format wrapped with %w.
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is the kind of e's status.
func (e *Error) Is(target error) bool { return target != nil && target == kindOf(e.Status) }

// Errorf returns an *Error with the given status; like fmt.Errorf, %w
// wraps an error, which errors.Is and errors.As then find.
func Errorf(status int, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	e := &Error{Status: status, Message: err.Error()}
	if _, wraps := err.(interface{ Unwrap() error }); wraps {
		e.cause = err
	} else if _, wraps := err.(interface{ Unwrap() []error }); wraps {
		e.cause = err
	}
	return e
}

// BadRequest returns a 400 *Error (ErrInvalid).
func BadRequest(format string, args ...any) *Error {
	return Errorf(http.StatusBadRequest, format, args...)
}

// NotFound returns a 404 *Error (ErrNotFound).
func NotFound(format string, args ...any) *Error {
	return Errorf(http.StatusNotFound, format, args...)
}

// Unavailable returns a 503 *Error (ErrUnavailable).
func Unavailable(format string, args ...any) *Error {
	return Errorf(http.StatusServiceUnavailable, format, args...)
}

// kindOf is the kind of error an HTTP status reports.
func kindOf(status int) error {
	switch status {
	case http.StatusBadRequest, http.StatusMethodNotAllowed, http.StatusRequestEntityTooLarge,
		http.StatusRequestHeaderFieldsTooLarge:
		return ErrInvalid
	case http.StatusNotFound:
		return ErrNotFound
	case http.StatusServiceUnavailable:
		return ErrUnavailable
	case http.StatusGatewayTimeout:
		return ErrTimeout
	case http.StatusUpgradeRequired:
		return ErrVersion
	}
	if status >= 500 {
		return ErrInternal
	}
	return nil
}

// statusOf maps an error to its HTTP status: an *Error carries its own;
// otherwise its kind decides (a context deadline is a timeout, a cancelled
// request unavailable), and anything else is an internal error.
func statusOf(err error) int {
	var e *Error
	switch {
	case errors.As(err, &e) && e.Status != 0:
		return e.Status
	case errors.Is(err, ErrInvalid):
		return http.StatusBadRequest
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	case errors.Is(err, ErrUnavailable), errors.Is(err, context.Canceled):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// NotRunningError is returned by the Client when nothing answers on the
// socket. It is an ErrUnavailable.
type NotRunningError struct {
	Socket string
	Err    error
}

func (e *NotRunningError) Error() string {
	return fmt.Sprintf("ragd is not running (no answer on %s): start it with `ragd` or `systemctl --user start ragd`", e.Socket)
}

func (e *NotRunningError) Unwrap() error { return e.Err }

// Is reports whether target is ErrUnavailable.
func (e *NotRunningError) Is(target error) bool { return target == ErrUnavailable }

// VersionError is returned by the Client when the daemon refuses it for
// speaking a newer protocol than the daemon (426): ragd must be upgraded.
// It is an ErrVersion and wraps the daemon's *Error.
type VersionError struct {
	Client, Server int // protocol versions; Server is 0 when the daemon did not say
	Err            *Error
}

func (e *VersionError) Error() string {
	server := "an older protocol"
	if e.Server > 0 {
		server = fmt.Sprintf("protocol %d", e.Server)
	}
	return fmt.Sprintf("this client speaks protocol %d and ragd %s: upgrade ragd to this client's release and restart it (`systemctl --user restart ragd`)",
		e.Client, server)
}

func (e *VersionError) Unwrap() error { return e.Err }
