#!/usr/bin/env bash
# Budgets (issue 41): memory bounded whatever the input.
#   metrics on a 948 MB vLLM log            <= 64 MB max RSS
#   classify on 600 MB without a newline     <= 64 MB
#   classify on /dev/zero                    stopped by its own bound, clear message, <= 64 MB
#   status over four 405 MB result files     <= 500 MB
# Side by side: grep -c over the same input (what a user reaches for instead).
# Inputs go to $WORK (default /tmp/perftriage-memory); run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/../.."
WORK=${WORK:-/tmp/perftriage-memory}
mkdir -p "$WORK"
cargo build --release --locked --quiet
BIN=$PWD/target/release/perftriage
measure() { # label, command...
  local label=$1; shift
  /usr/bin/env time -f "$label: %e s wall, %M KiB max RSS, exit %x" "$@" > /dev/null 2> "$WORK/err" || true
  tail -n 1 "$WORK/err"
}
[ -f "$WORK/big.log" ] || python3 ../shared/tools/gen-vllm-log.py "$WORK/big.log" 948
[ -f "$WORK/one_line.log" ] || head -c 600000000 /dev/zero | tr '\0' 'x' > "$WORK/one_line.log"
if [ ! -d "$WORK/results" ]; then
  mkdir -p "$WORK/results"
  python3 - "$WORK/results" <<'EOF'
import json, sys
# Four real-shaped result files of 405 MB each: a serving result whose raw_output is huge.
block = "INFO:     127.0.0.1:44458 - \"POST /v1/completions HTTP/1.1\" 200 OK\n"
raw = block * (405_000_000 // len(block))
for short in ["015069b0", "0d243f2a", "0ec82edd", "19d98e0c"]:
    with open(f"{sys.argv[1]}/{short}_human_result.json", "w") as f:
        json.dump({"human_commit": short, "status": "success", "metrics": {"tpot_mean_ms": 22.7},
                   "raw_output": raw, "timestamp": "2026-01-14 21:53:00"}, f)
EOF
fi
ls -la "$WORK"/big.log "$WORK"/one_line.log "$WORK"/results | sed 's/^/  /'
measure "metrics big.log (948 MB)" "$BIN" metrics "$WORK/big.log"
measure "classify big.log (948 MB)" "$BIN" classify "$WORK/big.log"
measure "grep -c big.log" grep -c "Serving Benchmark Result" "$WORK/big.log"
measure "classify one_line.log (600 MB, no newline)" "$BIN" classify "$WORK/one_line.log"
measure "grep -c one_line.log" grep -c "x" "$WORK/one_line.log"
measure "classify /dev/zero" timeout 10 "$BIN" classify /dev/zero
"$BIN" classify /dev/zero 2>&1 | head -n 1 | sed 's/^/  says: /' || true
measure "status over four 405 MB result files" "$BIN" --workspace "$WORK/ws" --results "$WORK/results" status
