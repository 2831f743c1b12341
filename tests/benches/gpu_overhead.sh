#!/usr/bin/env bash
# Budget: the board idle with GPU sampling at 1 Hz costs < 1% of one core over 60 s (no redraw when
# nothing changed). Runs the release build in tmux on the replay fixture, with the GPU pane hidden and
# shown, and reads the process's CPU time from /proc/<pid>/stat. Needs tmux.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --locked --quiet
SECONDS_IDLE=${SECONDS_IDLE:-60}
WS=$(mktemp -d)
measure() {
  local label=$1 keys=$2
  tmux kill-session -t gpuo 2>/dev/null || true
  tmux new-session -d -s gpuo -x 160 -y 48 "target/release/perftriage --workspace $WS --gpu-replay fixtures/gpu/h100x2_serving.jsonl"
  sleep 3
  [ -n "$keys" ] && tmux send-keys -t gpuo "$keys"
  sleep 2
  local pid; pid=$(pgrep -n -f "perftriage --workspace $WS")
  local hz; hz=$(getconf CLK_TCK)
  local t0; t0=$(awk '{print $14+$15}' /proc/$pid/stat)
  sleep "$SECONDS_IDLE"
  local t1; t1=$(awk '{print $14+$15}' /proc/$pid/stat)
  tmux send-keys -t gpuo q
  awk -v a="$t0" -v b="$t1" -v hz="$hz" -v s="$SECONDS_IDLE" -v l="$label" \
    'BEGIN { printf "%s: %.2f s CPU over %d s = %.2f%% of one core\n", l, (b-a)/hz, s, 100*(b-a)/hz/s }'
}
measure "GPU pane hidden" ""
measure "GPU pane shown" "p"
