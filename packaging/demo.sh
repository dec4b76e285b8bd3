#!/usr/bin/env bash
# Installs the dependencies, builds, and runs the built-in demo: HN-CLIP fine-tuning of the tiny
# model on the built-in synthetic dense-caption benchmark, from the committed pretrained
# checkpoint, on the CPU (or a GPU when present), printing recall at the end.
# The GUI does not exist yet, so the demo is headless; `--headless` is accepted for the day it does.
# Extra arguments go to `hnclip train` (e.g. --gamma 0 for the plain-InfoNCE control).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = "--headless" ] && shift
packaging/install-deps.sh --no-tests
cmake --preset release
cmake --build --preset release
exec build/release/app/hnclip train --init pretrained --gamma 0.5 --gbar recomputed \
  --fixed-scale --logit-scale 100 --lr 5e-5 --epochs 3 --name demo "$@"
