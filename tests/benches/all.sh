#!/usr/bin/env bash
# Every speed and memory figure the docs quote, each beside its anchor measured in the same run,
# printed as one markdown table and written into docs/benchmarks.md between its markers. Each figure is
# the median of RUNS runs (default 5) with its spread (min–max), wall time to the millisecond
# (bash's clock around the command; perftriage's in-process search time where it says so). A first
# frame is the median of FRAME_RUNS (default 15): five in tmux on two cores spread by ±15 ms.
#
#   first frame, 96 and 10,000 commits   the board in tmux 160x48 until its first row shows, beside
#                                        the harness floor (tmux + `cat` of a screenful) and lnav
#                                        opening the same dataset file (first_frame.py)
#   status --json, 10,000 commits         30,000 result files of `perftriage synth`, beside `cat`:
#                                        warm (the digest cache holds every file) and first run
#   status --json, 30k / 300k files       months of re-runs (gen-results.py), beside `cat`, the same
#   ingest + search                       the realistic vLLM log (gen-vllm-log.py, LOG_MB MB): ingest
#                                        beside `lnav -n`, search beside `rg -ci` and `grep -ci`
#   classify                              every rule, beside `grep -cE` with the rules' union
#   metrics                               max RSS and time, beside `grep -c`
#   campaign                              a 96 x 3 campaign on the mock vLLM: perftriage's overhead per
#                                        run beside `docker run --rm` of the mock image (needs Docker),
#                                        and the board's frame while it ran beside a 60 Hz frame
#
# Needs tmux, lnav and ripgrep (Debian: tmux lnav ripgrep). Writes under $WORK (default
# /tmp/perftriage-bench). HISTORY_SIZES="30000 300000" sets the re-run sets (300,000 files take a
# few minutes to generate the first time). SECTIONS="frame" runs the first frames alone (also
# "status", "log", "campaign").
set -euo pipefail
cd "$(dirname "$0")/../.."
WORK=${WORK:-/tmp/perftriage-bench}
RUNS=${RUNS:-5}
FRAME_RUNS=${FRAME_RUNS:-15}
LOG_MB=${LOG_MB:-202}
HISTORY_SIZES=${HISTORY_SIZES:-"30000 300000"}
# Which parts to run: any of frame, status, log, campaign.
SECTIONS=${SECTIONS:-"frame status log campaign"}
wants() { [[ " $SECTIONS " == *" $1 "* ]]; }
SHARED=${SHARED:-../shared}
for tool in tmux lnav rg; do
  command -v "$tool" >/dev/null || { echo "$tool is needed: apt-get install tmux lnav ripgrep" >&2; exit 2; }
done
mkdir -p "$WORK"
cargo build --release --locked --quiet
BIN=$PWD/target/release/perftriage
ROWS="$WORK/rows.md"
: >"$ROWS"

# "median min max" (seconds, 3 decimals) of the numbers on stdin.
stats() { sort -g | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "%.3f %.3f %.3f\n", m, v[1], v[NR]}'; }

# Run a command RUNS times: "median min max" wall seconds, and the median max RSS (MB) in $WORK/rss.
measure() {
  local t0 times="" rss=""
  for _ in $(seq "$RUNS"); do
    t0=$EPOCHREALTIME
    /usr/bin/env time -o "$WORK/time" -f "%M" "$@" >"$WORK/out" 2>&1 || true
    times+="$(awk "BEGIN {printf \"%.4f\", $EPOCHREALTIME - $t0}")"$'\n'
    rss+="$(tail -1 "$WORK/time")"$'\n'
  done
  printf "%s" "$rss" | stats | awk '{printf "%.0f\n", $1 / 1024}' >"$WORK/rss"
  printf "%s" "$times" | stats
}

# "1.234 s (1.200–1.300)" from "median min max".
show() { awk '{printf "%.3f s (%.3f–%.3f)", $1, $2, $3}'; }
ms() { awk '{printf "%.0f ms (%.0f–%.0f)", $1 * 1000, $2 * 1000, $3 * 1000}'; }
# A table row; a `|` in a cell (a regex) is escaped for markdown.
row() {
  local cells=("${@//|/\\|}")
  printf "| %s | %s | %s | %s |\n" "${cells[@]}" >>"$ROWS"
}
# perftriage's median over the anchor's: below 1, perftriage is faster.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
median() { cut -d' ' -f1 <<<"$1"; }

if wants frame; then
# --- first frame -------------------------------------------------------------------------
SYNTH="$WORK/synth-10k"
[ -f "$SYNTH/dataset.jsonl" ] || "$BIN" synth --commits 10000 --files-per-commit 3 "$SYNTH" >/dev/null
frame() { python3 tests/benches/first_frame.py "$FRAME_RUNS" "$@" | stats; }
head -40 "$SYNTH/dataset.jsonl" | cut -c1-150 >"$WORK/screenful.txt"
floor=$(frame '"short":"00000000"' cat "$WORK/screenful.txt")
lnav_t=$(frame "Text Filters" lnav "$SYNTH/dataset.jsonl")
for set in embedded synth; do
  ws=$(mktemp -d)
  if [ "$set" = embedded ]; then
    board=$(frame 015069b0 "$BIN" --workspace "$ws")
    label="first frame, 96 commits (embedded)"
  else
    board=$(frame 00000000 "$BIN" --workspace "$ws" --dataset "$SYNTH/dataset.jsonl" --results "$SYNTH/results")
    label="first frame, 10,000 commits, 30,000 files"
  fi
  row "$label" "$(ms <<<"$board")" "floor (tmux + cat) $(ms <<<"$floor"); lnav on the 10k dataset $(ms <<<"$lnav_t")" \
    "$(ratio "$(median "$board")" "$(median "$lnav_t")") of lnav"
done
fi

if wants status; then
# --- status --json ------------------------------------------------------------------------
cat_all() { find "$1" -name '*.json' -print0 | xargs -0 cat; }
export -f cat_all
status_row() {
  local label=$1 results=$2 dataset=$3 ws t c
  ws=$(mktemp -d)
  cat_all "$results" >/dev/null
  c=$(measure bash -c "cat_all '$results'")
  # Warm: three runs, not timed, fill the digest, joined and status caches (the files settled
  # while cat was timed): each timed run prints the status cache's output.
  for _ in 1 2 3; do
    "$BIN" --workspace "$ws" ${dataset:+--dataset "$dataset"} --results "$results" status --json >/dev/null
  done
  t=$(measure "$BIN" --workspace "$ws" ${dataset:+--dataset "$dataset"} --results "$results" status --json)
  row "$label" "$(show <<<"$t"), $(cat "$WORK/rss") MB" "cat of the files $(show <<<"$c")" \
    "$(ratio "$(median "$t")" "$(median "$c")") of cat"
  # The status cache removed before each run (as after a mark, or with another --agent): the
  # entries from the joined cache, the status cache written again.
  t=$(measure bash -c "rm -f '$ws/cache/status.jsonl'; '$BIN' --workspace '$ws' ${dataset:+--dataset '$dataset'} --results '$results' status --json")
  row "$label, a mark since (joined cache)" "$(show <<<"$t"), $(cat "$WORK/rss") MB" "cat of the files $(show <<<"$c")" \
    "$(ratio "$(median "$t")" "$(median "$c")") of cat"
  # A file changed since (touched before each run): the joined cache is of no use, the digest
  # cache gives all but that file, and nothing is written but the digest cache.
  one=$(find "$results" -name '*.json' -print -quit)
  t=$(measure bash -c "touch '$one'; '$BIN' --workspace '$ws' ${dataset:+--dataset '$dataset'} --results '$results' status --json")
  row "$label, a file changed since (digest cache only)" "$(show <<<"$t"), $(cat "$WORK/rss") MB" "cat of the files $(show <<<"$c")" \
    "$(ratio "$(median "$t")" "$(median "$c")") of cat"
  # Cold: every run in a new workspace, so every file is read, classified and cached.
  t=$(measure bash -c "ws=\$(mktemp -d); '$BIN' --workspace \$ws ${dataset:+--dataset '$dataset'} --results '$results' status --json; rm -rf \$ws")
  row "$label, first run (empty caches)" "$(show <<<"$t"), $(cat "$WORK/rss") MB" "cat of the files $(show <<<"$c")" \
    "$(ratio "$(median "$t")" "$(median "$c")") of cat"
}
status_row "status --json, 10,000 commits, 30,000 files" "$SYNTH/results" "$SYNTH/dataset.jsonl"
for n in $HISTORY_SIZES; do
  dir="$WORK/history-$n"
  [ -d "$dir" ] || python3 "$SHARED/tools/gen-results.py" "$SHARED/isobench/derived/commits.jsonl" "$dir" "$n" 1000 >/dev/null
  status_row "status --json, $n re-run files" "$dir" ""
done
fi

if wants log; then
# --- the realistic log: ingest, search, classify, metrics ---------------------------------
LOG="$WORK/vllm-$LOG_MB.log"
[ -f "$LOG" ] || python3 "$SHARED/tools/gen-vllm-log.py" "$LOG" "$LOG_MB" >/dev/null
BYTES=$(stat -c %s "$LOG")
rate() { awk -v b="$BYTES" '{printf "%.0f MB/s", b / 1e6 / $1}'; }
WORD=aimv2
REGEX="error|exception|traceback|killed"
ingest=$(measure "$BIN" ingest "$LOG" --spool "$WORK/spool.log" --search "$WORD" --search "$REGEX")
ingest_rss=$(cat "$WORK/rss")
lnav_t=$(measure lnav -n -c ":filter-in $WORD" "$LOG")
row "open + ingest + search ($LOG_MB MB log)" "$(show <<<"$ingest"), $ingest_rss MB" \
  "lnav -n :filter-in $(show <<<"$lnav_t"), $(cat "$WORK/rss") MB" "$(ratio "$(median "$ingest")" "$(median "$lnav_t")") of lnav"
# perftriage's own search times (in the process, after the ingest), RUNS of them. Each query is
# searched twice and the second timed: the spool at rest, as rg's file is (the first search
# after writing 202 MB competes with the kernel writing it out: its time is in the note row).
searches() {
  for _ in $(seq "$RUNS"); do
    "$BIN" ingest "$LOG" --spool "$WORK/spool.log" --search "$WORD" --search "$WORD" --search "$REGEX" --search "$REGEX" |
      sed -n "$1s/.*matching lines in \([0-9.]*\) s.*/\1/p"
  done | stats
}
word_first=$(searches 2)
word_t=$(searches 3)
regex_t=$(searches 5)
rgi=$(measure rg -ci "$WORD" "$WORK/spool.log")
grepi=$(measure grep -ci "$WORD" "$WORK/spool.log")
row "search /$WORD/ (case-insensitive, in process)" "$(show <<<"$word_t"), $(rate <<<"$word_t")" \
  "rg -ci $(show <<<"$rgi"); grep -ci $(show <<<"$grepi")" "$(ratio "$(median "$word_t")" "$(median "$rgi")") of rg"
row "search /$WORD/ right after the ingest wrote the spool" "$(show <<<"$word_first"), $(rate <<<"$word_first")" \
  "rg -ci $(show <<<"$rgi") (on the spool at rest)" "$(ratio "$(median "$word_first")" "$(median "$rgi")") of rg"
rge=$(measure rg -ci "$REGEX" "$WORK/spool.log")
grepe=$(measure grep -ciE "$REGEX" "$WORK/spool.log")
row "search /$REGEX/ (in process)" "$(show <<<"$regex_t"), $(rate <<<"$regex_t")" \
  "rg -ci $(show <<<"$rge"); grep -ciE $(show <<<"$grepe")" "$(ratio "$(median "$regex_t")" "$(median "$rge")") of rg"
UNION=$(python3 -c '
import tomllib
r = tomllib.load(open("src/classify/rules.toml", "rb"))
print("|".join("(%s)" % p for rule in r["rule"] for p in rule["patterns"]))' |
  sed 's/\\d/[0-9]/g; s/\\S/[^ ]/g; s/(?:/(/g')
classify=$(measure "$BIN" classify "$LOG")
classify_rss=$(cat "$WORK/rss")
union=$(measure grep -cE "$UNION" "$LOG")
row "classify, every rule" "$(show <<<"$classify"), $(rate <<<"$classify"), $classify_rss MB" \
  "grep -cE with the rules' union $(show <<<"$union"), $(rate <<<"$union")" "$(ratio "$(median "$classify")" "$(median "$union")") of grep"
metrics=$(measure "$BIN" metrics "$LOG")
metrics_rss=$(cat "$WORK/rss")
grepc=$(measure grep -c "Mean TPOT" "$LOG")
row "metrics" "$(show <<<"$metrics"), $metrics_rss MB" "grep -c $(show <<<"$grepc"), $(cat "$WORK/rss") MB" \
  "$(ratio "$(median "$metrics")" "$(median "$grepc")") of grep"
fi

if wants campaign; then
# --- a campaign's overhead per run ---------------------------------------------------------
# One 96 x 3 campaign on the mock vLLM (tests/benches/campaign.rs: four runs at once, --auto-fix,
# a few minutes): perftriage's overhead per run, from its launch to its end in the journal less the
# container's own start to die, over every run; beside it a bare container's life as the docker
# CLI gives it (create, start, wait, remove), RUNS times, and the same with the campaign's shape
# (its port published, four at once), 4 x RUNS times; then ten commits of the campaign one at a
# time, beside the sequential docker run.
cargo bench --locked --quiet --bench campaign 2>/dev/null >"$WORK/campaign.txt"
# "median p99 max runs" of the overhead line.
overhead=$(sed -n 's/^perftriage.s overhead per run (launch.*: \([0-9]*\) samples, median \([0-9.]*\) ms, p99 \([0-9.]*\) ms, max \([0-9.]*\) ms$/\2 \3 \4 \1/p' "$WORK/campaign.txt")
[ -n "$overhead" ] || { echo "no overhead line from the campaign bench:" >&2; cat "$WORK/campaign.txt" >&2; exit 1; }
# The same of the campaign run one at a time, and how many commits it had.
alone=$(sed -n 's/^perftriage.s overhead per run, \([0-9]*\) × 3 one at a time.*: \([0-9]*\) samples, median \([0-9.]*\) ms, p99 \([0-9.]*\) ms, max \([0-9.]*\) ms$/\3 \4 \5 \2 \1/p' "$WORK/campaign.txt")
[ -n "$alone" ] || { echo "no one-at-a-time line from the campaign bench:" >&2; cat "$WORK/campaign.txt" >&2; exit 1; }
# "median p99 max frames" of the board's frame while the campaign ran.
frames=$(sed -n 's/^board frame.*: \([0-9]*\) samples, median \([0-9.]*\) ms, p99 \([0-9.]*\) ms, max \([0-9.]*\) ms$/\2 \3 \4 \1/p' "$WORK/campaign.txt")
[ -n "$frames" ] || { echo "no frame line from the campaign bench:" >&2; cat "$WORK/campaign.txt" >&2; exit 1; }
took=$(sed -n 's/^campaign .*: \([0-9]*\) s, .*/\1/p' "$WORK/campaign.txt")
bare=$(measure docker run --rm perftriage-test/vllm:ok true)
# Docker's own part of that overhead as a campaign's container has it: a serving container
# publishes its port (docker-proxy, NAT rules), and four are made and removed at once.
four_at_once() {
  local loop
  for loop in 1 2 3 4; do
    (for _ in $(seq "$RUNS"); do
      local t0=$EPOCHREALTIME
      docker run --rm -p 127.0.0.1::8000 perftriage-test/vllm:ok true >/dev/null 2>&1 || true
      awk "BEGIN {printf \"%.4f\n\", $EPOCHREALTIME - $t0}"
    done) &
  done
  wait
}
shaped=$(four_at_once | stats)
row "campaign 96 x 3 (mock vLLM, 4 at once, --auto-fix): perftriage's overhead per run" \
  "$(awk '{printf "%.0f ms median (p99 %.0f, max %.0f; %d runs)", $1, $2, $3, $4}' <<<"$overhead")" \
  "docker run --rm of the mock image $(ms <<<"$bare"); the same with its port published, four at once $(ms <<<"$shaped")" \
  "$(ratio "$(cut -d' ' -f1 <<<"$overhead")" "$(awk '{print $1 * 1000}' <<<"$bare")") of docker run; $(ratio "$(cut -d' ' -f1 <<<"$overhead")" "$(awk '{print $1 * 1000}' <<<"$shaped")") of four at once"
row "campaign $(cut -d' ' -f5 <<<"$alone") x 3 (mock vLLM, one at a time): perftriage's overhead per run" \
  "$(awk '{printf "%.0f ms median (p99 %.0f, max %.0f; %d runs)", $1, $2, $3, $4}' <<<"$alone")" \
  "docker run --rm of the mock image $(ms <<<"$bare")" \
  "$(ratio "$(cut -d' ' -f1 <<<"$alone")" "$(awk '{print $1 * 1000}' <<<"$bare")") of docker run"
# The board beside it: a frame at 60 Hz takes 16.7 ms.
row "campaign 96 x 3, the board's frame (update + draw, 160x48) while it ran ($took s)" \
  "$(awk '{printf "%.1f ms median (p99 %.1f, max %.1f; %d frames)", $1, $2, $3, $4}' <<<"$frames")" \
  "a frame at 60 Hz: 16.7 ms" "p99 $(ratio "$(cut -d' ' -f2 <<<"$frames")" 16.7) of a 60 Hz frame"
fi

{
  echo "$(date -u +%F), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(lscpu | sed -n 's/^Model name: *//p'); median of $RUNS runs (min–max)"
  echo
  echo "| what | perftriage | anchor, same run | perftriage's time / the anchor's |"
  echo "|---|---|---|---|"
  cat "$ROWS"
} > "$WORK/table.md"
cat "$WORK/table.md"
# The table is written into docs/benchmarks.md between its markers (the docs quote no other run).
page=docs/benchmarks.md
awk -v table="$WORK/table.md" '
  /^<!-- all.sh: / { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /^<!-- \/all.sh -->/ { skip = 0 }
  !skip { print }' "$page" > "$WORK/page.md" && cat "$WORK/page.md" > "$page"
