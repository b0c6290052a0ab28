package segment

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// manifestName is the file that says which segments make the index. It is
// replaced atomically (written, synced, renamed, directory synced) after
// the segment files it names are durable: it is the commit point of a
// flush or merge.
const manifestName = "MANIFEST"

type manifest struct {
	Version  int               `json:"version"`
	Seq      uint64            `json:"seq"`  // every change up to Seq is in the segments
	Next     uint64            `json:"next"` // last segment file number used
	Segments []manifestSegment `json:"segments"`
	CRC      uint32            `json:"crc"` // of the record with CRC 0
}

type manifestSegment struct {
	Name    string   `json:"name"`
	Notes   uint32   `json:"notes"`
	Deleted []uint32 `json:"deleted,omitempty"`
}

func (m *manifest) checksum() uint32 {
	c := *m
	c.CRC = 0
	b, _ := json.Marshal(&c)
	return crc32.Checksum(b, castagnoli)
}

// readManifest reads dir's manifest; a missing one is an empty index.
func readManifest(dir string) (*manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if errors.Is(err, os.ErrNotExist) {
		return &manifest{Version: 1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("segment: read manifest: %w", err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%w: manifest: %v", ErrCorrupt, err)
	}
	if m.Version != 1 || m.CRC != m.checksum() {
		return nil, fmt.Errorf("%w: manifest version %d or checksum", ErrCorrupt, m.Version)
	}
	return &m, nil
}

// writeManifest records the current segment files and their deletions as
// covering every change up to seq, then removes the files named in gone
// (merged away: no manifest names them any more). Only the background
// loop and Close write manifests, one at a time.
func (s *Set) writeManifest(seq uint64, gone []string) error {
	s.mu.Lock()
	m := manifest{Version: 1, Seq: seq, Next: s.nextID}
	for _, ss := range s.cur.segs {
		if s.mem[ss.seg] || ss.seg.name == "" {
			continue
		}
		ms := manifestSegment{Name: ss.seg.name, Notes: ss.seg.notes}
		for i := uint32(0); i < ss.seg.notes && ss.del != nil; i++ {
			if ss.deleted(i) {
				ms.Deleted = append(ms.Deleted, i)
			}
		}
		m.Segments = append(m.Segments, ms)
	}
	s.mu.Unlock()
	m.CRC = m.checksum()
	b, err := json.Marshal(&m)
	if err != nil {
		return err
	}
	if err := writeFileSync(filepath.Join(s.opt.Dir, manifestName), b); err != nil {
		return err
	}
	for _, name := range gone {
		os.Remove(filepath.Join(s.opt.Dir, name)) // a mapped file stays readable until unmapped
	}
	s.mu.Lock()
	if seq > s.flushed {
		s.flushed = seq
	}
	s.mu.Unlock()
	if s.opt.OnFlush != nil {
		s.opt.OnFlush(seq)
	}
	return nil
}

// writeFileSync writes path atomically and durably: a temporary file,
// fsynced, renamed over path, and the directory fsynced.
func writeFileSync(path string, b []byte) error {
	return writeFileWith(path, func(f io.Writer) error {
		_, err := f.Write(b)
		return err
	})
}

// writeFileWith is writeFileSync with the contents written by write.
func writeFileWith(path string, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("segment: write %s: %w", filepath.Base(path), err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("segment: write %s: %w", filepath.Base(path), err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// removeStrays deletes segment and temporary files the manifest does not
// name: leftovers of a flush or merge a crash interrupted.
func removeStrays(dir string, m *manifest) {
	keep := map[string]bool{manifestName: true}
	for _, s := range m.Segments {
		keep[s.Name] = true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		if !keep[n] && (strings.HasSuffix(n, ".seg") || strings.HasSuffix(n, ".tmp")) {
			os.Remove(filepath.Join(dir, n))
		}
	}
}

// Reset deletes dir's manifest and segments (before a rebuild).
func Reset(dir string) error {
	removeStrays(dir, &manifest{})
	if err := os.Remove(filepath.Join(dir, manifestName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
