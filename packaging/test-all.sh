#!/usr/bin/env bash
# Installs every dependency (Debian packages), builds everything with tests, runs all tests and
# the fuzz targets.
# This is the README's test command and what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
# The dev build with its tests takes about 0.9 GB (855 MB: du -sh build/dev after a full build on
# Debian 12; -O2 without debug info — with -g it took 11 GB, and a CI disk ran out at step 56),
# before the fuzz build: said up front, so a short disk reads as one clear line instead of a
# compiler's "No space left on device" halfway through.
free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
if [ "${free_kb:-0}" -lt $((2 * 1024 * 1024)) ] && [ ! -d build/dev ]; then
  echo "packaging/test-all.sh: only $((free_kb / 1024)) MB free under $PWD; the build and tests" \
       "need about 2 GB — expect it to fail for lack of space" >&2
fi
cmake --preset dev
cmake --build --preset dev
ctest --preset dev -j 2
# libFuzzer targets of the byte parsers (tokenizer, manifests, DCI JSON, pickle, zip, safetensors):
# a clang build of their own in build/fuzz, then 20 s each from the seed corpora.
tests/fuzz/run.sh 20
