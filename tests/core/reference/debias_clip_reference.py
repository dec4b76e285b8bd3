"""Reference values for DeBias-CLIP's loss as the workbench builds it on Long-CLIP's: the image
against its full caption (label-smoothed cross-entropy over both directions, or the HN loss with
Ḡ from the full caption, detached) plus the image against its augmented caption (label-smoothed),
summed 1 : 1. Written independently of the C++ code, in float64 with python3-torch (Debian's
/usr/bin/python3).

Reads {"cases": [{"V", "T", "T_aug": [[...]], "s", "smoothing", "hn": bool, "gamma"}]} and writes
{"results": [{"loss", "global", "augmented", "grad_V", "grad_T", "grad_T_aug": [[...]]}]}.
"""
import json
import os
import sys

import torch

# The branches are Long-CLIP's reference's own (label-smoothed CE, the HN loss).
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from long_clip_reference import hn, smoothed  # noqa: E402


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)["cases"]
    results = []
    for c in cases:
        V = torch.tensor(c["V"], dtype=torch.float64, requires_grad=True)
        T = torch.tensor(c["T"], dtype=torch.float64, requires_grad=True)
        TA = torch.tensor(c["T_aug"], dtype=torch.float64, requires_grad=True)
        glob = hn(V, T, c["s"], c["gamma"]) if c["hn"] else smoothed(V, T, c["s"], c["smoothing"])
        aug = smoothed(V, TA, c["s"], c["smoothing"])
        loss = glob + aug
        loss.backward()
        results.append({
            "loss": loss.item(), "global": glob.item(), "augmented": aug.item(),
            "grad_V": V.grad.tolist(), "grad_T": T.grad.tolist(), "grad_T_aug": TA.grad.tolist()})
    with open(sys.argv[2], "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
