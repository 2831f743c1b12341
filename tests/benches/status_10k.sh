#!/usr/bin/env bash
# Budget: `perftriage status --json` over 10,000 commits with 30,000 result files under 1.5 s (2-core machine).
# Generates the synthetic workload once into $WORK (default /tmp/perftriage-10k), then times 5 runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
WORK=${WORK:-/tmp/perftriage-10k}
cargo build --release --locked --quiet
BIN=target/release/perftriage
if [ ! -f "$WORK/dataset.jsonl" ]; then
  "$BIN" synth --commits 10000 --files-per-commit 3 "$WORK" >/dev/null
fi
echo "files: $(find "$WORK/results" -name '*.json' | wc -l), bytes: $(du -sh "$WORK/results" | cut -f1)"
WS=$(mktemp -d)
for i in 1 2 3 4 5; do
  /usr/bin/env time -f "run $i: %e s wall, %M KiB max RSS" \
    "$BIN" --workspace "$WS" --dataset "$WORK/dataset.jsonl" --results "$WORK/results" status --json >/dev/null
done
