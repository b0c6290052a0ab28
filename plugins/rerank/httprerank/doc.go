// Package httprerank is a Reranker that asks a cross-encoder server to
// score each candidate against the query. It speaks the common /rerank
// APIs, chosen by the api option:
//
//   - "cohere": POST {base_url}/rerank {"model","query","documents","top_n"}
//     → {"results":[{"index","relevance_score"}]}; default base_url
//     https://api.cohere.com/v2.
//   - "jina": the same shape (plus "return_documents": false); default
//     base_url https://api.jina.ai/v1.
//   - "tei": Hugging Face text-embeddings-inference, POST {base_url}/rerank
//     {"query","texts","truncate":true} → [{"index","score"}]; default
//     base_url http://localhost:8080.
//   - "llamacpp": llama.cpp's llama-server started with --reranking,
//     POST {base_url}/rerank (Jina-compatible; the server also answers
//     /v1/rerank); default base_url http://localhost:8080/v1.
//
// Documents are the candidate's title and heading path on a first line,
// then its text, cut to max_chars characters. They are sent batch_size at
// a time (TEI rejects batches above its --max-client-batch-size, 32 by
// default); top_n asks for every document. Replies may come sorted by
// score, so scores are matched back by index: Rerank returns one score
// per candidate, in input order, and a reply that leaves out, repeats or
// invents an index is an error (the caller then keeps the fused order).
package httprerank
