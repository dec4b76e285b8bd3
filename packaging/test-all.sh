#!/usr/bin/env bash
# Installs every dependency (Debian packages), builds everything with tests, runs all tests.
# This is the README's test command and what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake --preset dev
cmake --build --preset dev
ctest --preset dev -j 2
