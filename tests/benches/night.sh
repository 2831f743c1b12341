#!/usr/bin/env bash
# The public archive's night replayed (issue 58): `cargo bench --bench night` has perftriage read
# ../shared/isobench/archive (NIGHT_ARCHIVE; `status --json`: each commit's newest record per
# variant and its category), then builds the 96-commit dataset, checkout, agent patches and mock
# images that fail as those records did and runs one unattended campaign over all 96 × 3.
# `--kill` SIGKILLs the driver once in the middle (seeded: NIGHT_SEED) and resumes it.
# Needs Docker, busybox-static and docker-registry (.ci/run installs them). Exit 0 only when the
# campaign reached the expected count with no run launched twice and no container left.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo bench -q --bench night -- "$@"
