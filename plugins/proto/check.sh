#!/usr/bin/env bash
# Fails when the committed generated code (or the Node example's copy of the
# .proto files) differs from what generate.sh produces from the .proto
# files. The protoc version line in the generated headers is ignored, so a
# different protoc release does not count as a difference.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$here/generate.sh" "$tmp"

status=0
strip() { grep -v -E '^//[[:space:]]+protoc[[:space:]]+(v|\(unknown\))' "$1" || true; }
for f in "$tmp"/ragd/plugin/v1/*.go; do
	rel="ragd/plugin/v1/$(basename "$f")"
	if [ ! -f "$here/$rel" ]; then
		echo "proto-check: plugins/proto/$rel is missing: run plugins/proto/generate.sh" >&2
		status=1
		continue
	fi
	if ! diff -u --label "committed $rel" --label "generated $rel" <(strip "$here/$rel") <(strip "$f") >"$tmp/diff"; then
		echo "proto-check: plugins/proto/$rel is stale: run plugins/proto/generate.sh and commit the result" >&2
		head -n 40 "$tmp/diff" >&2
		status=1
	fi
done
for f in "$here"/ragd/plugin/v1/*.go; do
	if [ ! -f "$tmp/ragd/plugin/v1/$(basename "$f")" ]; then
		echo "proto-check: plugins/proto/ragd/plugin/v1/$(basename "$f") is not generated from any .proto: remove it" >&2
		status=1
	fi
done
node_copy="$root/contrib/plugins/org-extractor/proto/ragd/plugin/v1"
for f in "$here"/ragd/plugin/v1/*.proto; do
	if ! cmp -s "$f" "$node_copy/$(basename "$f")"; then
		echo "proto-check: contrib/plugins/org-extractor/proto/ragd/plugin/v1/$(basename "$f") differs from plugins/proto: run plugins/proto/generate.sh" >&2
		status=1
	fi
done
if [ "$status" -eq 0 ]; then
	echo "proto-check: generated code is up to date"
fi
exit "$status"
