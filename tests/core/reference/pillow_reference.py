"""Pillow references for tests/core/data/test_pillow_resize.cpp and the preprocessing benchmark, run with
Debian's /usr/bin/python3 (Pillow 9.4, torch 1.13; torchvision is not needed).

  pillow_reference.py resize CASES.json
      CASES.json: {"cases": [{"src": PNG, "dst": PNG, "width": W, "height": H}]}; writes each
      Image.open(src).resize((W, H), Image.BICUBIC) to dst as PNG (mode kept: "L" or "RGB").
  pillow_reference.py clip CASES.json
      CASES.json: {"n_px": N, "cases": [{"src": IMAGE, "dst": RAW}]}; writes OpenAI CLIP's
      preprocessing of src (below) to dst as 3*N*N little-endian float32, CHW, RGB.
  pillow_reference.py throughput N_PX REPEATS IMAGE...
      Times the CLIP preprocessing (decode included) over the images, best of REPEATS passes after
      a warm-up pass; prints "images_per_second W images_per_cpu_second C".

The CLIP transform is written out from torchvision 0.14's documented behaviour rather than imported:
Resize(n, BICUBIC) makes the shorter side n (the width when square) and the longer
int(n * long / short), via PIL's resize; CenterCrop(n) crops at int(round((side - n) / 2.0));
then convert("RGB"), ToTensor (/255 as float32) and Normalize ((x - mean) / std in float32).
"""
import json
import struct
import sys
import time

from PIL import Image

CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)


def clip_resized_size(width, height, n):
    if width <= height:
        return n, int(n * height / width)
    return int(n * width / height), n


def clip_preprocess(img, n, torch):
    w, h = clip_resized_size(img.width, img.height, n)
    img = img.resize((w, h), Image.BICUBIC)
    top = int(round((h - n) / 2.0))
    left = int(round((w - n) / 2.0))
    img = img.crop((left, top, left + n, top + n)).convert("RGB")
    x = torch.frombuffer(bytearray(img.tobytes()), dtype=torch.uint8).view(n, n, 3)
    x = x.permute(2, 0, 1).contiguous().to(torch.float32).div(255)
    mean = torch.tensor(CLIP_MEAN, dtype=torch.float32).view(3, 1, 1)
    std = torch.tensor(CLIP_STD, dtype=torch.float32).view(3, 1, 1)
    return x.sub(mean).div(std)


def run_resize(spec):
    for c in spec["cases"]:
        with Image.open(c["src"]) as img:
            img.resize((c["width"], c["height"]), Image.BICUBIC).save(c["dst"], format="PNG")


def run_clip(spec):
    import torch

    n = spec["n_px"]
    for c in spec["cases"]:
        with Image.open(c["src"]) as img:
            x = clip_preprocess(img, n, torch)
        values = x.flatten().tolist()
        with open(c["dst"], "wb") as f:
            f.write(struct.pack("<%df" % len(values), *values))


def run_throughput(n, repeats, paths):
    import torch

    torch.set_num_threads(1)
    for p in paths:  # warm-up: page cache, lazy imports
        with Image.open(p) as img:
            clip_preprocess(img, n, torch)
    best_wall = best_cpu = float("inf")
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        for p in paths:
            with Image.open(p) as img:
                clip_preprocess(img, n, torch)
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    print("images_per_second %.3f images_per_cpu_second %.3f" % (len(paths) / best_wall, len(paths) / best_cpu))


def main():
    mode = sys.argv[1]
    if mode == "throughput":
        run_throughput(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:])
        return
    with open(sys.argv[2]) as f:
        spec = json.load(f)
    if mode == "resize":
        run_resize(spec)
    elif mode == "clip":
        run_clip(spec)
    else:
        raise SystemExit("unknown mode " + mode)


if __name__ == "__main__":
    main()
