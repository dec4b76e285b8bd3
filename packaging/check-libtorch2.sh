#!/usr/bin/env bash
# Builds the project and its tests against LibTorch 2.x and runs the core tests there.
#
# Why: GPU users build against an official LibTorch 2.x, while this machine (Debian 12) has
# LibTorch 1.13. Debian 13 "trixie" ships libtorch-dev 2.6 (with g++ 14, Qt 6.8, OpenCV 4.10), so
# a trixie root folder made with debootstrap gives a real 2.x build without touching the host.
# Too heavy for CI (a few GB of packages and a full build); run it by hand before a release or
# after touching code that calls LibTorch.
#
# Usage: packaging/check-libtorch2.sh [--core-only] [ROOT_DIR]
#   ROOT_DIR (or $HNCLIP_LIBTORCH2_ROOT) defaults to build/libtorch2-root in the repository
#   (build/ is git-ignored). An existing root is reused: only missing packages are installed and
#   the build folder inside it is kept, so a rerun rebuilds only what changed.
#   --core-only (or HNCLIP_LIBTORCH2_CORE_ONLY=1) builds the core, the CLI and the core tests
#   only, leaving out the GUI, the e2e tests and the widget tests (hours less on a small machine).
#   $HNCLIP_JOBS: parallel build jobs (default: nproc). $HNCLIP_DEBIAN_MIRROR: the mirror.
# Must run as root (debootstrap, chroot, mount). Exits non-zero when any step or test fails.
# Nothing outside the repository is read, apart from the Debian mirror (and the host's own
# debootstrap, which copies the host's resolv.conf so that apt works inside the root).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
core_only="${HNCLIP_LIBTORCH2_CORE_ONLY:-0}"
root_arg=""
for arg in "$@"; do
  case "$arg" in
    --core-only) core_only=1 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "check-libtorch2: unknown option $arg" >&2; exit 2 ;;
    *) root_arg="$arg" ;;
  esac
done
root="${root_arg:-${HNCLIP_LIBTORCH2_ROOT:-$repo/build/libtorch2-root}}"
mkdir -p "$(dirname "$root")"
root="$(cd "$(dirname "$root")" && pwd)/$(basename "$root")"
mirror="${HNCLIP_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
jobs="${HNCLIP_JOBS:-$(nproc)}"

if [ "$(id -u)" -ne 0 ]; then
  echo "check-libtorch2: needs root (debootstrap, chroot, mount)" >&2
  exit 2
fi

t_start=$(date +%s)
phase() { echo; echo "=== check-libtorch2: $* ($(( $(date +%s) - t_start )) s)"; }

# Runs a command inside the root with a clean environment: nothing of the host's shell leaks in.
in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
    PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin "$@"
}

# /proc inside the root (LibTorch and ctest read /proc/self and /proc/cpuinfo), unmounted on every
# exit so that no mount of the host outlives the script. /dev comes from debootstrap's own nodes.
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" || true; done
}
trap cleanup EXIT
mount_in_root() {  # type target-inside-root
  if ! mountpoint -q "$root$2"; then
    mkdir -p "$root$2"
    mount -t "$1" "$1" "$root$2"
    mounted+=("$root$2")
  fi
}

# --- 1. The trixie root -------------------------------------------------------------------------
phase "Debian 13 root at $root"
t_setup=$(date +%s)
# A finished root has apt configured (debootstrap's last stage); an interrupted debootstrap leaves
# its debootstrap/ folder behind and is started afresh; anything else in the way is refused, so a
# mistyped ROOT_DIR is never deleted.
root_ready() {
  [ -x "$root/usr/bin/apt-get" ] && [ ! -d "$root/debootstrap" ] &&
    in_root dpkg-query -W -f='${Status}' apt 2>/dev/null | grep -q "install ok installed"
}
if ! root_ready; then
  if [ -d "$root" ] && [ -n "$(ls -A "$root")" ] && [ ! -d "$root/debootstrap" ]; then
    echo "check-libtorch2: $root exists and is not a (half-made) Debian root: refusing to touch it" >&2
    exit 2
  fi
  if ! command -v debootstrap >/dev/null; then
    echo "check-libtorch2: installing debootstrap on the host"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap; }
  fi
  rm -rf --one-file-system "$root"
  debootstrap --variant=minbase trixie "$root" "$mirror"
else
  echo "reusing the existing root"
fi
mount_in_root proc /proc
mount_in_root devpts /dev/pts

# The build dependencies of packaging/install-deps.sh under their trixie names (the same names,
# but libtorch-dev is 2.6, Qt 6.8, OpenCV 4.10, g++ 14). Test-only references: python3-torch
# (2.6 too) and friends for the tests that compare with PyTorch; python3-setuptools because
# torch.compile's C++ backend imports it (torch.utils.cpp_extension), without which
# tests/bench/gpu_step.sh run in this root stops at its torch.compile side. Left out: clang /
# libFuzzer (the fuzz targets are not built here).
core_pkgs=(
  cmake ninja-build g++ pkg-config
  libtorch-dev libopenblas0-pthread libgloo-dev
  libopencv-dev libsqlite3-dev nlohmann-json3-dev libcli11-dev
  zlib1g-dev libutf8proc-dev libjpeg-dev libpng-dev
  libgtest-dev libgmock-dev
  python3-torch python3-numpy python3-pil python3-setuptools
)
# With the GUI, tests/CMakeLists.txt also requires the desktop-entry and AppStream validators, and
# the window's e2e tests run under Xvfb.
gui_pkgs=(qt6-base-dev qt6-svg-dev libqcustomplot-dev libgl-dev
          desktop-file-utils appstream xvfb xauth imagemagick)

in_root apt-get update -qq
left_out=()
pkgs=("${core_pkgs[@]}")
if [ "$core_only" -eq 0 ]; then
  for p in "${gui_pkgs[@]}"; do
    if in_root apt-cache show "$p" >/dev/null 2>&1; then
      pkgs+=("$p")
    else
      left_out+=("package $p: not in trixie")
    fi
  done
fi
missing=()
for p in "${pkgs[@]}"; do
  in_root dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing ${#missing[@]} packages: ${missing[*]}"
  in_root apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
in_root apt-get clean
t_setup_s=$(( $(date +%s) - t_setup ))

torch_version="$(in_root dpkg-query -W -f='${Version}' libtorch-dev)"
echo "libtorch-dev $torch_version, $(in_root g++ --version | head -1)"

# The GUI needs Qt 6 and QCustomPlot's Qt 6 CMake config; build it only when both are there.
gui=OFF
if [ "$core_only" -eq 1 ]; then
  left_out+=("GUI (widgets/, hnclip-workbench) and its tests: --core-only")
elif [ "${#left_out[@]}" -eq 0 ]; then
  if in_root sh -c 'for f in /usr/lib/*/cmake/QCustomPlotQt6/QCustomPlotQt6Config.cmake; do test -e "$f" && exit 0; done; exit 1'; then
    gui=ON
  else
    left_out+=("GUI: libqcustomplot-dev in trixie has no QCustomPlotQt6 CMake config")
  fi
else
  left_out+=("GUI (widgets/, hnclip-workbench) and its tests: a package it needs is missing")
fi

# --- 2. The source tree -------------------------------------------------------------------------
# A copy of the working tree as git sees it (tracked files plus untracked ones git does not
# ignore), so uncommitted changes are checked too. The kept build folder must rebuild what
# changed since the last copy, so a file whose content changed is written anew (its time: now) and
# an unchanged one keeps its copy's time. (The working tree's own times will not do: a file edited
# after the last copy but before that copy's build finished is older than its stale object.)
phase "copying the source tree"
src="$root/src/hnclip"
staging="$root/src/hnclip.incoming"
rm -rf "$staging"
mkdir -p "$src" "$staging"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard \
  | while IFS= read -r -d '' f; do if [ -e "$f" ]; then printf '%s\0' "$f"; fi; done \
  | tar --null -T - -cf -) | tar -xf - -C "$staging"
changed=0
while IFS= read -r -d '' f; do
  if ! cmp -s "$staging/$f" "$src/$f"; then
    mkdir -p "$src/$(dirname "$f")"
    rm -f "$src/$f"
    cp -P "$staging/$f" "$src/$f"
    changed=$((changed + 1))
  fi
done < <(cd "$staging" && find . \( -type f -o -type l \) -printf '%P\0')
while IFS= read -r -d '' f; do
  [ -e "$staging/$f" ] || [ -L "$staging/$f" ] || rm -f "$src/$f"
done < <(cd "$src" && find . \( -type f -o -type l \) -printf '%P\0')
rm -rf "$staging"
echo "check-libtorch2: $changed files new or changed since the last copy"

# --- 3. Build and core tests ------------------------------------------------------------------
# The core tests (and the CLI the e2e tests run) are built and run first, so their result comes
# before the long GUI build and does not depend on it; then everything else that is configured.
phase "configure and build the core tests (GUI $gui, -j $jobs)"
t_build=$(date +%s)
in_root cmake -S /src/hnclip -B /build/hnclip -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHNCLIP_BUILD_TESTS=ON -DHNCLIP_BUILD_GUI="$gui"
in_root cmake --build /build/hnclip -j "$jobs" --target hnclip_core_tests hnclip
t_build_s=$(( $(date +%s) - t_build ))

phase "core tests (ctest -L core)"
t_test=$(date +%s)
test_status=0
in_root sh -c "cd /build/hnclip && ctest -L core -j $jobs --output-on-failure" \
  > "$root/ctest-core.log" 2>&1 || test_status=$?
tail -n 40 "$root/ctest-core.log"
t_test_s=$(( $(date +%s) - t_test ))

t_rest=$(date +%s)
rest_status=0
if [ "$core_only" -eq 0 ]; then
  phase "build everything else (GUI $gui, e2e tests)"
  in_root cmake --build /build/hnclip -j "$jobs" || rest_status=$?
else
  left_out+=("e2e tests (tests/e2e): --core-only")
fi
t_rest_s=$(( $(date +%s) - t_rest ))

# --- 5. Summary ---------------------------------------------------------------------------------
echo
echo "=== check-libtorch2 summary"
echo "LibTorch: libtorch-dev $torch_version (Debian 13 trixie), GUI $gui"
echo "set-up (debootstrap + packages): ${t_setup_s} s; core build: ${t_build_s} s;" \
  "core tests: ${t_test_s} s; rest of the build: ${t_rest_s} s; total: $(( $(date +%s) - t_start )) s"
echo "core tests: $(grep -E 'tests passed' "$root/ctest-core.log" | tail -1 || echo 'no ctest summary')"
if [ "${#left_out[@]}" -gt 0 ]; then
  echo "left out:"
  printf '  - %s\n' "${left_out[@]}"
fi
if [ "$test_status" -ne 0 ] || [ "$rest_status" -ne 0 ]; then
  [ "$test_status" -ne 0 ] && echo "core tests failed: $root/ctest-core.log"
  [ "$rest_status" -ne 0 ] && echo "the build beyond the core tests failed (GUI $gui)"
  echo "RESULT: FAIL"
  exit 1
fi
echo "RESULT: OK"
