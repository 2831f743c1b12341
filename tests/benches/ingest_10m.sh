#!/usr/bin/env bash
# Budgets: line-path ingest (decode, redact, spool, classify, ring) >= 1,000,000 typical vLLM lines/s; RSS grows < 100 MB on a 10-million-line (~1 GB) log.
# Writes the log to $WORK (default /tmp/perftriage-log), ingests it twice, reports rate and max RSS.
set -euo pipefail
cd "$(dirname "$0")/../.."
WORK=${WORK:-/tmp/perftriage-log}
mkdir -p "$WORK"
cargo build --release --locked --quiet
BIN=target/release/perftriage
[ -f "$WORK/big.log" ] || "$BIN" synth-log --lines 10000000 "$WORK/big.log"
for i in 1 2; do
  rm -f "$WORK/spool.log"
  /usr/bin/env time -f "run $i: %e s wall, %M KiB max RSS" "$BIN" ingest "$WORK/big.log" --spool "$WORK/spool.log" --search aimv2
done
rm -f "$WORK/spool.log"
