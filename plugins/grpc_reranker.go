package plugins

import (
	"context"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pluginv1 "github.com/ragd/ragd/plugins/proto/ragd/plugin/v1"
)

// RerankerPlugin is the go-plugin glue for rerankers. A plugin process
// serves Impl; the host (Impl nil) dispenses a *RerankerClient.
type RerankerPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl Reranker
}

// GRPCServer registers Impl with the plugin's gRPC server.
func (p *RerankerPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pluginv1.RegisterRerankerServer(s, &rerankerServer{impl: p.Impl})
	return nil
}

// GRPCClient returns a *RerankerClient over the plugin's connection.
func (p *RerankerPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &RerankerClient{rpc: pluginv1.NewRerankerClient(c)}, nil
}

// RerankerClient is a Reranker in another process.
type RerankerClient struct {
	rpc pluginv1.RerankerClient
}

var (
	_ Reranker     = (*RerankerClient)(nil)
	_ Configurable = (*RerankerClient)(nil)
)

// Configure sends the plugin its options.
func (c *RerankerClient) Configure(ctx context.Context, opts Options) error {
	js, err := optionsJSON(opts)
	if err != nil {
		return err
	}
	_, err = c.rpc.Configure(ctx, &pluginv1.ConfigureRequest{OptionsJson: js})
	return callErr("configure", err)
}

// RerankerInfo asks the plugin for its Info.
func (c *RerankerClient) RerankerInfo(ctx context.Context) (RerankerInfo, error) {
	r, err := c.rpc.Info(ctx, &pluginv1.InfoRequest{})
	if err != nil {
		return RerankerInfo{}, callErr("info", err)
	}
	return RerankerInfo{Name: r.GetName(), Version: r.GetVersion(), Model: r.GetModel(), MetadataOnly: r.GetMetadataOnly()}, nil
}

// Rerank sends the query and every candidate in one call.
func (c *RerankerClient) Rerank(ctx context.Context, query string, cands []Candidate) ([]float64, error) {
	req := &pluginv1.RerankRequest{Query: query, Candidates: make([]*pluginv1.Candidate, len(cands))}
	for i, cd := range cands {
		var mod int64
		if !cd.Modified.IsZero() {
			mod = cd.Modified.Unix()
		}
		req.Candidates[i] = &pluginv1.Candidate{
			Id:           cd.ID,
			Text:         cd.Text,
			Path:         cd.Path,
			Vault:        cd.Vault,
			Title:        cd.Title,
			Heading:      cd.Heading,
			Aliases:      cd.Aliases,
			Score:        cd.Score,
			ModifiedUnix: mod,
		}
	}
	r, err := c.rpc.Rerank(ctx, req)
	if err != nil {
		return nil, callErr("rerank", err)
	}
	return r.GetScores(), nil
}

type rerankerServer struct {
	pluginv1.UnimplementedRerankerServer
	impl Reranker
}

func (s *rerankerServer) Configure(ctx context.Context, req *pluginv1.ConfigureRequest) (*pluginv1.ConfigureResponse, error) {
	return configure(ctx, s.impl, req)
}

func (s *rerankerServer) Info(ctx context.Context, _ *pluginv1.InfoRequest) (*pluginv1.RerankerInfo, error) {
	i, err := s.impl.RerankerInfo(ctx)
	if err != nil {
		return nil, serverErr(err)
	}
	return &pluginv1.RerankerInfo{Name: i.Name, Version: i.Version, Model: i.Model, MetadataOnly: i.MetadataOnly}, nil
}

func (s *rerankerServer) Rerank(ctx context.Context, req *pluginv1.RerankRequest) (*pluginv1.RerankResponse, error) {
	if len(req.GetCandidates()) == 0 {
		return &pluginv1.RerankResponse{}, nil
	}
	cands := make([]Candidate, len(req.GetCandidates()))
	for i, c := range req.GetCandidates() {
		var mod time.Time
		if c.GetModifiedUnix() != 0 {
			mod = time.Unix(c.GetModifiedUnix(), 0)
		}
		cands[i] = Candidate{
			ID:       c.GetId(),
			Text:     c.GetText(),
			Path:     c.GetPath(),
			Vault:    c.GetVault(),
			Title:    c.GetTitle(),
			Heading:  c.GetHeading(),
			Aliases:  c.GetAliases(),
			Score:    c.GetScore(),
			Modified: mod,
		}
	}
	scores, err := s.impl.Rerank(ctx, req.GetQuery(), cands)
	if err != nil {
		return nil, serverErr(err)
	}
	return &pluginv1.RerankResponse{Scores: scores}, nil
}
