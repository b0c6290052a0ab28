// Package fts5 is the SQLite FTS5 peer (pure-Go SQLite, modernc.org/sqlite):
// whole notes in one FTS5 table with a title and a body column, ranked by
// FTS5's bm25() with its default parameters and equal column weights, the
// query turned into an OR of its quoted tokens.
package fts5

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/ragd/ragd/bench/peer"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Tokenizers.
const (
	Porter  = "porter unicode61" // stemmed words, diacritics folded
	Trigram = "trigram"          // every three characters: substring search, for CJK
)

// batch is how many documents one build transaction inserts.
const batch = 1000

// Engine is an FTS5 index in one SQLite file.
type Engine struct {
	db        *sql.DB
	tokenizer string
}

// Open opens (or creates, empty) the index in dir with the given tokenizer;
// existed says the file was there already.
func Open(dir, tokenizer string) (*Engine, bool, error) {
	if tokenizer != Porter && tokenizer != Trigram {
		return nil, false, fmt.Errorf("fts5: unknown tokenizer %q", tokenizer)
	}
	path := filepath.Join(dir, "fts5.db")
	_, err := os.Stat(path)
	existed := err == nil
	// WAL with synchronous=NORMAL is SQLite's usual setting for an
	// application database: durable against a process crash, one fsync
	// per checkpoint rather than per commit.
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return nil, false, err
	}
	db.SetMaxOpenConns(1)
	e := &Engine{db: db, tokenizer: tokenizer}
	if !existed {
		_, err = db.Exec(`CREATE TABLE ids(rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE);
CREATE VIRTUAL TABLE notes USING fts5(title, body, tokenize='` + tokenizer + `');`)
	} else {
		err = e.checkTokenizer()
	}
	if err != nil {
		db.Close()
		return nil, false, fmt.Errorf("fts5: %s: %w", path, err)
	}
	return e, existed, nil
}

// checkTokenizer refuses an existing index built with another tokenizer.
func (e *Engine) checkTokenizer() error {
	var ddl string
	if err := e.db.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'notes'`).Scan(&ddl); err != nil {
		return err
	}
	if !strings.Contains(ddl, "tokenize='"+e.tokenizer+"'") {
		return fmt.Errorf("the index was built with another tokenizer: %s", ddl)
	}
	return nil
}

// Build inserts every document, batch documents per transaction.
func (e *Engine) Build(each func(func(peer.Doc) error) error) error {
	var tx *sql.Tx
	n := 0
	err := each(func(d peer.Doc) error {
		if tx == nil {
			var err error
			if tx, err = e.db.Begin(); err != nil {
				return err
			}
		}
		if err := insert(tx, d); err != nil {
			return fmt.Errorf("%s: %w", d.ID, err)
		}
		if n++; n%batch == 0 {
			err := tx.Commit()
			tx = nil
			return err
		}
		return nil
	})
	if tx != nil {
		if err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	}
	return err
}

func insert(tx *sql.Tx, d peer.Doc) error {
	res, err := tx.Exec(`INSERT INTO ids(id) VALUES(?)`, d.ID)
	if err != nil {
		return err
	}
	rowid, err := res.LastInsertId()
	if err != nil {
		return err
	}
	_, err = tx.Exec(`INSERT INTO notes(rowid, title, body) VALUES(?, ?, ?)`, rowid, d.Title, d.Body)
	return err
}

// Put replaces a document in one transaction.
func (e *Engine) Put(d peer.Doc) error {
	tx, err := e.db.Begin()
	if err != nil {
		return err
	}
	if err := remove(tx, d.ID); err != nil {
		tx.Rollback()
		return err
	}
	if err := insert(tx, d); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Delete removes a document.
func (e *Engine) Delete(id string) error {
	tx, err := e.db.Begin()
	if err != nil {
		return err
	}
	if err := remove(tx, id); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func remove(tx *sql.Tx, id string) error {
	var rowid int64
	err := tx.QueryRow(`SELECT rowid FROM ids WHERE id = ?`, id).Scan(&rowid)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := tx.Exec(`DELETE FROM notes WHERE rowid = ?`, rowid); err != nil {
		return err
	}
	_, err = tx.Exec(`DELETE FROM ids WHERE rowid = ?`, rowid)
	return err
}

// Search ranks by bm25() (FTS5's rank) the notes matching any token of q.
func (e *Engine) Search(q string, k int) ([]string, error) {
	match := Match(q, e.tokenizer)
	if match == "" {
		return nil, nil
	}
	rows, err := e.db.Query(`SELECT i.id FROM (SELECT rowid, rank FROM notes WHERE notes MATCH ? ORDER BY rank LIMIT ?) AS m
JOIN ids AS i ON i.rowid = m.rowid ORDER BY m.rank`, match, k)
	if err != nil {
		return nil, fmt.Errorf("fts5: %q: %w", match, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// Count returns the number of documents.
func (e *Engine) Count() (int, error) {
	var n int
	err := e.db.QueryRow(`SELECT count(*) FROM ids`).Scan(&n)
	return n, err
}

// Close closes the database.
func (e *Engine) Close() error { return e.db.Close() }

// Match turns a query into an FTS5 MATCH expression: its tokens, each a
// quoted string, joined by OR. With porter unicode61 a token is a run of
// letters, digits and private-use characters, as unicode61 splits text.
// With trigram, the tokenizer's tokens are the trigrams themselves: every
// three consecutive characters of each run of anything but spaces and
// punctuation (so a reordered or partial CJK phrase still matches on the
// trigrams it shares with the note, ranked by bm25); runs under three
// characters cannot match a trigram index and are dropped. Quoting makes
// every token a plain string (no operators, column filters or prefix
// stars); repeated tokens are kept, as a keyword engine that passes the
// query through would.
func Match(q, tokenizer string) string {
	var toks []string
	if tokenizer == Trigram {
		for _, run := range strings.FieldsFunc(q, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }) {
			r := []rune(run)
			for i := 0; i+3 <= len(r); i++ {
				toks = append(toks, string(r[i:i+3]))
			}
		}
	} else {
		toks = strings.FieldsFunc(q, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.Is(unicode.Co, r)
		})
	}
	for i, t := range toks {
		toks[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(toks, " OR ")
}
