#!/usr/bin/env bash
# The GPU step benchmark (issue 17 requirement 10): the workbench's fine-tuning step against the
# same step in the machine's PyTorch, eager and torch.compile, in one script on one GPU.
#
# It builds tests/bench/gpu_step.cpp with the LibTorch-only parts of the core (model, loss,
# autocast guard; tests/bench/gpu_step/sources.txt) against the LibTorch of the machine's PyTorch
# (CMAKE_PREFIX_PATH = torch.utils.cmake_prefix_path; when that CMake configuration fails, as it
# can for a pip wheel whose CUDA CMake files look for a toolkit layout the machine lacks, it
# compiles the same sources with the wheel's include and library folders directly). Then, on a
# CUDA device, it measures the device's bf16 matrix-product rate (8192³, the practical ceiling)
# and checks that the fused AdamW step gives torch::optim::AdamW's weights, and then runs,
# in interleaved rounds,
#   ours, fused  gpu_step: ViT-L/14, 248-token text tower, random weights, batch 128, bf16
#                autocast, AdamW stepped by at::_fused_adamw_ (the Trainer on LibTorch 2.x:
#                train/fused_adamw.h), the HN loss (γ = 0.5) in fp32; the base of the ratios
#   ours         the same with torch::optim::AdamW's own loop (the Trainer on LibTorch 1.13)
#   eager        tests/bench/train_step_peer.py gpu-time: the same model, batch and step in PyTorch
#   compile      the same with the forward (both towers and the loss) under torch.compile
# and prints images/s, TFLOP/s, the model FLOP utilisation (the FLOPs of the forward and backward
# of both towers as gpu_step counts them, stated in its output) against the data-sheet peak and
# against the measured matrix-product rate, our ratio to each peer, and where each side's step
# goes (forward, backward, optimiser; from a few extra steps synchronised between the phases).
# Everything goes to $HNCLIP_GPU_RESULTS (default build/gpu_step/results) as JSON, with
# summary.json the table's numbers and the machine, date and revision.
#
# Usage: tests/bench/gpu_step.sh [--preset P] [--context L] [--batch B] [--steps S] [--rounds R]
#                                [--device cuda|cuda:N|cpu] [--budget SECONDS]
#   --budget: start no new round after SECONDS (the rounds done so far are summarised).
# Environment: HNCLIP_GPU_PYTHON (default python3: the PyTorch to measure against and whose
# LibTorch is built against), HNCLIP_PEAK_TFLOPS (the device's dense bf16 peak; default from the
# GPU's name for the ones listed below), HNCLIP_JOBS (build jobs), HNCLIP_GPU_RESULTS,
# HNCLIP_NLOHMANN_JSON_INCLUDE_DIR (where nlohmann/json.hpp is, if not installed), HNCLIP_REVISION
# (the revision to record when the tree has no .git), HNCLIP_GPU_BUILD=direct (skip CMake and
# build with the wheel's folders directly).
# Needs: cmake (or only a C++17 compiler for the direct build), nlohmann-json headers.
# `--device cpu --preset tiny` is a smoke run of the whole script.
set -euo pipefail
cd "$(dirname "$0")/../.."

preset=ViT-L/14 context=248 batch=128 steps=10 rounds=3 device=cuda warmup=3 budget=0
while [ $# -gt 0 ]; do
  case "$1" in
    --preset) preset=$2; shift 2 ;;
    --context) context=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    *) echo "gpu_step.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
PY=${HNCLIP_GPU_PYTHON:-python3}
results=${HNCLIP_GPU_RESULTS:-build/gpu_step/results}
rm -rf "$results"
mkdir -p "$results"
jobs=${HNCLIP_JOBS:-$(nproc)}
t_start=$(date +%s)

prefix=$("$PY" -c 'import torch; print(torch.utils.cmake_prefix_path)')
torch_version=$("$PY" -c 'import torch; print(torch.__version__)')
torch_major=${torch_version%%.*}
echo "gpu_step.sh: PyTorch $torch_version ($PY), LibTorch from $prefix"

# The build without CMake: the wheel's include folders, its lib/ folder (libtorch_cuda linked
# even though nothing names its symbols: it registers the CUDA kernels when loaded) and its ABI.
direct_build() {
  local info inc lib abi out=build/gpu_step/direct
  info=$("$PY" - <<'EOF'
import os, torch
# The folders torch.utils.cpp_extension.include_paths() names, without importing it (it needs
# setuptools).
base = os.path.dirname(torch.__file__)
print(os.path.join(base, "include") + ":" + os.path.join(base, "include", "torch", "csrc", "api", "include"))
print(os.path.join(base, "lib"))
print(int(torch._C._GLIBCXX_USE_CXX11_ABI))
EOF
)
  inc=$(sed -n 1p <<<"$info"); lib=$(sed -n 2p <<<"$info"); abi=$(sed -n 3p <<<"$info")
  local flags=(-std=c++17 -O2 -DNDEBUG -D_GLIBCXX_USE_CXX11_ABI="$abi" -Icore)
  local d
  IFS=: read -r -a dirs <<<"$inc"
  for d in "${dirs[@]}"; do flags+=(-isystem "$d"); done
  [ -n "${HNCLIP_NLOHMANN_JSON_INCLUDE_DIR:-}" ] && flags+=(-isystem "$HNCLIP_NLOHMANN_JSON_INCLUDE_DIR")
  mkdir -p "$out"
  local objs=() pids=() s o
  # One compiler per source, $jobs at a time.
  while read -r s; do
    [ -n "$s" ] || continue
    o="$out/$(basename "${s%.cpp}").o"
    objs+=("$o")
    "${CXX:-c++}" "${flags[@]}" -c "$s" -o "$o" &
    pids+=($!)
    if [ "${#pids[@]}" -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  done <tests/bench/gpu_step/sources.txt
  for s in "${pids[@]}"; do wait "$s"; done
  local libs=(-L"$lib" -Wl,-rpath,"$lib")
  if [ -e "$lib/libtorch_cuda.so" ]; then
    libs+=(-Wl,--no-as-needed -ltorch_cuda -lc10_cuda -Wl,--as-needed)
  fi
  "${CXX:-c++}" "${objs[@]}" "${libs[@]}" -ltorch -ltorch_cpu -lc10 -lpthread -o build/gpu_step/gpu_step
}

build_log=build/gpu_step/configure.log
mkdir -p build/gpu_step
json_arg=()
[ -n "${HNCLIP_NLOHMANN_JSON_INCLUDE_DIR:-}" ] &&
  json_arg=(-DNLOHMANN_JSON_INCLUDE_DIR="$HNCLIP_NLOHMANN_JSON_INCLUDE_DIR")
build_how="CMake (find_package(Torch))"
built=1
if [ "${HNCLIP_GPU_BUILD:-cmake}" = direct ]; then
  build_how="direct (the wheel's include and lib folders; HNCLIP_GPU_BUILD=direct)"
  direct_build || built=0
elif cmake -S tests/bench/gpu_step -B build/gpu_step -DCMAKE_BUILD_TYPE=Release \
       -DCMAKE_PREFIX_PATH="$prefix" "${json_arg[@]}" >"$build_log" 2>&1 &&
     cmake --build build/gpu_step -j "$jobs" >>"$build_log" 2>&1; then
  :
else
  echo "gpu_step.sh: the CMake build against $prefix failed (last lines of $build_log below);"
  echo "             building with the wheel's folders directly instead"
  tail -n 25 "$build_log" | sed 's/^/    /'
  build_how="direct (the wheel's include and lib folders; the CMake build failed)"
  direct_build || built=0
fi
if [ "$built" = 0 ]; then
  echo "gpu_step.sh: BUILD FAILED: only the PyTorch sides are measured"
  build_how="failed"
fi
echo "gpu_step.sh: built in $(( $(date +%s) - t_start )) s, $build_how"

# Dense bf16 tensor-core peaks (vendor data sheets, TFLOP/s, without sparsity).
peak=${HNCLIP_PEAK_TFLOPS:-}
gpu_name=""
if [ "${device%%:*}" = cuda ] && command -v nvidia-smi >/dev/null; then
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  if [ -z "$peak" ]; then
    case "$gpu_name" in
      *H200* | *H100*SXM* | *"H100 80GB HBM3"*) peak=989 ;;
      *H100*PCIe* | *"H100 PCIe"*) peak=756 ;;
      *A100*) peak=312 ;;
      *L40S*) peak=362 ;;
      *A10G*) peak=70 ;;
      *) peak="" ;;
    esac
  fi
fi
echo "gpu_step.sh: device $device ${gpu_name:+($gpu_name) }data-sheet peak ${peak:-unknown} TFLOP/s bf16"

# The practical ceiling: an 8192³ bf16 matrix product on random data, median of 20 after warm-up.
ceiling=0
if [ "${device%%:*}" = cuda ]; then
  ceiling=$("$PY" - "$device" <<'EOF'
import statistics, sys, torch
dev = torch.device(sys.argv[1])
n = 8192
a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
for _ in range(5):
    a @ b
ms = []
for _ in range(20):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); a @ b; e.record(); torch.cuda.synchronize(dev)
    ms.append(s.elapsed_time(e))
print(f"{2 * n ** 3 / statistics.median(ms) / 1e9:.1f}")
EOF
)
  echo "gpu_step.sh: measured bf16 matrix-product rate (8192³, median of 20): $ceiling TFLOP/s"
fi

fused=0
fused_check="not run (LibTorch < 2.0 or not on CUDA)"
if [ "$built" = 1 ] && [ "$torch_major" -ge 2 ] 2>/dev/null && [ "${device%%:*}" = cuda ]; then
  if fused_check=$(build/gpu_step/gpu_step --check-fused-adamw --device "$device"); then
    fused=1
  fi
  echo "gpu_step.sh: $fused_check"
fi

has_compile=$("$PY" -c 'import torch; print(int(hasattr(torch, "compile")))')
done_rounds=0
# run_side NAME COMMAND...: the command prints its JSON report on stdout; a side that fails is
# reported and left out of the table. run_ours NAME ARGS...: gpu_step, its report to NAME.json.
run_side() {
  local name=$1; shift
  local t0=$(date +%s)
  if "$@" >"$results/$name.json" 2>"$results/$name.err"; then
    echo "  $name: $(( $(date +%s) - t0 )) s"
  else
    echo "  $name: FAILED (exit $?; $results/$name.err):"; tail -n 15 "$results/$name.err" | sed 's/^/    /'
    rm -f "$results/$name.json"
  fi
}
run_ours() {
  local name=$1; shift
  local t0=$(date +%s)
  if build/gpu_step/gpu_step "$@" --json "$results/$name.json" >"$results/$name.log" 2>&1; then
    echo "  $name: $(( $(date +%s) - t0 )) s: $(head -n 1 "$results/$name.log")"
  else
    echo "  $name: FAILED (exit $?):"; tail -n 15 "$results/$name.log" | sed 's/^/    /'
    rm -f "$results/$name.json"
  fi
}
for r in $(seq 1 "$rounds"); do
  if [ "$budget" -gt 0 ] && [ $(( $(date +%s) - t_start )) -ge "$budget" ]; then
    echo "gpu_step.sh: --budget $budget s reached; $done_rounds rounds done"
    break
  fi
  echo "gpu_step.sh: round $r of $rounds ($(( $(date +%s) - t_start )) s)"
  ours=(--preset "$preset" --context "$context" --batch "$batch" --warmup "$warmup"
        --steps "$steps" --device "$device" ${peak:+--peak-tflops "$peak"})
  if [ "$built" = 1 ]; then run_ours "ours_$r" "${ours[@]}"; fi
  if [ "$fused" = 1 ]; then run_ours "fused_$r" "${ours[@]}" --optimizer fused; fi
  run_side "eager_$r" "$PY" tests/bench/train_step_peer.py gpu-time "$preset" "$context" "$batch" \
    0.5 "$warmup" "$steps" "$device" eager
  if [ "$has_compile" = 1 ]; then
    # torch.compile's first steps compile: a longer warm-up, not timed.
    run_side "compile_$r" "$PY" tests/bench/train_step_peer.py gpu-time "$preset" "$context" \
      "$batch" 0.5 $((warmup + 5)) "$steps" "$device" compile
  fi
  done_rounds=$r
done

revision=${HNCLIP_REVISION:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
"$PY" - "$results" "$batch" "${peak:-0}" "$ceiling" "$preset" "$context" "$device" \
  "${gpu_name:-}" "$torch_version" "$revision" "$build_how" "$fused_check" <<'EOF'
import datetime, glob, json, os, re, statistics, sys
(results, batch, peak, ceiling, preset, context, device, gpu, torch_version, revision, build_how,
 fused_check) = sys.argv[1:]
batch, peak, ceiling = int(batch), float(peak), float(ceiling)

def load(prefix):
    out = []
    for f in sorted(glob.glob(f"{results}/{prefix}_*.json")):
        out.append(json.load(open(f)))
    return out

# On LibTorch 2.x the Trainer steps with the fused kernel (train/fused_adamw.h): that side is the
# base of the ratios when it ran, else the loop.
fused, loop = load("fused"), load("ours")
sides = [("ours, at::_fused_adamw_ (the Trainer on LibTorch 2.x)", fused),
         ("ours, torch::optim::AdamW's loop (the Trainer on LibTorch 1.13)", loop),
         ("PyTorch eager", load("eager")),
         ("PyTorch torch.compile", load("compile"))]
sides = [(n, f) for n, f in sides if f]
if not sides:
    sys.exit("gpu_step.sh: no side finished a round; nothing to summarise")
ours = fused or loop
flops = ours[0]["flops_per_step"] if ours else float("nan")  # gpu_step counts them

def med(files):
    per_round = [statistics.median(f["step_seconds"]) for f in files]
    return statistics.median(per_round), min(per_round), max(per_round)

ours_s = med(ours)[0] if ours else float("nan")
summary = {"machine": gpu or device, "torch": torch_version, "revision": revision,
           "date": f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
           "preset": preset, "context": int(context), "batch": batch, "build": build_how,
           "flops_per_step": flops, "peak_tflops": peak, "measured_matmul_tflops": ceiling,
           "fused_adamw_check": fused_check, "sides": {}}
print(f"\nmodel FLOPs per step: {flops:.4g} (forward + backward of both towers, gpu_step's count); "
      f"data-sheet peak {peak or '–'} TFLOP/s, measured 8192³ bf16 product {ceiling or '–'} TFLOP/s")
print("| side | rounds | s / step (median; rounds min–max) | images/s | TFLOP/s | MFU (data sheet) "
      "| of the measured product rate | ours / side (steps/s) |")
print("|---|---|---|---|---|---|---|---|")
for name, files in sides:
    m, lo, hi = med(files)
    tf = flops / m / 1e12
    mfu = f"{100 * tf / peak:.1f}%" if peak > 0 else "–"
    of_ceiling = f"{100 * tf / ceiling:.1f}%" if ceiling > 0 else "–"
    print(f"| {name} | {len(files)} | {m:.4f} ({lo:.4f}–{hi:.4f}) | {batch / m:.1f} | {tf:.1f} | "
          f"{mfu} | {of_ceiling} | {m / ours_s:.3f}× |")
    phases = {k: statistics.median([x for f in files for x in f["phase_seconds"][k]])
              for k in ("forward", "backward", "optimizer")}
    summary["sides"][name] = {
        "rounds": len(files), "median_s": m, "min_s": lo, "max_s": hi,
        "images_per_second": batch / m, "tflops": tf,
        "mfu": tf / peak if peak > 0 else None, "ours_over_side": m / ours_s,
        "first_step_seconds": [f["first_step_seconds"] for f in files],
        "phase_median_s": phases,
        "peak_memory_bytes": [f.get("peak_memory_bytes") for f in files]}
print("\nWhere a step goes (median over the synchronised extra steps of every round, seconds):")
print("| side | forward (both towers + loss) | backward | optimiser | first step (warm-up, compile) |")
print("|---|---|---|---|---|")
for name, s in summary["sides"].items():
    p = s["phase_median_s"]
    print(f"| {name} | {p['forward']:.4f} | {p['backward']:.4f} | {p['optimizer']:.4f} | "
          f"{statistics.median(s['first_step_seconds']):.2f} |")
json.dump(summary, open(f"{results}/summary.json", "w"), indent=2)
print(f"\n{results}/summary.json")
EOF
