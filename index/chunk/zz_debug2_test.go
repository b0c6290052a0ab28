package chunk

import "github.com/yuin/goldmark/text"

func textReader(b []byte) text.Reader { return text.NewReader(b) }
