#!/usr/bin/env bash
# How loading grows with months of re-runs: `perftriage status --json` over 30,000, 100,000 and
# 300,000 per-role result files (../shared/tools/gen-results.py, about 1,000 records per commit
# and variant, 1,000 folders), each next to `cat` of the same files, with max RSS and the growth
# exponent (time ~ files^k between the smallest and the largest set).
# Budgets (issue 27): 300,000 files within 3x `cat` and under 500 MB max RSS; 30,000 within 1.5x.
# Best of 3 runs each, page cache warm (a `cat` runs first). Writes under $WORK (default /tmp/perftriage-history).
set -euo pipefail
cd "$(dirname "$0")/../.."
WORK=${WORK:-/tmp/perftriage-history}
GEN=${GEN:-../shared/tools/gen-results.py}
COMMITS=${COMMITS:-../shared/isobench/derived/commits.jsonl}
SIZES=${SIZES:-"30000 100000 300000"}
mkdir -p "$WORK"
cargo build --release --locked --quiet
BIN=$PWD/target/release/perftriage
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"

# Best (lowest) wall time of 3 runs, "seconds max_rss_kib".
best() {
  local t r best_t=999999 best_r=0
  for _ in 1 2 3; do
    /usr/bin/env time -o "$WORK/time" -f "%e %M" "$@" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
    read -r t r < <(tail -1 "$WORK/time")
    if awk "BEGIN {exit !($t < $best_t)}"; then best_t=$t; best_r=$r; fi
  done
  echo "$best_t $best_r"
}
cat_all() { find "$1" -name '*.json' -print0 | xargs -0 cat; }
export -f cat_all

printf "%8s %12s %10s %10s %8s %10s\n" files "perftriage" "max RSS" "cat" ratio "overridden"
first_n=""; first_t=""
for n in $SIZES; do
  dir="$WORK/r$n"
  [ -d "$dir" ] || python3 "$GEN" "$COMMITS" "$dir" "$n" 1000 >/dev/null
  ws=$(mktemp -d)
  cat_all "$dir" >/dev/null
  read -r cat_t _ < <(best bash -c "cat_all '$dir'")
  read -r t rss < <(best "$BIN" --workspace "$ws" --results "$dir" status --json)
  overridden=$("$BIN" --workspace "$ws" --results "$dir" status --json | python3 -c '
import json, sys
print(sum(len(json.loads(l)["overridden"]) for l in sys.stdin))')
  rm -rf "$ws"
  printf "%8d %10.2f s %7d MB %8.2f s %7.2fx %10s\n" "$n" "$t" "$((rss / 1024))" "$cat_t" "$(awk "BEGIN {print $t / $cat_t}")" "$overridden"
  if [ -z "$first_n" ]; then first_n=$n; first_t=$t; fi
  last_n=$n; last_t=$t
done
awk "BEGIN {printf \"growth exponent %d -> %d files: %.2f (1 = linear)\n\", $first_n, $last_n, log($last_t / $first_t) / log($last_n / $first_n)}"
