#!/usr/bin/env bash
# Captions tab figure: time from selecting a caption to its detail view showing every image (the
# caption's own and its 5 nearest captions'), on a 5,000-caption split, and the thumbnail cache's
# memory. The split is a manifest of the first 5,000 training images of the built-in `default`
# benchmark (generated on first use, one caption each). Three window starts on one cache folder:
#   1  no geometry and no thumbnails stored (the geometry is computed first, in the background)
#   2  geometry stored, thumbnails on disk (a restart)
#   3  the same again
# Each start selects caption 1234, then another, then goes Back to 1234: `first_show_ms` is the
# cold selection, `reshow_from_memory_ms` the same caption with its thumbnails in memory.
# BIG=1 replaces the 48-px PNGs by 1024x768 JPEGs (200 files, Pillow, the captions' own images
# enlarged; image i is a link to file i % 200), closer to DOCCI's photos: decoding then dominates.
# Usage: [BIG=1] tests/bench/caption_detail_timing.sh [path/to/hnclip-workbench] [path/to/hnclip]
# Needs xvfb-run. Prints one JSON line per start.
set -euo pipefail
cd "$(dirname "$0")/../.."
WORKBENCH=${1:-build/dev/app/hnclip-workbench}
HNCLIP=${2:-build/dev/app/hnclip}
WORK=${WORK:-/tmp/hnclip-caption-timing}
N=${N:-5000}
rm -rf "$WORK" && mkdir -p "$WORK"
CACHE=${CACHE:-$HOME/.cache/hnclip-workbench}
"$HNCLIP" benchmark --benchmark-size default --cache-dir "$CACHE" > /dev/null
SRC="$CACHE/synthetic-default-s1-v4"
/usr/bin/python3 - "$SRC" "$WORK/manifest.jsonl" "$N" "${BIG:-0}" <<'PY'
import json, os, sys
src, out, n, big = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
rows = []
with open(os.path.join(src, "manifest.jsonl")) as f:
    for line in f:
        r = json.loads(line)
        if r["split"] == "train" and len(rows) < n:
            rows.append({"image": os.path.join(src, r["image"]), "caption": r["captions"][0], "split": "test"})
if big:
    from PIL import Image
    folder = os.path.join(os.path.dirname(out), "big")
    os.makedirs(folder, exist_ok=True)
    for i in range(min(200, len(rows))):
        Image.open(rows[i]["image"]).convert("RGB").resize((1024, 768), Image.BICUBIC).save(
            os.path.join(folder, "%03d.jpg" % i), quality=90)
    for i, r in enumerate(rows):  # a manifest lists each image once: links to the 200 files
        link = os.path.join(folder, "%05d.jpg" % i)
        os.symlink("%03d.jpg" % (i % 200), link)
        r["image"] = link
with open(out, "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
PY
config='{"benchmark":"manifest","benchmark_root":"'"$WORK"'/manifest.jsonl","train_split":"test","test_split":"test","init":"pretrained"}'
for start in 1 2 3; do
  XDG_CONFIG_HOME="$WORK/config" xvfb-run -a -s '-screen 0 1400x900x24' "$WORKBENCH" --db "$WORK/runs.db" \
    --cache-dir "$WORK/cache" --config "$config" --show-tab captions --select-caption 1234 \
    --caption-timing "$WORK/timing-$start.json" 2> "$WORK/stderr-$start.txt" ||
    { echo "start $start failed; its stderr: $WORK/stderr-$start.txt" >&2; tail -3 "$WORK/stderr-$start.txt" >&2; exit 1; }
  /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["start"]=int(sys.argv[2]); print(json.dumps(d))' \
    "$WORK/timing-$start.json" "$start"
done
