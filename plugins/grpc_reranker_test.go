package plugins

import (
	"context"
	"reflect"
	"testing"
	"time"

	pluginv1 "github.com/ragd/ragd/plugins/proto/ragd/plugin/v1"
)

// captureReranker records the candidates it is given.
type captureReranker struct{ got []Candidate }

func (r *captureReranker) RerankerInfo(context.Context) (RerankerInfo, error) {
	return RerankerInfo{Name: "capture"}, nil
}

func (r *captureReranker) Rerank(_ context.Context, _ string, cs []Candidate) ([]float64, error) {
	r.got = cs
	return make([]float64, len(cs)), nil
}

// A candidate's fields, aliases included, reach a reranker plugin as sent.
func TestRerankerServerCandidates(t *testing.T) {
	r := &captureReranker{}
	req := &pluginv1.RerankRequest{Query: "q", Candidates: []*pluginv1.Candidate{
		{Id: "a.0", Text: "t", Path: "a.md", Vault: "v", Title: "A", Heading: "A > B",
			Aliases: []string{"Old A", "a/b"}, Score: 0.5, ModifiedUnix: 1700000000},
		{Id: "b.0", Path: "b.md"},
	}}
	resp, err := (&rerankerServer{impl: r}).Rerank(context.Background(), req)
	if err != nil || len(resp.GetScores()) != 2 {
		t.Fatalf("Rerank: %v, %d scores", err, len(resp.GetScores()))
	}
	want := []Candidate{
		{ID: "a.0", Text: "t", Path: "a.md", Vault: "v", Title: "A", Heading: "A > B",
			Aliases: []string{"Old A", "a/b"}, Score: 0.5, Modified: time.Unix(1700000000, 0)},
		{ID: "b.0", Path: "b.md"},
	}
	if !reflect.DeepEqual(r.got, want) {
		t.Errorf("the plugin got\n%+v\nwant\n%+v", r.got, want)
	}
}
