package daemon

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query/doctext"
)

// Document implements ipc.DocumentReader: the indexed text of a file
// (query/doctext), found by path, title or alias.
func (d *Daemon) Document(ctx context.Context, req ipc.DocumentRequest) (*ipc.DocumentResponse, error) {
	d.awaitStartup(ctx)
	vault, rel, err := d.engine.ResolveNote(req.Vault, req.Path)
	if err != nil {
		return nil, err
	}
	doc, err := d.store.Document(vault, rel)
	if err != nil {
		return nil, fmt.Errorf("document %s: %w", rel, err)
	}
	if doc == nil {
		return nil, ipc.NotFound("%s is not indexed in vault %q", rel, vault)
	}
	if doc.Status == index.StatusFailed {
		return nil, ipc.NotFound("%s in vault %q was not indexed: %s", rel, vault, doc.Error)
	}
	dr := doctext.Request{Root: d.vaults[vault].cfg.Path, Rel: rel, IndexedHash: doc.Hash,
		From: req.LineStart, To: req.LineEnd}
	if !index.IsText(rel) {
		dr.Extract = func(rel, sha string, data []byte) (*doctext.Extracted, error) {
			x, handled, err := d.extract(ctx, rel, sha, data)
			if !handled {
				return nil, errors.New("no extractor takes this file any more")
			}
			if err != nil {
				return nil, err
			}
			return &doctext.Extracted{Text: x.Text, Pages: x.Pages}, nil
		}
	}
	t, err := doctext.Read(dr)
	switch {
	case errors.Is(err, doctext.ErrNotFound):
		return nil, ipc.NotFound("%s was indexed in vault %q but is no longer there", rel, vault)
	case errors.Is(err, doctext.ErrRefused), errors.Is(err, doctext.ErrRange):
		return nil, ipc.BadRequest("%w", err)
	case err != nil:
		return nil, err
	}
	return &ipc.DocumentResponse{Vault: vault, Path: rel, AbsPath: filepath.Join(dr.Root, filepath.FromSlash(rel)), Title: doc.Title,
		Kind: doc.Kind, Extracted: t.Extracted, Text: t.Text, LineStart: t.LineStart, LineEnd: t.LineEnd,
		Lines: t.Lines, Pages: t.Pages, Truncated: t.Truncated, NextLine: t.NextLine, Stale: t.Stale}, nil
}
