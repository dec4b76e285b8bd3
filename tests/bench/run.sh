#!/usr/bin/env bash
# The performance suite's one entry point (issue 17): builds the benchmarks in Release
# (build/bench, the core and the benchmark programs only), runs every comparison against its peer
# with warm-up and repeated, interleaved rounds, prints one table — what, ours, peer, ratio,
# target, met or missed — and writes it with the machine, the date and the git revision to
# docs/PERFORMANCE.md. Never part of the test command: a benchmark decides no pass or fail, but a
# benchmark whose two sides compute different things stops here with an error.
#
# Usage: tests/bench/run.sh [--quick]
#   --quick   fewer rounds and steps (a smoke run of the suite; its table is not for the docs,
#             so it is printed but docs/PERFORMANCE.md is left alone)
# Environment: HNCLIP_JOBS (build jobs, default 2), HNCLIP_BENCH_BUILD (default build/bench),
# HNCLIP_BENCH_THREADS (LibTorch threads of both sides, default 2), HNCLIP_BENCH_WORK (scratch
# folder, default a fresh temporary one, removed at the end), HNCLIP_BENCH_BUILD_TYPE (default
# Release), HNCLIP_BENCH_ROUNDS (rounds of the ViT-B/32 step and the retrieval, default 3; the
# tiny step and the loader always run 5, the geometry 3).
# Measured on the 2-core development machines, build/dev already built: 26 minutes on an Intel
# Xeon VM, 49-53 minutes on an AMD EPYC VM (61 since the ViT-B/32 step has a third peer); half
# of it or more the ViT-B/32 steps.
set -euo pipefail
cd "$(dirname "$0")/../.."
quick=0
[ "${1:-}" = "--quick" ] && quick=1
BUILD=${HNCLIP_BENCH_BUILD:-build/bench}
JOBS=${HNCLIP_JOBS:-2}
THREADS=${HNCLIP_BENCH_THREADS:-2}
PY=/usr/bin/python3   # Debian's, with python3-torch: the peer (the python3 first on PATH may differ)

# faiss is the retrieval benchmark's peer and nothing else's (the workbench never links it).
if ! dpkg -s libfaiss-dev >/dev/null 2>&1; then
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
  $sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libfaiss-dev
fi
# Its own folder is configured without the GUI (the benchmarks need none); a folder named by
# HNCLIP_BENCH_BUILD that is already configured keeps its own settings and only gains the
# benchmarks (so pointing it at build/dev does not switch the workbench off there).
if [ -n "${HNCLIP_BENCH_BUILD:-}" ] && [ -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD" -DHNCLIP_BUILD_TESTS=ON -DHNCLIP_BUILD_BENCH=ON >/dev/null
else
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE="${HNCLIP_BENCH_BUILD_TYPE:-Release}" -DHNCLIP_BUILD_GUI=OFF \
    -DHNCLIP_BUILD_TESTS=ON -DHNCLIP_BUILD_BENCH=ON >/dev/null
fi
cmake --build "$BUILD" -j "$JOBS" --target train_step_vs_pytorch retrieval_vs_faiss caption_geometry_scale \
  preprocess_throughput quick_gelu_vs_written_out hnclip

WORK=${HNCLIP_BENCH_WORK:-$(mktemp -d /tmp/hnclip-bench.XXXXXX)}
mkdir -p "$WORK"
[ -z "${HNCLIP_BENCH_WORK:-}" ] && trap 'rm -rf "$WORK"' EXIT
step="$BUILD/tests/train_step_vs_pytorch"
# bench NAME JSON COMMAND...: runs one benchmark; if it fails (a mismatch with its peer is a
# failure), its JSON says so and the table shows the row as failed, the others still run, and
# run.sh exits 1 at the end.
failed=0
bench() {
  local name="$1" json="$2"
  shift 2
  local rc=0
  "$@" || rc=$?
  if [ "$rc" != 0 ]; then
    echo "run.sh: $name failed (exit $rc)" >&2
    printf '{"failed": "%s", "exit": %d}\n' "$name" "$rc" > "$json"
    failed=1
  fi
}
if [ "$quick" = 1 ]; then
  tiny=(--warmup 1 --steps 5 --reps 1); b32=(--warmup 1 --steps 1 --reps 1)
  retrieval=(--queries 20000 --candidates 20000 --reps 1); geometry=(--captions 10000 --reps 1)
  loader=(--images 64 --repeats 1); size=small; gelu=(--rounds 3 --reps 2)
else
  rounds=${HNCLIP_BENCH_ROUNDS:-3}
  tiny=(--warmup 2 --steps 10 --reps 5); b32=(--warmup 1 --steps 2 --reps "$rounds")
  retrieval=(--queries 100000 --candidates 100000 --reps "$rounds"); geometry=(--captions 50000 --reps 3)
  loader=(--images 512 --repeats 5); size=default; gelu=(--rounds 7 --reps 5)
fi
# The probe's cost is measured on the tiny step (whose 10 timed steps hold two probed ones) and in
# the real runs below; ViT-B/32's few steps would hold none.
b32+=(--configs ours_hn,ours_plain,ours_frozen,ours_hn_aa,ours_hn_bf16,peer_hn,peer_hn_blas1,peer_hn_same_settings,peer_hn_pooled_rows)
# Requirements 2-4 and 8: the training step against PyTorch, the margins' and the probe's overhead,
# and bf16 autocast against fp32 (requirement 8's speed half; its recall half is in the README).
bench "training step, tiny" "$WORK/train_step_tiny.json" \
  "$step" --preset tiny --batch 128 --context 96 --vocab 1000 --threads "$THREADS" "${tiny[@]}" \
  --python "$PY" --work "$WORK/tiny" --json "$WORK/train_step_tiny.json"
bench "training step, ViT-B/32" "$WORK/train_step_vit_b32.json" \
  "$step" --preset ViT-B/32 --batch 32 --context 248 --vocab 49408 --threads "$THREADS" "${b32[@]}" \
  --python "$PY" --work "$WORK/vit_b32" --json "$WORK/train_step_vit_b32.json"

# Requirement 11's before and after for one change inside the step (cdcdcd8): the MLP's QuickGELU
# as one autograd function against the written-out form it replaced, which the peer runs — fp32,
# and bf16 (where LibTorch 1.13 keeps the written-out form: the table then shows an A/A pair).
for dtype in float bf16; do
  bench "QuickGELU vs written out, $dtype" "$WORK/quick_gelu_$dtype.json" \
    "$BUILD/tests/quick_gelu_vs_written_out" --dtype "$dtype" --threads "$THREADS" "${gelu[@]}" \
    --json "$WORK/quick_gelu_$dtype.json"
done

# Requirement 6: retrieval at scale against faiss IndexFlatIP.
bench "retrieval vs faiss" "$WORK/retrieval.json" \
  "$BUILD/tests/retrieval_vs_faiss" --dim 512 --threads "$THREADS" "${retrieval[@]}" \
  --json "$WORK/retrieval.json"
# Requirement 7: caption geometry at 50,000 captions.
bench "caption geometry" "$WORK/geometry.json" \
  "$BUILD/tests/caption_geometry_scale" --dim 512 --threads "$THREADS" "${geometry[@]}" \
  --json "$WORK/geometry.json"

# Requirement 5: images decoded and preprocessed per CPU-second (640x480 JPEGs to 224) against
# Pillow + torch; then, with requirement 4, a real run as the CLI trains it (the built-in
# benchmark, the committed start, 1 epoch, --probe-every 5): the share of training time spent
# waiting for batches and in probes, for gamma 0 and 0.5.
real_run() {
  "$BUILD/tests/preprocess_throughput" --n-px 224 "${loader[@]}" | tee "$WORK/loader.txt"
  # The built-in benchmark's 48x48 PNGs, preprocessed for the tiny preset's 48-pixel input.
  "$BUILD/tests/preprocess_throughput" --source builtin --n-px 48 "${loader[@]}" | tee "$WORK/loader_png.txt"
  for gamma in 0 0.5; do
    "$BUILD/app/hnclip" train --benchmark-size "$size" --epochs 1 --gamma "$gamma" --probe-every 5 \
      --threads "$THREADS" --json --db "$WORK/runs.db" --cache-dir "$WORK/cache" \
      > "$WORK/run_gamma$gamma.json"
  done
  /usr/bin/python3 - "$WORK" > "$WORK/real_run.json" <<'PY'
import json, sys
work = sys.argv[1]
out = {"real_run": {}}
for name, suffix in (("loader.txt", ""), ("loader_png.txt", "_png")):
    for line in open(f"{work}/{name}"):
        if line.startswith("cpp_batch_loader workers 1:"):
            out["loader_ours" + suffix] = float(line.split(",")[1].split()[0])
        elif line.startswith("python_pillow_torch"):
            out["loader_peer" + suffix] = float(line.split(",")[1].split()[0])
        elif line.startswith("ratio per round, cpp (1 worker) / python, CPU:"):
            out["loader_ratio_rounds" + suffix] = [float(x) for x in line.split(":")[1].split()]
for g in ("0", "0.5"):
    out["real_run"][g] = json.load(open(f"{work}/run_gamma{g}.json"))
print(json.dumps(out))
PY
}
bench "loader and a real run" "$WORK/real_run.json" real_run
rev="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
[ -n "$(git status --porcelain 2>/dev/null)" ] && rev="$rev (with uncommitted changes)"
table="$WORK/PERFORMANCE.md"
"$PY" tests/bench/performance_table.py "$rev" "$WORK/real_run.json" "$WORK/retrieval.json" "$WORK/geometry.json" \
  "$WORK/train_step_tiny.json" "$WORK/train_step_vit_b32.json" "$WORK/quick_gelu_float.json" \
  "$WORK/quick_gelu_bf16.json" > "$table"
cat "$table"
if [ "$quick" = 0 ]; then
  cp "$table" docs/PERFORMANCE.md
  # The reports the table was made from, committed beside it (as gpu_step.json is): every figure
  # can be looked up, and the table re-rendered (performance_table.py with HNCLIP_BENCH_DATE)
  # without rerunning the suite.
  mkdir -p docs/perf/cpu
  cp "$WORK/real_run.json" "$WORK/retrieval.json" "$WORK/geometry.json" \
    "$WORK/train_step_tiny.json" "$WORK/train_step_vit_b32.json" "$WORK/quick_gelu_float.json" \
    "$WORK/quick_gelu_bf16.json" docs/perf/cpu/
  echo "run.sh: wrote docs/PERFORMANCE.md and its reports, docs/perf/cpu/*.json" >&2
fi
exit "$failed"
