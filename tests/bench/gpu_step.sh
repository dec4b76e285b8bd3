#!/usr/bin/env bash
# The GPU step benchmark (issue 17 requirement 10): the workbench's fine-tuning step against the
# same step in the machine's PyTorch, eager and torch.compile, in one script on one GPU.
#
# It builds tests/bench/gpu_step.cpp with the LibTorch-only parts of the core (model, loss,
# autocast guard; tests/bench/gpu_step/CMakeLists.txt) against the LibTorch of the machine's
# PyTorch (CMAKE_PREFIX_PATH = torch.utils.cmake_prefix_path), then runs, in interleaved rounds,
#   ours     gpu_step: ViT-L/14, 248-token text tower, random weights, batch 128, bf16 autocast,
#            AdamW, the HN loss (γ = 0.5) in fp32
#   eager    tests/bench/train_step_peer.py gpu-time: the same model, batch and step in PyTorch
#   compile  the same with torch.compile
# and prints images/s, the model FLOP utilisation (the FLOPs of the forward and backward of both
# towers as gpu_step counts them, stated in its output) and our ratio to each peer. The results
# go to $OUT (default build/gpu_step/results) as JSON; put the table in docs/PERFORMANCE.md by hand
# with the machine it ran on.
#
# Usage: tests/bench/gpu_step.sh [--preset P] [--context L] [--batch B] [--steps S] [--rounds R]
#                                [--device cuda|cuda:N|cpu]
# Environment: HNCLIP_GPU_PYTHON (default python3: the PyTorch to measure against and whose
# LibTorch is built against), HNCLIP_PEAK_TFLOPS (the device's dense bf16 peak; default from the
# GPU's name for the ones listed below), HNCLIP_JOBS (build jobs), OUT.
# Needs: cmake, a C++17 compiler, nlohmann-json headers, and for a CUDA LibTorch the CUDA toolkit
# its CMake config looks for. `--device cpu --preset tiny` is a smoke run of the whole script.
set -euo pipefail
cd "$(dirname "$0")/../.."

preset=ViT-L/14 context=248 batch=128 steps=10 rounds=3 device=cuda warmup=3
while [ $# -gt 0 ]; do
  case "$1" in
    --preset) preset=$2; shift 2 ;;
    --context) context=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    *) echo "gpu_step.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
PY=${HNCLIP_GPU_PYTHON:-python3}
OUT=${OUT:-build/gpu_step/results}
mkdir -p "$OUT"

prefix=$("$PY" -c 'import torch; print(torch.utils.cmake_prefix_path)')
torch_version=$("$PY" -c 'import torch; print(torch.__version__)')
echo "gpu_step.sh: PyTorch $torch_version ($PY), LibTorch from $prefix"
cmake -S tests/bench/gpu_step -B build/gpu_step -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build build/gpu_step -j "${HNCLIP_JOBS:-$(nproc)}"

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
echo "gpu_step.sh: device $device ${gpu_name:+($gpu_name) }peak ${peak:-unknown} TFLOP/s bf16"

has_compile=$("$PY" -c 'import torch; print(int(hasattr(torch, "compile")))')
for r in $(seq 1 "$rounds"); do
  build/gpu_step/gpu_step --preset "$preset" --context "$context" --batch "$batch" \
    --warmup "$warmup" --steps "$steps" --device "$device" ${peak:+--peak-tflops "$peak"} \
    --json "$OUT/ours_$r.json"
  "$PY" tests/bench/train_step_peer.py gpu-time "$preset" "$context" "$batch" 0.5 "$warmup" \
    "$steps" "$device" eager >"$OUT/eager_$r.json"
  if [ "$has_compile" = 1 ]; then
    # torch.compile's first steps compile: a longer warm-up, not timed.
    "$PY" tests/bench/train_step_peer.py gpu-time "$preset" "$context" "$batch" 0.5 \
      $((warmup + 5)) "$steps" "$device" compile >"$OUT/compile_$r.json"
  fi
done

"$PY" - "$OUT" "$rounds" "$batch" "${peak:-0}" "$has_compile" <<'EOF'
import json, statistics, sys
out, rounds, batch, peak, has_compile = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5] == "1"
ours = [json.load(open(f"{out}/ours_{r}.json")) for r in range(1, rounds + 1)]
flops = ours[0]["flops_per_step"]
def med(files, key="step_seconds"):
    per_round = [statistics.median(f[key]) for f in files]
    return statistics.median(per_round), min(per_round), max(per_round)
sides = {"ours (LibTorch, gpu_step)": ours}
sides["PyTorch eager"] = [json.load(open(f"{out}/eager_{r}.json")) for r in range(1, rounds + 1)]
if has_compile:
    sides["PyTorch torch.compile"] = [json.load(open(f"{out}/compile_{r}.json")) for r in range(1, rounds + 1)]
ours_s = med(ours)[0]
print(f"model FLOPs per step: {flops:.4g} (forward + backward of both towers, gpu_step's count)")
print("| side | s / step (median; rounds min–max) | images/s | TFLOP/s | MFU | ours / side (steps/s) |")
print("|---|---|---|---|---|---|")
for name, files in sides.items():
    m, lo, hi = med(files)
    tf = flops / m / 1e12
    mfu = f"{100 * tf / peak:.1f}%" if peak > 0 else "–"
    print(f"| {name} | {m:.4f} ({lo:.4f}–{hi:.4f}) | {batch / m:.1f} | {tf:.1f} | {mfu} | {m / ours_s:.3f}× |")
summary = {name: {"median_s": med(files)[0], "images_per_second": batch / med(files)[0]} for name, files in sides.items()}
summary["flops_per_step"] = flops
json.dump(summary, open(f"{out}/summary.json", "w"), indent=2)
EOF
