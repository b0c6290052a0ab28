package plugins

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pluginv1 "github.com/ragd/ragd/plugins/proto/ragd/plugin/v1"
)

// EmbedderPlugin is the go-plugin glue for embedders. A plugin process
// serves Impl; the host (Impl nil) dispenses an *EmbedderClient.
type EmbedderPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl Embedder
}

// GRPCServer registers Impl with the plugin's gRPC server.
func (p *EmbedderPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pluginv1.RegisterEmbedderServer(s, &embedderServer{impl: p.Impl})
	return nil
}

// GRPCClient returns an *EmbedderClient over the plugin's connection.
func (p *EmbedderPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &EmbedderClient{rpc: pluginv1.NewEmbedderClient(c)}, nil
}

// EmbedderClient is an Embedder in another process.
type EmbedderClient struct {
	rpc pluginv1.EmbedderClient
}

var (
	_ Embedder     = (*EmbedderClient)(nil)
	_ Configurable = (*EmbedderClient)(nil)
)

// Configure sends the plugin its options.
func (c *EmbedderClient) Configure(ctx context.Context, opts Options) error {
	js, err := optionsJSON(opts)
	if err != nil {
		return err
	}
	_, err = c.rpc.Configure(ctx, &pluginv1.ConfigureRequest{OptionsJson: js})
	return callErr("configure", err)
}

// EmbedderInfo asks the plugin for its Info.
func (c *EmbedderClient) EmbedderInfo(ctx context.Context) (EmbedderInfo, error) {
	r, err := c.rpc.Info(ctx, &pluginv1.InfoRequest{})
	if err != nil {
		return EmbedderInfo{}, callErr("info", err)
	}
	return EmbedderInfo{
		Name:           r.GetName(),
		Version:        r.GetVersion(),
		Model:          r.GetModel(),
		Dimensions:     int(r.GetDimensions()),
		MaxInputTokens: int(r.GetMaxInputTokens()),
		QueryPrefix:    r.GetQueryPrefix(),
		DocumentPrefix: r.GetDocumentPrefix(),
		Normalized:     r.GetNormalized(),
		MaxBatch:       int(r.GetMaxBatch()),
	}, nil
}

// Embed sends the whole batch in one call.
func (c *EmbedderClient) Embed(ctx context.Context, input InputType, texts []string) ([][]float32, error) {
	it := pluginv1.InputType_INPUT_TYPE_DOCUMENT
	if input == InputQuery {
		it = pluginv1.InputType_INPUT_TYPE_QUERY
	}
	r, err := c.rpc.Embed(ctx, &pluginv1.EmbedRequest{Texts: texts, InputType: it})
	if err != nil {
		return nil, callErr("embed", err)
	}
	out := make([][]float32, len(r.GetVectors()))
	for i, v := range r.GetVectors() {
		out[i] = v.GetValues()
	}
	return out, nil
}

type embedderServer struct {
	pluginv1.UnimplementedEmbedderServer
	impl Embedder
}

func (s *embedderServer) Configure(ctx context.Context, req *pluginv1.ConfigureRequest) (*pluginv1.ConfigureResponse, error) {
	return configure(ctx, s.impl, req)
}

func (s *embedderServer) Info(ctx context.Context, _ *pluginv1.InfoRequest) (*pluginv1.EmbedderInfo, error) {
	i, err := s.impl.EmbedderInfo(ctx)
	if err != nil {
		return nil, serverErr(err)
	}
	return &pluginv1.EmbedderInfo{
		Name:           i.Name,
		Version:        i.Version,
		Model:          i.Model,
		Dimensions:     int32(i.Dimensions),
		MaxInputTokens: int32(i.MaxInputTokens),
		QueryPrefix:    i.QueryPrefix,
		DocumentPrefix: i.DocumentPrefix,
		Normalized:     i.Normalized,
		MaxBatch:       int32(i.MaxBatch),
	}, nil
}

func (s *embedderServer) Embed(ctx context.Context, req *pluginv1.EmbedRequest) (*pluginv1.EmbedResponse, error) {
	input := InputDocument
	if req.GetInputType() == pluginv1.InputType_INPUT_TYPE_QUERY {
		input = InputQuery
	}
	texts := req.GetTexts()
	if len(texts) == 0 {
		return &pluginv1.EmbedResponse{}, nil
	}
	vecs, err := s.impl.Embed(ctx, input, texts)
	if err != nil {
		return nil, serverErr(err)
	}
	out := &pluginv1.EmbedResponse{Vectors: make([]*pluginv1.Vector, len(vecs))}
	for i, v := range vecs {
		out.Vectors[i] = &pluginv1.Vector{Values: v}
	}
	return out, nil
}
