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
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given status.
func Errorf(status int, format string, args ...any) *Error {
	return &Error{Status: status, Message: fmt.Sprintf(format, args...)}
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
