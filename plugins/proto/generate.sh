#!/usr/bin/env bash
# Regenerates the Go code for the ragd plugin protocol from the .proto files
# beside this script, and refreshes the copies of the .proto files that the
# Node example plugin loads at run time.
#
#   plugins/proto/generate.sh          regenerate in place
#   plugins/proto/generate.sh OUTDIR   write the generated Go files under OUTDIR
#                                      instead (used by check.sh)
#
# Needs protoc (Debian: apt-get install protobuf-compiler) and Go. The protoc
# plugins, protoc-gen-go and protoc-gen-go-grpc, are pinned as tools in go.mod
# (`go get -tool PKG@VERSION` moves them).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$here}"

if ! command -v protoc >/dev/null 2>&1; then
	echo "generate.sh: protoc not found (Debian/Ubuntu: apt-get install protobuf-compiler)" >&2
	exit 2
fi

bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
(
	cd "$root"
	go build -o "$bin/protoc-gen-go" google.golang.org/protobuf/cmd/protoc-gen-go
	go build -o "$bin/protoc-gen-go-grpc" google.golang.org/grpc/cmd/protoc-gen-go-grpc
)

mkdir -p "$out"
cd "$here"
protoc -I . \
	--plugin=protoc-gen-go="$bin/protoc-gen-go" \
	--plugin=protoc-gen-go-grpc="$bin/protoc-gen-go-grpc" \
	--go_out="$out" --go_opt=paths=source_relative \
	--go-grpc_out="$out" --go-grpc_opt=paths=source_relative \
	ragd/plugin/v1/*.proto

# The Node example loads the protocol from its own directory so that it can
# be copied out of the tree.
if [ "$out" = "$here" ]; then
	dst="$root/contrib/plugins/org-extractor/proto/ragd/plugin/v1"
	mkdir -p "$dst"
	cp ragd/plugin/v1/*.proto "$dst/"
fi
