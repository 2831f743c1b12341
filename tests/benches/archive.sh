#!/usr/bin/env bash
# Budgets over the whole public ISO-Bench archive (../shared/isobench/archive, ~850 JSON files):
# `classify` of every file in one call < 0.5 s; `status --results` < 0.5 s and < 100 MB RSS.
# Beside them, what a user would otherwise run: `jq` reading every file once (no classification).
set -euo pipefail
cd "$(dirname "$0")/../.."
ARCHIVE=${ARCHIVE:-../shared/isobench/archive}
cargo build --release --locked --quiet
BIN=target/release/perftriage
mapfile -d '' FILES < <(find "$ARCHIVE" -name '*.json' -print0)
echo "files: ${#FILES[@]}, bytes: $(du -sh "$ARCHIVE" | cut -f1)"
WS=$(mktemp -d)
for i in 1 2 3 4 5; do
  # Exit 1: the archive holds files that are no result (summaries, exports), each named.
  /usr/bin/env time -o "$WS/time" -f "classify run $i: %e s wall, %M KiB max RSS" "$BIN" classify "${FILES[@]}" >/dev/null || true
  cat "$WS/time"
done
for i in 1 2 3 4 5; do
  /usr/bin/env time -o "$WS/time" -f "status run $i: %e s wall, %M KiB max RSS" \
    "$BIN" --workspace "$WS" --results "$ARCHIVE" status --json >/dev/null 2>&1
  cat "$WS/time"
done
if command -v jq >/dev/null; then
  for i in 1 2 3; do
    /usr/bin/env time -f "jq -c .status run $i: %e s wall, %M KiB max RSS" \
      sh -c 'jq -c ".status? // empty" "$@" >/dev/null 2>&1 || true' sh "${FILES[@]}"
  done
fi
