#!/usr/bin/env bash
# Builds the libFuzzer targets in build/fuzz (clang, ASan + UBSan, no GUI, no tests) and runs each
# for SECONDS (default 30) from a scratch copy of its seed corpus (tests/fuzz/corpus/<target>/ is
# never written). Exits 1 if any target found something, naming the target and the input that
# reproduces it (replay: build/fuzz/tests/fuzz/<target> <file>). CI runs it as `run.sh 30`.
# Usage: tests/fuzz/run.sh [SECONDS] [TARGET...]
#   HNCLIP_FUZZ_BUILD_JOBS  parallel compile jobs (default 2)
#   HNCLIP_FUZZ_JOBS        targets fuzzed at once (default: the number of cores)
#   HNCLIP_FUZZ_BUILD_DIR   build folder (default build/fuzz)
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds="${1:-30}"
shift || true
all_targets=(fuzz_clip_bpe_tokenizer fuzz_manifest_reader fuzz_dci_json fuzz_torch_unpickler
             fuzz_state_dict_zip fuzz_safetensors_header)
targets=("${all_targets[@]}")
[ "$#" -gt 0 ] && targets=("$@")

# The dictionary of each target (tests/fuzz/dict/); libFuzzer takes one, so the manifest target
# gets the JSON one merged with the CSV one.
dict_of() {
  case "$1" in
    fuzz_clip_bpe_tokenizer) echo tests/fuzz/dict/tokenizer.dict ;;
    fuzz_manifest_reader) echo "$scratch/manifest.dict" ;;
    fuzz_dci_json | fuzz_safetensors_header) echo tests/fuzz/dict/json.dict ;;
    fuzz_torch_unpickler) echo tests/fuzz/dict/pickle.dict ;;
    fuzz_state_dict_zip) echo tests/fuzz/dict/zip.dict ;;
  esac
}

build="${HNCLIP_FUZZ_BUILD_DIR:-build/fuzz}"
start=$(date +%s)
nice -n 19 cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHNCLIP_BUILD_GUI=OFF -DHNCLIP_BUILD_TESTS=OFF \
  -DHNCLIP_BUILD_FUZZ=ON >/dev/null
nice -n 19 cmake --build "$build" --target "${targets[@]}" -j "${HNCLIP_FUZZ_BUILD_JOBS:-2}"
echo "fuzz: built in $(($(date +%s) - start)) s"

scratch="$build/run"
rm -rf "$scratch"
mkdir -p "$scratch/tmp"
cat tests/fuzz/dict/json.dict tests/fuzz/dict/csv.dict >"$scratch/manifest.dict"
# The file-reading targets' per-process scratch folders go here too.
export TMPDIR="$(cd "$scratch/tmp" && pwd)"
# A sanitizer report aborts the run and is kept as a crash file; leaks count as findings.
asan_options="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0"

# libFuzzer runs one process on one core, so the targets run HNCLIP_FUZZ_JOBS at a time (default:
# the machine's cores): each still gets its SECONDS of a whole core, and CI's 2 cores finish the
# six targets in half the time.
fuzz_one() {
  local t="$1" corpus="$scratch/corpus/$1" artifacts="$scratch/findings/$1" options="$asan_options"
  mkdir -p "$corpus" "$artifacts"
  cp tests/fuzz/corpus/"$t"/* "$corpus"/
  # LibTorch's own leak (lsan.supp) is recognised only in a full stack: slower, that target only.
  [ "$t" = fuzz_state_dict_zip ] && options="$options:fast_unwind_on_malloc=0"
  local rc=0
  # -timeout: an input that takes 10 s is a finding (a hang); -rss_limit_mb: LibTorch + ASan.
  ASAN_OPTIONS="$options" nice -n 19 "$build/tests/fuzz/$t" "$corpus" -dict="$(dict_of "$t")" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" >"$scratch/$t.log" 2>&1 || rc=$?
  echo "$rc" >"$scratch/$t.rc"
}

jobs="${HNCLIP_FUZZ_JOBS:-$(nproc)}"
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  echo "fuzz: $t for $seconds s (log $scratch/$t.log)"
  fuzz_one "$t" &
done
wait

failed=()
for t in "${targets[@]}"; do
  log="$scratch/$t.log"
  rc=$(cat "$scratch/$t.rc" 2>/dev/null || echo "no exit status")
  grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 | sed "s/^/fuzz: $t: /" || true
  crashes=$(find "$scratch/findings/$t" -type f | sort)
  if [ "$rc" != 0 ] || [ -n "$crashes" ]; then
    echo "fuzz: FINDING in $t (exit $rc); reproduce with $build/tests/fuzz/$t <file>:" >&2
    for c in $crashes; do echo "fuzz:   $c" >&2; done
    grep -E 'ERROR: |runtime error:|SUMMARY:' "$log" | head -5 | sed 's/^/fuzz:   /' >&2 || true
    failed+=("$t")
  fi
done
echo "fuzz: total $(($(date +%s) - start)) s"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: no findings in ${#targets[@]} targets"
