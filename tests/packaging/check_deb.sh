#!/usr/bin/env bash
# Builds the Debian package from a configured, built tree and checks what it holds and needs:
# both programs, the .desktop file, the AppStream metainfo, hicolor icons (SVG + PNG sizes), the
# pretrained checkpoint, and dependencies on the libraries the programs link.
# Usage: check_deb.sh BUILD_DIR OUT_DIR
set -euo pipefail
build="$1"
out="$2"
rm -rf "$out" && mkdir -p "$out"
(cd "$build" && cpack -G DEB -B "$out" > "$out/cpack.log" 2>&1) || { cat "$out/cpack.log"; exit 1; }
deb=$(ls "$out"/hnclip-workbench_*.deb)
echo "package: $deb"
dpkg-deb -c "$deb" > "$out/contents.txt"
dpkg-deb -f "$deb" Depends > "$out/depends.txt"
fail=0
for path in ./usr/bin/hnclip ./usr/bin/hnclip-workbench \
            ./usr/share/applications/io.github.hnclip.Workbench.desktop \
            ./usr/share/metainfo/io.github.hnclip.Workbench.metainfo.xml \
            ./usr/share/icons/hicolor/scalable/apps/io.github.hnclip.Workbench.svg \
            ./usr/share/icons/hicolor/48x48/apps/io.github.hnclip.Workbench.png \
            ./usr/share/icons/hicolor/256x256/apps/io.github.hnclip.Workbench.png \
            ./usr/share/hnclip-workbench/resources/checkpoints/tiny-synthetic-pretrained.pt; do
  grep -q " $path\$" "$out/contents.txt" || { echo "missing from the package: $path"; fail=1; }
done
for dep in libqt6widgets6 libtorch libopencv-imgcodec libsqlite3 libqcustomplot libopenblas0-pthread; do
  grep -q "$dep" "$out/depends.txt" || { echo "missing dependency: $dep (Depends: $(cat "$out/depends.txt"))"; fail=1; }
done
# The packaged copies validate too (they are what users' desktops read).
mkdir -p "$out/root" && dpkg-deb -x "$deb" "$out/root"
desktop-file-validate "$out/root/usr/share/applications/io.github.hnclip.Workbench.desktop" || fail=1
appstreamcli validate --no-net "$out/root/usr/share/metainfo/io.github.hnclip.Workbench.metainfo.xml" || fail=1
echo "Depends: $(cat "$out/depends.txt")"
exit $fail
