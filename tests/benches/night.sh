#!/usr/bin/env bash
# The public archive's night replayed (issue 58): perftriage reads ../shared/isobench/archive
# (`status --json`: each commit's newest record per variant and its category), then
# `cargo bench --bench night` builds the 96-commit dataset, checkout, agent patches and mock
# images that fail as those records did and runs one unattended campaign over all 96 × 3.
# `--kill` SIGKILLs the driver once in the middle (seeded: NIGHT_SEED) and resumes it.
# Needs Docker, busybox-static and docker-registry (.ci/run installs them). Exit 0 only when the
# campaign reached the expected count with no run launched twice and no container left.
set -euo pipefail
cd "$(dirname "$0")/../.."
archive="${NIGHT_ARCHIVE:-../shared/isobench/archive}"
status="$(mktemp --suffix=.jsonl)"
trap 'rm -f "$status"' EXIT
cargo build -q --release --bin perftriage
"${CARGO_TARGET_DIR:-target}/release/perftriage" --results "$archive" status --json > "$status" 2>/dev/null
echo "night: $(wc -l < "$status") commits read from $archive"
NIGHT_STATUS="$status" cargo bench -q --bench night -- "$@"
