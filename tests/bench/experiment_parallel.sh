#!/usr/bin/env bash
# Which way should an experiment use this machine's cores: one run at a time on all threads
# (1 × N), or N runs at a time on one thread each (N × 1)? Times the same experiment both ways in
# interleaved rounds (ABBA order, so drift of a shared VM falls on both), each in a fresh database
# over one generated benchmark, and prints each round, the medians and their ratio.
# Usage: tests/bench/experiment_parallel.sh HNCLIP [ROUNDS=2] [EPOCHS=1] [RUNS=2]
#   The experiment: the built-in default benchmark, γ 0.5, --no-controls, seeds 1..RUNS, EPOCHS
#   epochs, validation and test evaluated every epoch (as a sweep does), no probes.
set -euo pipefail
hnclip="${1:?usage: $0 HNCLIP [ROUNDS] [EPOCHS] [RUNS]}"
rounds="${2:-2}"
epochs="${3:-1}"
runs="${4:-2}"
cores="$(nproc)"
work="$(mktemp -d /tmp/hnclip-parallel.XXXXXX)"
trap 'rm -rf "$work"' EXIT

seeds="$(seq -s, 1 "$runs")"
common=(--benchmark-size default --epochs "$epochs" --set loss_gamma=0.5 --no-controls
        --seeds "$seeds" --probe-every 0 --gbar-snapshots 0 --cache-dir "$work/cache")
"$hnclip" benchmark --benchmark-size default --cache-dir "$work/cache" >/dev/null 2>&1

declare -A times
one() {  # mode round
  local mode="$1" round="$2" args
  if [ "$mode" = "1x$cores" ]; then args=(--threads "$cores" --parallel 1); else
    args=(--threads "$cores" --parallel "$cores"); fi
  local start end
  start="$(date +%s.%N)"
  "$hnclip" sweep "${common[@]}" "${args[@]}" --db "$work/$mode-$round.db" >/dev/null \
    2>"$work/$mode-$round.log" || { cat "$work/$mode-$round.log" >&2; exit 1; }
  end="$(date +%s.%N)"
  local took
  took="$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", b - a}')"
  times[$mode]+="$took "
  printf '%-5s round %d: %7.1f s\n' "$mode" "$round" "$took"
}

a="1x$cores"
b="${cores}x1"
echo "experiment: $runs runs × $epochs epoch(s), built-in default benchmark, $cores cores"
for round in $(seq "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then one "$a" "$round"; one "$b" "$round"; else
    one "$b" "$round"; one "$a" "$round"; fi
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
ma="$(echo "${times[$a]}" | median)"
mb="$(echo "${times[$b]}" | median)"
echo "median $a: $ma s; median $b: $mb s; $a / $b = $(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.3f", a / b}')"
