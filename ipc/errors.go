package ipc

import (
	"errors"
	"fmt"
	"net/http"
)

// Error is an error with an HTTP status: backends return it to choose the
// status code, and the Client returns it for every non-2xx answer.
type Error struct {
	Status  int
	Message string
	cause   error // what Errorf wrapped with %w, if anything
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the error an Errorf format wrapped with %w.
func (e *Error) Unwrap() error { return e.cause }

// Errorf returns an *Error with the given status; like fmt.Errorf, %w
// wraps an error, which errors.Is and errors.As then find.
func Errorf(status int, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	e := &Error{Status: status, Message: err.Error()}
	if errors.Unwrap(err) != nil {
		e.cause = err
	} else if u, ok := err.(interface{ Unwrap() []error }); ok && len(u.Unwrap()) > 0 {
		e.cause = err
	}
	return e
}

// BadRequest returns a 400 *Error.
func BadRequest(format string, args ...any) *Error {
	return Errorf(http.StatusBadRequest, format, args...)
}

// NotFound returns a 404 *Error.
func NotFound(format string, args ...any) *Error {
	return Errorf(http.StatusNotFound, format, args...)
}

// statusOf maps an error to its HTTP status: *Error carries its own, anything
// else is an internal error.
func statusOf(err error) int {
	var e *Error
	if errors.As(err, &e) && e.Status != 0 {
		return e.Status
	}
	return http.StatusInternalServerError
}

// NotRunningError is returned by the Client when nothing answers on the
// socket.
type NotRunningError struct {
	Socket string
	Err    error
}

func (e *NotRunningError) Error() string {
	return fmt.Sprintf("ragd is not running (no answer on %s): start it with `ragd` or `systemctl --user start ragd`", e.Socket)
}

func (e *NotRunningError) Unwrap() error { return e.Err }
