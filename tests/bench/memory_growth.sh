#!/usr/bin/env bash
# Issue 16, requirement 10: is a default training run's resident memory flat once it is warm?
# Runs `hnclip train` on the built-in benchmark with its defaults (10 epochs, batch 128, default
# size) in a fresh database and cache, samples VmRSS from /proc/PID/status once per second, and
# reads VmRSS again the moment the CLI's stderr reports an epoch's end ("epoch N  test: ...").
# Prints one line per epoch end, the peak of the 1 Hz samples, and the growth from the end of
# epoch 2 to the end of the last epoch (the first two epochs include allocator and LibTorch
# warm-up; the requirement is that nothing grows after them).
# Usage: tests/bench/memory_growth.sh [path/to/hnclip] [extra train flags...]
#   e.g. tests/bench/memory_growth.sh build/dev/app/hnclip            (about 6 minutes on 2 cores)
#        tests/bench/memory_growth.sh build/dev/app/hnclip --epochs 3 --benchmark-size small
# Keeps the 1 Hz samples in $WORK/rss_samples.tsv (seconds since start, VmRSS kB).
set -euo pipefail
cd "$(dirname "$0")/../.."
HNCLIP=${1:-build/dev/app/hnclip}
shift || true
WORK=${WORK:-/tmp/hnclip-memory-growth}
rm -rf "$WORK" && mkdir -p "$WORK"
# The benchmark is generated before the measured run, so generation is not part of it.
size=default
for ((i = 1; i < $#; i++)); do
  if [[ ${!i} == --benchmark-size ]]; then j=$((i + 1)); size=${!j}; fi
done
"$HNCLIP" benchmark --benchmark-size "$size" --cache-dir "$WORK/cache" > /dev/null 2>&1

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

coproc TRAIN { exec "$HNCLIP" train --db "$WORK/runs.db" --cache-dir "$WORK/cache" "$@" 2>&1 >"$WORK/stdout.txt"; }
pid=$TRAIN_PID
start=$(date +%s)
(
  while kill -0 "$pid" 2>/dev/null; do
    printf '%s\t%s\n' "$(($(date +%s) - start))" "$(rss_kb "$pid")"
    sleep 1
  done
) > "$WORK/rss_samples.tsv" &
sampler=$!

declare -a epoch_rss=()
while IFS= read -r line <&"${TRAIN[0]}"; do
  printf '%s\n' "$line" >> "$WORK/stderr.txt"
  if [[ $line =~ ^epoch\ ([0-9]+)\ +test: ]]; then
    kb=$(rss_kb "$pid")
    epoch_rss[${BASH_REMATCH[1]}]=$kb
    printf 'epoch %2d end  VmRSS %8d kB  (%.1f MiB)\n' "${BASH_REMATCH[1]}" "$kb" \
      "$(awk -v k="$kb" 'BEGIN {print k / 1024}')"
  fi
done
wait "$pid"
wait "$sampler" || true

peak=$(awk -F'\t' '$2 > m {m = $2} END {print m + 0}' "$WORK/rss_samples.tsv")
echo "peak VmRSS (1 Hz samples) ${peak} kB"
last=$(( ${#epoch_rss[@]} ))
if (( last >= 3 )) && [[ -n ${epoch_rss[2]:-} ]]; then
  e2=${epoch_rss[2]}
  eN=${epoch_rss[$last]}
  awk -v a="$e2" -v b="$eN" -v n="$last" 'BEGIN {
    printf "growth end of epoch 2 -> end of epoch %d: %+d kB (%+.2f MiB, %+.2f%%)\n",
           n, b - a, (b - a) / 1024, 100 * (b - a) / a }'
else
  echo "fewer than 3 epochs: no growth figure"
fi
