package md

import "strings"

// Writer lays out Markdown blocks, separated by blank lines, inside a
// stack of containers: a list item ("- " on its first line, "  " on the
// rest) or a block quote ("> " on every line).
type Writer struct {
	b     strings.Builder
	stack []container
	tight bool // the next block follows without a blank line
}

type container struct {
	first, rest string
	used        bool // the first line has been written
}

// Push opens a container whose first line starts with first and whose
// later lines start with rest.
func (w *Writer) Push(first, rest string) {
	w.stack = append(w.stack, container{first: first, rest: rest})
}

// Pop closes the innermost container.
func (w *Writer) Pop() {
	if n := len(w.stack); n > 0 {
		w.stack = w.stack[:n-1]
	}
}

// Depth is the number of open containers.
func (w *Writer) Depth() int { return len(w.stack) }

// Tight makes the next block follow the previous one without a blank line
// (as consecutive items of a tight list do).
func (w *Writer) Tight() { w.tight = true }

// Block writes lines as one block. Lines must not contain '\n'. Empty
// input writes nothing.
func (w *Writer) Block(lines ...string) {
	if len(lines) == 0 {
		return
	}
	if w.b.Len() > 0 {
		if !w.tight {
			w.blank()
		}
	}
	w.tight = false
	for _, l := range lines {
		for i := range w.stack {
			c := &w.stack[i]
			if c.used {
				w.b.WriteString(c.rest)
			} else {
				w.b.WriteString(c.first)
				c.used = true
			}
		}
		w.b.WriteString(l)
		w.b.WriteByte('\n')
	}
}

// blank writes a separator line carrying the prefixes of the containers
// already started (so a block quote stays one quote).
func (w *Writer) blank() {
	var p strings.Builder
	for _, c := range w.stack {
		if c.used {
			p.WriteString(c.rest)
		}
	}
	w.b.WriteString(strings.TrimRight(p.String(), " "))
	w.b.WriteByte('\n')
}

// Len is the number of bytes written so far.
func (w *Writer) Len() int { return w.b.Len() }

// String returns the Markdown written so far.
func (w *Writer) String() string { return w.b.String() }
