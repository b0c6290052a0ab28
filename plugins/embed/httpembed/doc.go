// Package httpembed is an Embedder that calls an embedding server over
// HTTP. Two providers share its batching, retry and post-processing code:
//
//   - provider = "ollama": POST {base_url}/api/embed, Ollama's batch
//     endpoint (default base_url http://localhost:11434).
//   - provider = "openai": POST {base_url}/embeddings, the OpenAI API and
//     the servers that copy it (OpenRouter, llama.cpp server, vLLM, LM
//     Studio, TEI's OpenAI route); base_url includes the version, e.g.
//     https://api.openai.com/v1 (the default).
//
// Embed splits its input into batches of batch_size texts, one HTTP
// request each, retried on 429, 5xx and connection errors with
// exponential backoff and jitter, honouring Retry-After. Before sending,
// it truncates each text to max_input_chars characters and prepends the
// query or document prefix; after receiving, it cuts each vector to
// dimensions (Matryoshka truncation, for servers that ignore or were not
// sent the dimensions parameter) and L2-normalises it unless normalize is
// false.
//
// Configure never contacts the server, so the daemon can start while the
// server is down. When dimensions is not configured, the first
// EmbedderInfo call learns it by embedding a short probe text (a later
// successful Embed also teaches it); until then EmbedderInfo returns an
// error saying how to fix it: set dimensions, or start the server.
package httpembed
