#!/usr/bin/env bash
# Installs every Debian package HN-CLIP Workbench needs to build, run and test.
# Non-interactive and safe to rerun: apt-get skips what is already installed.
# Usage: packaging/install-deps.sh [--no-tests]
set -euo pipefail

with_tests=1
[ "${1:-}" = "--no-tests" ] && with_tests=0

sudo_cmd=""
if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi

build_pkgs=(
  cmake ninja-build g++ pkg-config
  libtorch-dev            # LibTorch 1.13, CPU
  libgloo-dev             # headers of Gloo, the CPU backend of LibTorch's c10d (data-parallel runs)
  libopenblas0-pthread    # optimised BLAS; without it LibTorch falls back to the ~57x slower reference BLAS
  libopencv-dev libsqlite3-dev nlohmann-json3-dev libcli11-dev
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libgl-dev
  zlib1g-dev              # gzip reader for the CLIP BPE vocabulary
  libutf8proc-dev         # NFC / NFKC of CLIP's ftfy-like caption cleaning
  libjpeg-dev libpng-dev  # JPEGs / PNGs decoded directly, so the libraries' warnings name the file
)
test_pkgs=(
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-torch python3-numpy python3-pil   # test-time references only, via /usr/bin/python3
  xvfb xauth imagemagick desktop-file-utils appstream
  clang libclang-rt-14-dev  # tests/fuzz: clang 14 and its libFuzzer / sanitizer runtimes
)

pkgs=("${build_pkgs[@]}")
[ "$with_tests" -eq 1 ] && pkgs+=("${test_pkgs[@]}")

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages already installed"
  exit 0
fi
echo "install-deps: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo_cmd apt-get update -qq
$sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
# The downloaded .deb files (about 1.5 GB with the test packages) are not needed once installed;
# on a small CI disk they were the difference between a build that fits and one that stops with
# "No space left on device".
$sudo_cmd apt-get clean
