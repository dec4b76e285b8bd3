#!/usr/bin/env bash
# Installs every dependency (Debian packages), builds everything with tests, runs all tests and
# the fuzz targets.
# This is the README's test command and what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake --preset dev
cmake --build --preset dev
ctest --preset dev -j 2
# libFuzzer targets of the byte parsers (tokenizer, manifests, DCI JSON, pickle, zip, safetensors):
# a clang build of their own in build/fuzz, then 20 s each from the seed corpora.
tests/fuzz/run.sh 20
