package llmentities

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
)

// cacheKey identifies a chunk's reply: the model, the prompt version and
// the chunk text, NUL-separated so no two triples share a key.
func cacheKey(model, text string) string {
	h := sha256.New()
	h.Write([]byte(model))
	h.Write([]byte{0})
	h.Write([]byte(PromptVersion))
	h.Write([]byte{0})
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

// cache is an in-memory LRU in front of an optional directory of JSON
// files. It is safe for concurrent use.
type cache struct {
	dir string // "" : memory only
	max int    // LRU capacity; 0: no memory cache

	mu    sync.Mutex
	order *list.List // front: most recent; values are *entry
	items map[string]*list.Element
}

type entry struct {
	key string
	r   reply
}

// diskEntry is the file format: the reply with what produced it.
type diskEntry struct {
	Model         string `json:"model"`
	PromptVersion string `json:"prompt_version"`
	Reply         reply  `json:"reply"`
}

func newCache(dir string, max int) *cache {
	return &cache{dir: dir, max: max, order: list.New(), items: map[string]*list.Element{}}
}

// get returns the cached reply for key, from memory or disk.
func (c *cache) get(key string) (reply, bool) {
	c.mu.Lock()
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		r := el.Value.(*entry).r
		c.mu.Unlock()
		return r, true
	}
	c.mu.Unlock()
	if c.dir == "" {
		return reply{}, false
	}
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return reply{}, false
	}
	var d diskEntry
	if json.Unmarshal(data, &d) != nil || d.PromptVersion != PromptVersion {
		return reply{}, false // damaged or stale: ask again, then overwrite
	}
	c.remember(key, d.Reply)
	return d.Reply, true
}

// put stores r under key in memory and, with a directory, on disk.
func (c *cache) put(key, model string, r reply) error {
	c.remember(key, r)
	if c.dir == "" {
		return nil
	}
	data, err := json.Marshal(diskEntry{Model: model, PromptVersion: PromptVersion, Reply: r})
	if err != nil {
		return err
	}
	return writeAtomic(c.path(key), data)
}

func (c *cache) remember(key string, r reply) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		el.Value.(*entry).r = r
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&entry{key, r})
	for c.order.Len() > c.max {
		old := c.order.Back()
		c.order.Remove(old)
		delete(c.items, old.Value.(*entry).key)
	}
}

// path shards files by the first two hex digits: dir/ab/abcd….json.
func (c *cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

// writeAtomic writes data to a temporary file beside path and renames
// it into place, so readers never see a partial file.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

func mkdirAll(dir string) error { return os.MkdirAll(dir, 0o700) }
