#!/usr/bin/env bash
# Two processes, one database (issue 16): for --seconds, two `hnclip train` writers (each starts
# its next run as soon as its last one finishes) and one reader share one --db. The reader does
# what the window's run list and plots do, in a process of its own, every 50 ms: `hnclip runs
# --json` (mark_dead_runs_interrupted, list_runs, each run's epoch_evals — the run list) and
# `hnclip show ID --json` for the newest run (step_metrics, epoch_evals, checkpoints — the plots).
# Passes when no process reports "database is locked" (SQLITE_BUSY) or any other error, every
# reader call succeeded, every run finished, and no row is lost: each run holds exactly steps
# 1..epochs*steps_per_epoch, one evaluation per epoch plus the start, one checkpoint per epoch
# and one probe per --probe-every steps.
#
# Usage: two_writers.sh --hnclip PATH [--seconds N] [--work DIR] [--python PY]
set -uo pipefail

hnclip="" seconds=45 work="" python=python3
while [ $# -gt 0 ]; do
  case "$1" in
    --hnclip) hnclip="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --minutes) seconds=$(( $2 * 60 )); shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --python) python="$2"; shift 2 ;;
    *) echo "two_writers: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$hnclip" ] || { echo "two_writers: --hnclip PATH (the hnclip program) is required" >&2; exit 2; }
here="$(cd "$(dirname "$0")" && pwd)"
db_tool=("$python" "$here/run_db.py")
[ -n "$work" ] || work="$(mktemp -d)"
rm -rf "$work" && mkdir -p "$work/logs" || exit 2
db="$work/runs.db"
epochs=2 probe_every=3
settings=(--benchmark synthetic --benchmark-size small --epochs "$epochs" --batch 16
          --data-fraction 0.25 --probe-every "$probe_every" --threads 1 --loader-workers 1
          --cache-dir "$work/cache" --db "$db")

fail() { echo "two_writers: FAILED: $*" >&2; exit 1; }
deadline=$(( $(date +%s) + seconds ))

writer() {  # $1: writer number; runs back to back until the deadline, seeds differ per run
  local n=0
  while [ "$(date +%s)" -lt "$deadline" ]; do
    n=$((n + 1))
    "$hnclip" train "${settings[@]}" --seed $(( $1 * 1000 + n )) --name "writer$1-$n" \
      >"$work/logs/writer$1-$n.out" 2>"$work/logs/writer$1-$n.log" || {
      local rc=$?  # and the writer's own error line, so a failure in CI says why
      echo "writer$1-$n exit $rc: $(grep -h "^hnclip: " "$work/logs/writer$1-$n.log" | head -2)" \
        >>"$work/logs/failures"
    }
  done
}

reader() {
  local n=0 id
  while [ ! -e "$work/logs/writers.done" ]; do
    # Until a writer has created the database there is nothing to read: `runs` refuses a --db
    # that names no file rather than create an empty one.
    if [ ! -e "$db" ]; then sleep 0.05; continue; fi
    n=$((n + 1))
    "$hnclip" runs --json --db "$db" --cache-dir "$work/cache" >"$work/logs/reader.out" \
      2>>"$work/logs/reader.log" || echo "reader runs call $n exit $?" >>"$work/logs/failures"
    id=$(grep -oE '"id":[0-9]+' "$work/logs/reader.out" | tail -1 | cut -d: -f2)
    if [ -n "$id" ]; then
      "$hnclip" show "$id" --json --db "$db" --cache-dir "$work/cache" >/dev/null \
        2>>"$work/logs/reader.log" || echo "reader show call $n exit $?" >>"$work/logs/failures"
    fi
    echo "$n" >"$work/logs/reader.calls"
    sleep 0.05
  done
}

echo "two_writers: $seconds s, two writers and a reader on $db"
touch "$work/logs/failures"
reader & reader_pid=$!
writer 1 & w1=$!
writer 2 & w2=$!
wait "$w1" "$w2"
touch "$work/logs/writers.done"
wait "$reader_pid"

# The checks.
[ ! -s "$work/logs/failures" ] || fail "$(cat "$work/logs/failures")"
if grep -il "locked\|busy" "$work"/logs/*.log; then
  fail "a process reported a locked or busy database: $(grep -ih "locked\|busy" "$work"/logs/*.log | head -3)"
fi
if grep -l "^hnclip: " "$work"/logs/*.log; then  # the CLI's error lines
  fail "a process reported an error: $(grep -h "^hnclip: " "$work"/logs/*.log | head -3)"
fi
integrity="$("${db_tool[@]}" integrity "$db")" || fail "integrity_check: $integrity"
runs=0 rows=0
while read -r id status pid; do
  runs=$((runs + 1))
  [ "$status" = finished ] || fail "run $id is $status"
  counts=($("${db_tool[@]}" counts "$db" "$id"))  # steps N evals N checkpoints N probes N
  steps=${counts[1]} evals=${counts[3]} checkpoints=${counts[5]} probes=${counts[7]}
  max_step=$("${db_tool[@]}" max-step "$db" "$id")
  # steps_per_epoch from the run's own progress lines ("epoch 1 step 4/8").
  log=$(grep -l "^run $id started" "$work"/logs/writer*.log | head -1)
  per_epoch=$(grep -oE 'step [0-9]+/[0-9]+' "$log" | head -1 | cut -d/ -f2)
  expected=$(( epochs * per_epoch ))
  [ "$steps" -eq "$expected" ] && [ "$max_step" -eq "$expected" ] ||
    fail "run $id: $steps step rows (highest $max_step), expected $expected"
  # Evaluations: (epochs + 1) x 2 directions x the same k list as the first run.
  [ "$checkpoints" -eq "$epochs" ] || fail "run $id: $checkpoints checkpoints, expected $epochs"
  [ "$probes" -eq $(( expected / probe_every )) ] ||
    fail "run $id: $probes probes, expected $(( expected / probe_every ))"
  [ -n "${evals_per_run:-}" ] || evals_per_run=$evals
  [ "$evals" -eq "$evals_per_run" ] && [ $(( evals % (epochs + 1) )) -eq 0 ] ||
    fail "run $id: $evals evaluation rows, expected $evals_per_run"
  rows=$(( rows + steps + evals + checkpoints + probes ))
done < <("${db_tool[@]}" runs "$db")
[ "$runs" -ge 2 ] || fail "only $runs runs finished"
echo "two_writers: OK — $seconds s, $runs runs by two writers, $(cat "$work/logs/reader.calls")" \
     "reader rounds (runs + show), $rows rows all present, no locked/busy error, integrity ok"
