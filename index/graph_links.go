package index

import "github.com/ragd/ragd/index/chunk"

func relations(rel string, cd *chunk.Document, chunks []Chunk) []Relation { return nil }
