#!/usr/bin/env bash
# Installs the dependencies, builds the release preset, and opens HN-CLIP Workbench on the built-in
# synthetic dense-caption benchmark, its form filled in for HN-CLIP fine-tuning (γ = 0.5,
# recomputed Ḡ, s = 100 fixed, 3 epochs) of the tiny model from the committed pretrained
# checkpoint: press Start (Ctrl+R) to train, on the CPU or a GPU when present.
#   packaging/demo.sh --headless [hnclip train flags]   runs the same fine-tuning in the terminal
#                                                       with the CLI and prints recall at the end
#                                                       (e.g. --gamma 0 for the plain-InfoNCE control).
set -euo pipefail
cd "$(dirname "$0")/.."
headless=0
if [ "${1:-}" = "--headless" ]; then headless=1; shift; fi
packaging/install-deps.sh --no-tests
cmake --preset release
cmake --build --preset release
if [ "$headless" -eq 1 ]; then
  exec build/release/app/hnclip train --init pretrained --gamma 0.5 --gbar recomputed \
    --fixed-scale --logit-scale 100 --lr 5e-5 --epochs 3 --name demo "$@"
fi
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "demo.sh: no display (DISPLAY/WAYLAND_DISPLAY unset); run 'packaging/demo.sh --headless'," \
       "or start it under a virtual one: xvfb-run -a packaging/demo.sh" >&2
  exit 2
fi
exec build/release/app/hnclip-workbench --config \
  '{"benchmark":"synthetic","benchmark_size":"default","init":"pretrained","loss_gamma":0.5,"loss_gbar":"recomputed","logit_scale":100,"fixed_scale":true,"lr":5e-5,"epochs":3,"name":"demo"}' "$@"
