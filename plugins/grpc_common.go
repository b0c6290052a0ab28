package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ragd/ragd/plugins/internal/options"
	pluginv1 "github.com/ragd/ragd/plugins/proto/ragd/plugin/v1"
)

// CallError is an error returned by a plugin call made over gRPC. Its
// message is the plugin's own; GRPCStatus lets status.Code see the gRPC
// code (codes.Unavailable when the connection or the process is gone).
type CallError struct {
	Op      string // "embed", "extract", "configure", ...
	Code    codes.Code
	Message string
}

func (e *CallError) Error() string {
	if e.Code == codes.Unknown {
		return e.Op + ": " + e.Message
	}
	return fmt.Sprintf("%s: %s: %s", e.Op, e.Code, e.Message)
}

// GRPCStatus makes status.Code and status.FromError work on a CallError.
func (e *CallError) GRPCStatus() *status.Status { return status.New(e.Code, e.Message) }

// Is makes errors.Is(err, context.DeadlineExceeded) and
// errors.Is(err, context.Canceled) hold for the matching gRPC codes.
func (e *CallError) Is(target error) bool {
	switch target {
	case context.DeadlineExceeded:
		return e.Code == codes.DeadlineExceeded
	case context.Canceled:
		return e.Code == codes.Canceled
	}
	return false
}

// callErr turns a gRPC client error into a CallError.
func callErr(op string, err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return fmt.Errorf("%s: %w", op, err)
	}
	return &CallError{Op: op, Code: st.Code(), Message: st.Message()}
}

// serverErr turns an implementation's error into a gRPC status error.
func serverErr(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	}
	return status.Error(codes.Unknown, err.Error())
}

// optionsJSON encodes options for ConfigureRequest.
func optionsJSON(opts Options) (string, error) {
	if len(opts) == 0 {
		return "", nil
	}
	b, err := json.Marshal(opts)
	if err != nil {
		return "", fmt.Errorf("encoding plugin options: %w", err)
	}
	return string(b), nil
}

// configure applies a ConfigureRequest to impl. Options for an
// implementation that takes none are an error, so that a typo in
// ragd.toml does not pass silently.
func configure(ctx context.Context, impl any, req *pluginv1.ConfigureRequest) (*pluginv1.ConfigureResponse, error) {
	var opts Options
	if s := req.GetOptionsJson(); s != "" {
		if err := json.Unmarshal([]byte(s), &opts); err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "options are not a JSON object: %v", err)
		}
	}
	c, ok := impl.(Configurable)
	if !ok {
		if len(opts) > 0 {
			return nil, status.Error(codes.InvalidArgument, "this plugin takes no options")
		}
		return &pluginv1.ConfigureResponse{}, nil
	}
	if opts == nil {
		opts = Options{}
	}
	if err := c.Configure(ctx, opts); err != nil {
		return nil, serverErr(err)
	}
	return &pluginv1.ConfigureResponse{}, nil
}

// DecodeOptions copies opts into dst, a pointer to a struct, matching
// keys against its json tags. A key dst does not have, or a value of the
// wrong type, is an error that names the key, so a typo in ragd.toml is
// reported, not ignored. Fields opts does not name keep their values (set
// the defaults first). Numbers arrive as JSON numbers: use int, float64 or
// string fields as the option needs, and Duration for durations.
func DecodeOptions(opts Options, dst any) error { return options.Decode(opts, dst) }

// Duration is an option field written as a Go duration ("30s", "1m30s")
// or a number of seconds.
type Duration = options.Duration
