#!/usr/bin/env bash
# Data-parallel scaling on this machine (issue 19): the same run of the built-in default
# benchmark (γ 0.5, recomputed Ḡ, probes every 5, the README's lr) trained three ways, in
# interleaved rounds so that drift of a shared VM falls on all of them:
#   1x1  one process, one LibTorch thread        (the unit of work)
#   1xN  one process, N threads                   (what one process makes of the machine)
#   Nx1  N processes of one thread each, Gloo on localhost, the same global batch; evaluation
#        sharded over the ranks (the default)
#   Nx1r the same with --dist-eval rank0: rank 0 evaluates alone while the others wait
#   Nx1p (with HNCLIP_PEER=another hnclip build) Nx1 run by that build: a change measured against
#        the build before it
# It prints each round (training images/s — evaluation excluded — and the wall time of the whole
# command, evaluation and set-up included), the medians, the scaling efficiency
# Nx1 / (N · 1x1), the ratio Nx1 / 1xN, and what sharding the evaluation saves (Nx1r − Nx1 wall;
# the training is the same).
# Usage: [HNCLIP_PEER=HNCLIP2] tests/bench/distributed_scaling.sh HNCLIP [ROUNDS=2] [EPOCHS=2] [N=nproc]
set -euo pipefail
hnclip="${1:?usage: $0 HNCLIP [ROUNDS] [EPOCHS] [N]}"
rounds="${2:-2}"
epochs="${3:-2}"
n="${4:-$(nproc)}"
peer="${HNCLIP_PEER:-}"
modes=(1x1 1xN Nx1 Nx1r)
[ -n "$peer" ] && modes+=(Nx1p)
work="$(mktemp -d /tmp/hnclip-scaling.XXXXXX)"
trap 'rm -rf "$work"' EXIT
common=(train --benchmark-size default --epochs "$epochs" --gamma 0.5 --lr 1e-3
        --cache-dir "$work/cache" --json)
"$hnclip" benchmark --benchmark-size default --cache-dir "$work/cache" >/dev/null 2>&1

ips() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["images_per_second"])' "$1"; }

declare -A rate wall
one() {  # mode round
  local mode="$1" round="$2" start end
  start="$(date +%s.%N)"
  case "$mode" in
    1x1) "$hnclip" "${common[@]}" --threads 1 --db "$work/$mode-$round.db" >"$work/out.json" 2>/dev/null ;;
    1xN) "$hnclip" "${common[@]}" --threads "$n" --db "$work/$mode-$round.db" >"$work/out.json" 2>/dev/null ;;
    Nx1|Nx1r|Nx1p)
      local port=$((29600 + 3 * round + ${#mode} - 3)) pids=() program="$hnclip" eval=()
      [ "$mode" = Nx1p ] && port=$((port + 1)) && program="$peer"
      [ "$mode" = Nx1r ] && eval=(--dist-eval rank0)
      # Every rank gets the same run flags: rank 0 refuses a run whose ranks were given others.
      for r in $(seq 1 $((n - 1))); do
        "$program" "${common[@]}" --threads 1 --db "$work/$mode-$round.db" --world-size "$n" \
          --rank "$r" --master "127.0.0.1:$port" "${eval[@]}" >/dev/null 2>"$work/rank$r.err" &
        pids+=($!)
      done
      "$program" "${common[@]}" --threads 1 --db "$work/$mode-$round.db" --world-size "$n" \
        --rank 0 --master "127.0.0.1:$port" "${eval[@]}" >"$work/out.json" 2>/dev/null
      for p in "${pids[@]}"; do wait "$p"; done ;;
  esac
  end="$(date +%s.%N)"
  rate[$mode-$round]="$(ips "$work/out.json")"
  wall[$mode-$round]="$(echo "$end - $start" | bc)"
  printf '%-5s round %d: %8.1f images/s training, %6.1f s wall\n' "$mode" "$round" \
    "${rate[$mode-$round]}" "${wall[$mode-$round]}"
}

for round in $(seq 1 "$rounds"); do
  order=("${modes[@]}")
  if [ $((round % 2)) = 0 ]; then order=(); for ((i = ${#modes[@]} - 1; i >= 0; i--)); do order+=("${modes[i]}"); done; fi
  for mode in "${order[@]}"; do one "$mode" "$round"; done
done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
declare -A med_rate med_wall
for mode in "${modes[@]}"; do
  rs=(); ws=()
  for round in $(seq 1 "$rounds"); do rs+=("${rate[$mode-$round]}"); ws+=("${wall[$mode-$round]}"); done
  med_rate[$mode]="$(median "${rs[@]}")"
  med_wall[$mode]="$(median "${ws[@]}")"
  printf 'median %-5s %8.1f images/s training, %6.1f s wall\n' "$mode" "${med_rate[$mode]}" "${med_wall[$mode]}"
done
printf 'scaling efficiency Nx1 / (%d x 1x1): %.2f (training), %.2f (wall)\n' "$n" \
  "$(echo "${med_rate[Nx1]} / ($n * ${med_rate[1x1]})" | bc -l)" \
  "$(echo "${med_wall[1x1]} / ($n * ${med_wall[Nx1]})" | bc -l)"
printf 'Nx1 / 1xN: %.2f (training), %.2f (wall)\n' \
  "$(echo "${med_rate[Nx1]} / ${med_rate[1xN]}" | bc -l)" \
  "$(echo "${med_wall[1xN]} / ${med_wall[Nx1]}" | bc -l)"
printf 'sharded evaluation saves %.1f s of the wall time (Nx1r %.1f s, Nx1 %.1f s)\n' \
  "$(echo "${med_wall[Nx1r]} - ${med_wall[Nx1]}" | bc -l)" "${med_wall[Nx1r]}" "${med_wall[Nx1]}"
if [ -n "$peer" ]; then
  printf 'Nx1 / Nx1p (this build against %s): %.3f (training), %.3f (wall)\n' "$peer" \
    "$(echo "${med_rate[Nx1]} / ${med_rate[Nx1p]}" | bc -l)" \
    "$(echo "${med_wall[Nx1p]} / ${med_wall[Nx1]}" | bc -l)"
fi
