package plugins

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pluginv1 "github.com/ragd/ragd/plugins/proto/ragd/plugin/v1"
)

// ExtractorPlugin is the go-plugin glue for extractors. A plugin process
// serves Impl; the host (Impl nil) dispenses an *ExtractorClient.
type ExtractorPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl Extractor
}

// GRPCServer registers Impl with the plugin's gRPC server.
func (p *ExtractorPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pluginv1.RegisterExtractorServer(s, &extractorServer{impl: p.Impl})
	return nil
}

// GRPCClient returns an *ExtractorClient over the plugin's connection.
func (p *ExtractorPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &ExtractorClient{rpc: pluginv1.NewExtractorClient(c)}, nil
}

// ExtractorClient is an Extractor in another process.
type ExtractorClient struct {
	rpc pluginv1.ExtractorClient
}

var (
	_ Extractor    = (*ExtractorClient)(nil)
	_ Configurable = (*ExtractorClient)(nil)
)

// Configure sends the plugin its options.
func (c *ExtractorClient) Configure(ctx context.Context, opts Options) error {
	js, err := optionsJSON(opts)
	if err != nil {
		return err
	}
	_, err = c.rpc.Configure(ctx, &pluginv1.ConfigureRequest{OptionsJson: js})
	return callErr("configure", err)
}

// ExtractorInfo asks the plugin for its Info.
func (c *ExtractorClient) ExtractorInfo(ctx context.Context) (ExtractorInfo, error) {
	r, err := c.rpc.Info(ctx, &pluginv1.InfoRequest{})
	if err != nil {
		return ExtractorInfo{}, callErr("info", err)
	}
	return ExtractorInfo{
		Name:       r.GetName(),
		Version:    r.GetVersion(),
		Extensions: r.GetExtensions(),
		MediaTypes: r.GetMediaTypes(),
	}, nil
}

// Extract sends one file to the plugin.
func (c *ExtractorClient) Extract(ctx context.Context, req ExtractRequest) (Extraction, error) {
	r, err := c.rpc.Extract(ctx, &pluginv1.ExtractRequest{Path: req.Path, MediaType: req.MediaType, Data: req.Data})
	if err != nil {
		return Extraction{}, callErr("extract", err)
	}
	x := Extraction{
		Text:     r.GetText(),
		Format:   r.GetFormat(),
		Title:    r.GetTitle(),
		Metadata: r.GetMetadata(),
	}
	for _, p := range r.GetPages() {
		x.Pages = append(x.Pages, Page{Number: int(p.GetNumber()), StartLine: int(p.GetStartLine())})
	}
	for _, e := range r.GetEntities() {
		x.Entities = append(x.Entities, Entity{
			Name:       e.GetName(),
			Type:       e.GetType(),
			Aliases:    e.GetAliases(),
			Line:       int(e.GetLine()),
			Confidence: e.GetConfidence(),
		})
	}
	for _, rel := range r.GetRelations() {
		x.Relations = append(x.Relations, Relation{
			Subject:    rel.GetSubject(),
			Predicate:  rel.GetPredicate(),
			Object:     rel.GetObject(),
			Line:       int(rel.GetLine()),
			Confidence: rel.GetConfidence(),
		})
	}
	return x, nil
}

type extractorServer struct {
	pluginv1.UnimplementedExtractorServer
	impl Extractor
}

func (s *extractorServer) Configure(ctx context.Context, req *pluginv1.ConfigureRequest) (*pluginv1.ConfigureResponse, error) {
	return configure(ctx, s.impl, req)
}

func (s *extractorServer) Info(ctx context.Context, _ *pluginv1.InfoRequest) (*pluginv1.ExtractorInfo, error) {
	i, err := s.impl.ExtractorInfo(ctx)
	if err != nil {
		return nil, serverErr(err)
	}
	return &pluginv1.ExtractorInfo{
		Name:       i.Name,
		Version:    i.Version,
		Extensions: i.Extensions,
		MediaTypes: i.MediaTypes,
	}, nil
}

func (s *extractorServer) Extract(ctx context.Context, req *pluginv1.ExtractRequest) (*pluginv1.ExtractResponse, error) {
	x, err := s.impl.Extract(ctx, ExtractRequest{Path: req.GetPath(), MediaType: req.GetMediaType(), Data: req.GetData()})
	if err != nil {
		return nil, serverErr(err)
	}
	out := &pluginv1.ExtractResponse{
		Text:     x.Text,
		Format:   x.Format,
		Title:    x.Title,
		Metadata: x.Metadata,
	}
	for _, p := range x.Pages {
		out.Pages = append(out.Pages, &pluginv1.Page{Number: int32(p.Number), StartLine: int32(p.StartLine)})
	}
	for _, e := range x.Entities {
		out.Entities = append(out.Entities, &pluginv1.Entity{
			Name:       e.Name,
			Type:       e.Type,
			Aliases:    e.Aliases,
			Line:       int32(e.Line),
			Confidence: e.Confidence,
		})
	}
	for _, r := range x.Relations {
		out.Relations = append(out.Relations, &pluginv1.Relation{
			Subject:    r.Subject,
			Predicate:  r.Predicate,
			Object:     r.Object,
			Line:       int32(r.Line),
			Confidence: r.Confidence,
		})
	}
	return out, nil
}
