#!/usr/bin/env bash
# Kill anywhere (issue 16): SIGKILLs `hnclip train` again and again across one run — while the
# built-in benchmark is generated, right after the run's row is created, inside a step, while a
# checkpoint is written, inside a metrics transaction, during an evaluation, and at random times
# from outside — resuming after each kill until the run finishes. Then it checks that the database
# passes PRAGMA integrity_check, that no run is left queued/running, that no temporary file is
# left, and that every stored metric (evaluations, step losses, probes, checkpoints) is bit for bit
# that of an uninterrupted run with the same seed. It prints the kills survived, by moment, and
# the steps lost (steps recorded, then discarded by a resume).
#
# The short moments are hit with the HNCLIP_FAULT_POINT test seam (core/fault/fault_point.h);
# the others are `kill -9` from this script after a random delay (half of them at --size full).
#
# Usage: kill_anywhere.sh --hnclip PATH [--size small|full] [--work DIR] [--python PY] [--seed N]
#   small: 12 kills (9 named, 3 random) on a 3-epoch run, what ctest runs; full: 24 kills (12
#   named, 12 random) on a 6-epoch run.
set -uo pipefail

hnclip="" size=small work="" python=python3 seed=16
while [ $# -gt 0 ]; do
  case "$1" in
    --hnclip) hnclip="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --python) python="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    *) echo "kill_anywhere: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$hnclip" ] || { echo "kill_anywhere: --hnclip PATH (the hnclip program) is required" >&2; exit 2; }
here="$(cd "$(dirname "$0")" && pwd)"
db_tool=("$python" "$here/run_db.py")
[ -n "$work" ] || work="$(mktemp -d)"
rm -rf "$work" && mkdir -p "$work/killed" "$work/reference" "$work/logs" || exit 2
RANDOM=$seed

# Per size: the run's settings and the kill plan. A word NAME:N is a fault point; "random" is a
# kill -9 after a random delay. With S steps per epoch, train.step:$((S+k)) and checkpoint.write:2
# first complete an epoch (so the run advances), then die.
case "$size" in
  small)
    epochs=3 fraction=0.5 batch=16 steps_per_epoch=16 generate_at=300
    plan=(benchmark.generate:$generate_at run.created:1 eval:1 random train.step:3
          metrics.transaction:1 random checkpoint.write:1 train.step:$((16 + 2)) random eval:1
          checkpoint.write:2) ;;
  full)
    epochs=6 fraction=1.0 batch=16 steps_per_epoch=32 generate_at=900
    plan=(benchmark.generate:$generate_at run.created:1 random eval:1 random train.step:5 random
          metrics.transaction:1 random checkpoint.write:1 random random train.step:$((32 + 7))
          random metrics.transaction:3 random eval:2 random random checkpoint.write:2 random
          train.step:5 random checkpoint.write:1) ;;
  *) echo "kill_anywhere: --size small|full" >&2; exit 2 ;;
esac
settings=(--benchmark synthetic --benchmark-size small --epochs "$epochs" --batch "$batch"
          --data-fraction "$fraction" --probe-every 5 --seed 11 --threads 2 --loader-workers 2
          --cache-dir "$work/cache")
kdb="$work/killed/runs.db"
rdb="$work/reference/runs.db"

fail() { echo "kill_anywhere: FAILED: $*" >&2; exit 1; }
now_ms() { date +%s%3N; }
started=$(now_ms)

run_id() { "${db_tool[@]}" runs "$kdb" 2>/dev/null | awk 'NR == 1 { print $1 }'; }

declare -A by_moment=()
kills=0 lost=0 attempt=0

# One start (no run yet) or resume of the killed run; "$1" is the plan word. Returns after the
# process is dead; counts the kill and the steps it cost.
killed_attempt() {
  local word="$1" id cmd log rc moment before after
  attempt=$((attempt + 1))
  log="$work/logs/attempt-$attempt.log"
  id="$(run_id)"
  if [ -n "$id" ]; then
    cmd=("$hnclip" train --resume "$id" --db "$kdb" --cache-dir "$work/cache")
    before=$("${db_tool[@]}" resume-step "$kdb" "$id")
  else
    cmd=("$hnclip" train "${settings[@]}" --db "$kdb")
    before=0
  fi
  if [ "$word" = random ]; then
    # Tied to the process's own progress, not to wall time (a loaded machine runs the reference
    # several times slower than a resume, and a timed kill then came after the run had ended):
    # either during the start-up (after its "data:" line), or after 1-3 of this attempt's step
    # lines (every 4 steps; an attempt starts at an epoch boundary, so it never finishes an epoch),
    # each plus a random 0-250 ms.
    local mode=$((RANDOM % 4)) jitter=$((RANDOM % 251)) waited=0
    "${cmd[@]}" >"$log" 2>&1 &
    local pid=$!
    local t0; t0=$(now_ms)
    while kill -0 "$pid" 2>/dev/null; do
      if [ "$mode" -eq 0 ]; then
        grep -q "^data:" "$log" && break
      elif [ "$(grep -cE '^epoch [0-9]+ step' "$log")" -ge "$mode" ]; then
        break
      fi
      sleep 0.02
      waited=$((waited + 20))
      [ "$waited" -lt 600000 ] || fail "attempt $attempt: no progress in 600 s; see $log"
    done
    sleep "0.$(printf '%03d' "$jitter")"
    local delay=$(( $(now_ms) - t0 ))
    # What the process was doing: a checkpoint temporary of its own means inside a write.
    local tmp_seen=""
    find "$work/killed" -name "*.tmp-$pid" | grep -q . && tmp_seen=1
    kill -9 "$pid" 2>/dev/null
    wait "$pid"; rc=$?
    if [ "$rc" -ne 137 ]; then
      fail "attempt $attempt: the process ended by itself (exit $rc) before the random kill" \
           "after ${delay} ms; see $log"
    fi
    if [ -n "$tmp_seen" ]; then
      moment="random: during a checkpoint write"
    elif ! grep -q "^run [0-9]* started" "$log"; then
      moment="random: before training (data, model, resume)"
    else
      local last; last=$(grep -oE '^(epoch [0-9]+|start )' "$log" | tail -1 | sed 's/ *$//')
      moment="random: training (${last:+after }${last:-before any progress line of this attempt})"
    fi
    echo "kill $((kills + 1)): $moment, ${delay} ms after start"
  else
    HNCLIP_FAULT_POINT="$word" "${cmd[@]}" >"$log" 2>&1; rc=$?
    [ "$rc" -eq 137 ] || fail "attempt $attempt: HNCLIP_FAULT_POINT=$word did not kill (exit $rc); see $log"
    moment="point ${word%%:*}"
    echo "kill $((kills + 1)): $moment ($word)"
  fi
  kills=$((kills + 1))
  by_moment["$moment"]=$(( ${by_moment["$moment"]:-0} + 1 ))
  "${db_tool[@]}" integrity "$kdb" >/dev/null 2>&1 || [ ! -e "$kdb" ] ||
    fail "integrity_check after kill $kills: $("${db_tool[@]}" integrity "$kdb")"
  id="$(run_id)"
  if [ -n "$id" ]; then
    after=$("${db_tool[@]}" max-step "$kdb" "$id")
    [ "$after" -gt "$before" ] && lost=$((lost + after - before))
  fi
  return 0
}

echo "kill_anywhere: size $size, ${#plan[@]} kills planned, work folder $work, seed $seed"
# The first two kills need a fresh benchmark and no run; the reference then reuses the benchmark.
killed_attempt "${plan[0]}"
[ -z "$(run_id)" ] || fail "a run exists after a kill during benchmark generation"
killed_attempt "${plan[1]}"
[ -n "$(run_id)" ] || fail "no run after the kill right after the run was created"

# The reference also times a start-up (to "run N started") and an epoch, for the random delays.
ref_start=$(now_ms) startup_ms=""
"$hnclip" train "${settings[@]}" --db "$rdb" >"$work/logs/reference.log" 2>&1 &
ref_pid=$!
while kill -0 "$ref_pid" 2>/dev/null; do
  [ -z "$startup_ms" ] && grep -q "^run [0-9]* started" "$work/logs/reference.log" &&
    startup_ms=$(( $(now_ms) - ref_start ))
  sleep 0.1
done
wait "$ref_pid" || fail "the uninterrupted reference run failed; see $work/logs/reference.log"
ref_ms=$(( $(now_ms) - ref_start ))
: "${startup_ms:=$ref_ms}"
epoch_ms=$(( (ref_ms - startup_ms) / epochs + 1 ))
echo "reference run: $ref_ms ms uninterrupted ($startup_ms ms to start, $epoch_ms ms an epoch)"

for word in "${plan[@]:2}"; do killed_attempt "$word"; done

id="$(run_id)"
"$hnclip" train --resume "$id" --db "$kdb" --cache-dir "$work/cache" >"$work/logs/final.log" 2>&1 ||
  fail "the final resume failed; see $work/logs/final.log"

# The checks.
status="$("${db_tool[@]}" runs "$kdb")"
[ "$(echo "$status" | wc -l)" -eq 1 ] || fail "expected one run in the killed database, found: $status"
[ "$(echo "$status" | awk '{ print $2 }')" = finished ] || fail "run not finished: $status"
integrity="$("${db_tool[@]}" integrity "$kdb")" || fail "integrity_check: $integrity"
leftovers="$(find "$work/killed" "$work/cache" -name '*.tmp-*')"
[ -z "$leftovers" ] || fail "temporary files left behind: $leftovers"
"${db_tool[@]}" metrics "$rdb" 1 >"$work/reference.metrics"
"${db_tool[@]}" metrics "$kdb" "$id" >"$work/killed.metrics"
[ -s "$work/reference.metrics" ] || fail "the reference run stored no metrics"
if ! cmp -s "$work/reference.metrics" "$work/killed.metrics"; then
  diff "$work/reference.metrics" "$work/killed.metrics" | head -20 >&2
  fail "the killed run's metrics differ from the uninterrupted run's"
fi

echo "kill_anywhere: OK — $kills kills survived, ${lost} steps lost (recorded, then redone after" \
     "a resume), $(grep -c '^eval' "$work/reference.metrics") evaluation values and" \
     "$(grep -c '^step' "$work/reference.metrics") step metrics equal to the uninterrupted run's," \
     "integrity_check ok, $(( ($(now_ms) - started) / 1000 )) s in all"
for m in "${!by_moment[@]}"; do printf '  %3d  %s\n' "${by_moment[$m]}" "$m"; done | sort -k2
