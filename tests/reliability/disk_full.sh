#!/usr/bin/env bash
# Disk full (issue 16): a run whose checkpoint or database write fails for want of space fails
# cleanly — a non-zero exit and a message naming the file — damages nothing already stored, and
# resumes to the same metrics as an uninterrupted run once there is space again.
#
#   --part checkpoint  the run trains one epoch, is killed, and resumes under a file-size limit
#                      (ulimit -f) below a checkpoint's size: writing the epoch-2 checkpoint fails
#                      with EFBIG. Needs no privileges.
#   --part database    the database and checkpoints live on a small tmpfs (mounted in a user and
#                      mount namespace, `unshare -rm`) which is filled up after the first
#                      checkpoint: the next database or checkpoint write fails with ENOSPC. Then
#                      the filler is deleted and the run resumes. Exits 77 (reported by ctest as
#                      skipped, never as passed) where namespaces cannot be made.
#
# Usage: disk_full.sh --hnclip PATH --part checkpoint|database [--work DIR] [--python PY]
set -uo pipefail

hnclip="" part="" work="" python=python3 inside=""
while [ $# -gt 0 ]; do
  case "$1" in
    --hnclip) hnclip="$2"; shift 2 ;;
    --part) part="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --python) python="$2"; shift 2 ;;
    --inside-namespace) inside=1; shift ;;
    *) echo "disk_full: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$hnclip" ] || { echo "disk_full: --hnclip PATH (the hnclip program) is required" >&2; exit 2; }
here="$(cd "$(dirname "$0")" && pwd)"
self="$here/$(basename "$0")"
db_tool=("$python" "$here/run_db.py")
epochs=3 steps_per_epoch=8
settings=(--benchmark synthetic --benchmark-size small --epochs "$epochs" --batch 16
          --data-fraction 0.25 --probe-every 5 --seed 5 --threads 2 --loader-workers 2)

fail() { echo "disk_full ($part): FAILED: $*" >&2; exit 1; }

# Lines of a metrics dump (run_db.py metrics) up to `step`/`epoch`: what must survive a failure.
prefix() {  # $1 file, $2 last step, $3 last epoch
  awk -v s="$2" -v e="$3" '($1 == "step" || $1 == "probe") && $2 <= s { print; next }
    ($1 == "eval" || $1 == "checkpoint") && $2 <= e { print }' "$1"
}

# After the failure: exit code, message, run status, integrity, what was stored before it, and
# no checkpoint file or temporary past the last good epoch. $1 exit code, $2 log, $3 db, $4 run.
check_failure() {
  local rc="$1" log="$2" db="$3" id="$4" good_epoch="$5" named status
  [ "$rc" -ne 0 ] || fail "the run did not fail (exit 0); see $log"
  [ "$rc" -ne 137 ] && [ "$rc" -lt 128 ] || fail "the run died of a signal (exit $rc); see $log"
  named="$(grep -oE "(checkpoint [^ ]+\.pt|[^ ]*runs\.db)[^ ]*" "$log" | head -1)"
  [ -n "$named" ] || fail "the failure message names neither the checkpoint nor the database: $(tail -3 "$log")"
  echo "failure message: $(grep -m1 "^hnclip: " "$log")"
  integrity="$("${db_tool[@]}" integrity "$db")" || fail "integrity_check after the failure: $integrity"
  status="$("${db_tool[@]}" runs "$db" | awk -v id="$id" '$1 == id { print $2 }')"
  case "$status" in
    failed|interrupted|running) ;;  # running: the database could not be written; the next start marks it
    *) fail "run $id is '$status' after the failure" ;;
  esac
  echo "run status after the failure: $status"
  "${db_tool[@]}" metrics "$db" "$id" >"$work/after-failure.metrics"
  local s=$(( good_epoch * steps_per_epoch ))
  cmp -s <(prefix "$work/reference.metrics" "$s" "$good_epoch") \
         <(prefix "$work/after-failure.metrics" "$s" "$good_epoch") ||
    fail "rows stored before the failure (up to epoch $good_epoch) changed"
  local dir
  dir="$(dirname "$db")"
  [ -z "$(find "$dir" -name '*.tmp-*')" ] || fail "temporary checkpoint left: $(find "$dir" -name '*.tmp-*')"
  for e in $(seq $((good_epoch + 1)) "$epochs"); do
    [ -z "$(find "$dir" -name "epoch-$e.pt")" ] || fail "a checkpoint for epoch $e exists after the failure"
  done
}

check_resumed() {  # $1 db, $2 run
  "${db_tool[@]}" metrics "$1" "$2" >"$work/resumed.metrics"
  cmp -s "$work/reference.metrics" "$work/resumed.metrics" || {
    diff "$work/reference.metrics" "$work/resumed.metrics" | head -10 >&2
    fail "the resumed run's metrics differ from the uninterrupted run's"
  }
  integrity="$("${db_tool[@]}" integrity "$1")" || fail "integrity_check after the resume: $integrity"
}

if [ -n "$inside" ]; then
  # In the namespace: a 48 MiB tmpfs for the database and checkpoints.
  full="$work/full"
  mount -t tmpfs -o size=48m tmpfs "$full" || fail "mount tmpfs inside the namespace"
  db="$full/runs.db"
  "$hnclip" train "${settings[@]}" --cache-dir "$work/cache" --db "$db" >"$work/run.out" 2>"$work/run.log" &
  pid=$!
  # Fill the disk as soon as epoch 1's checkpoint is recorded.
  while kill -0 "$pid" 2>/dev/null; do
    n=$("${db_tool[@]}" counts "$db" 1 2>/dev/null | awk '{ print $6 }')
    [ "${n:-0}" -ge 1 ] && break
    sleep 0.1
  done
  dd if=/dev/zero of="$full/filler" bs=64k 2>/dev/null  # ends with "No space left on device"
  echo "filled the tmpfs: $(df -k "$full" | awk 'NR == 2 { print $4 }') KiB left"
  wait "$pid"; rc=$?
  rm -f "$full/filler"  # checked with space: the checks read the database and write nothing
  good=$("${db_tool[@]}" metrics "$db" 1 | awk '$1 == "checkpoint" { e = $2 } END { print e + 0 }')
  [ "$good" -ge 1 ] || fail "no checkpoint was stored before the disk filled"
  check_failure "$rc" "$work/run.log" "$db" 1 "$good"
  "$hnclip" train --resume 1 --cache-dir "$work/cache" --db "$db" >"$work/resume.out" 2>"$work/resume.log" ||
    fail "the resume after freeing space failed: $(tail -3 "$work/resume.log")"
  check_resumed "$db" 1
  echo "disk_full (database): OK — the run failed at epoch $((good + 1)) on a full disk, kept epochs" \
       "1..$good intact, and resumed to the uninterrupted run's metrics"
  exit 0
fi

case "$part" in checkpoint|database) ;; *) echo "disk_full: --part checkpoint|database" >&2; exit 2 ;; esac
[ -n "$work" ] || work="$(mktemp -d)"
rm -rf "$work" && mkdir -p "$work/reference" "$work/run" "$work/full" || exit 2

"$hnclip" train "${settings[@]}" --cache-dir "$work/cache" --db "$work/reference/runs.db" \
  >"$work/reference.out" 2>"$work/reference.log" || fail "the reference run failed; see $work/reference.log"
"${db_tool[@]}" metrics "$work/reference/runs.db" 1 >"$work/reference.metrics"

if [ "$part" = database ]; then
  if ! unshare -rm true 2>/dev/null; then
    echo "disk_full (database): SKIPPED — cannot create a user and mount namespace here (unshare -rm)"
    exit 77
  fi
  exec unshare -rm bash "$self" --inside-namespace --hnclip "$hnclip" --work "$work" --python "$python" --part database
fi

# --part checkpoint: epoch 1 completes (its checkpoint stored), then the process is killed early in
# epoch 2 and resumed under a file-size limit of half a checkpoint.
db="$work/run/runs.db"
HNCLIP_FAULT_POINT="train.step:$((steps_per_epoch + 2))" "$hnclip" train "${settings[@]}" \
  --cache-dir "$work/cache" --db "$db" >"$work/first.out" 2>"$work/first.log"
[ $? -eq 137 ] || fail "the first process was not killed in epoch 2; see $work/first.log"
ckpt="$(find "$work/run" -name 'epoch-1.pt')"
[ -n "$ckpt" ] || fail "no epoch-1 checkpoint"
ckpt_kib=$(( $(stat -c %s "$ckpt") / 1024 ))
limit_kib=$(( ckpt_kib / 2 ))
for f in "$db" "$db-wal"; do
  [ ! -e "$f" ] || [ $(( $(stat -c %s "$f") / 1024 )) -lt "$limit_kib" ] ||
    fail "$f is already larger than the limit ($limit_kib KiB): the test cannot isolate the checkpoint"
done
sum_before="$(sha256sum "$ckpt" | cut -d' ' -f1)"
(ulimit -f "$limit_kib"; exec "$hnclip" train --resume 1 --cache-dir "$work/cache" --db "$db") \
  >"$work/limited.out" 2>"$work/limited.log"
rc=$?
grep -q "epoch-2.pt" "$work/limited.log" || fail "the failure does not name epoch-2.pt: $(tail -3 "$work/limited.log")"
check_failure "$rc" "$work/limited.log" "$db" 1 1
[ "$(sha256sum "$ckpt" | cut -d' ' -f1)" = "$sum_before" ] || fail "the epoch-1 checkpoint changed"
"$hnclip" train --resume 1 --cache-dir "$work/cache" --db "$db" >"$work/resume.out" 2>"$work/resume.log" ||
  fail "the resume without the limit failed: $(tail -3 "$work/resume.log")"
check_resumed "$db" 1
echo "disk_full (checkpoint): OK — under a ${limit_kib} KiB file-size limit (a checkpoint is" \
     "${ckpt_kib} KiB) the run failed writing epoch-2.pt, kept epoch 1 intact, and resumed to the" \
     "uninterrupted run's metrics"
