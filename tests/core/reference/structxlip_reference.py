"""Reference values for the workbench's StructXLIP loss (core/loss/structxlip_loss.h), written
independently of the C++ code in float64 with python3-torch (Debian's /usr/bin/python3): the
global term (plain two-way InfoNCE, or the HN-CLIP loss with Ḡ from separate features, detached,
zero diagonal), the structure-map ↔ filtered-caption InfoNCE, torch's own CosineEmbeddingLoss
(target 1) between the image and structure features, and the local term: for each edge segment
−log of the summed softmax probability of its own chunks over all chunks, averaged, and for each
chunk the cross-entropy over the segments to its own one, averaged; the two directions' mean.
Written with explicit loops over segments, not masks.

Reads {"cases": [{"V", "T", "E", "F", "K", "C", "TG": [[...]], "owner": [...], "s", "hn": bool,
"gamma", "w_structure", "w_consistency", "w_local"}]} and writes {"results": [{"loss", "global",
"structure", "consistency", "local", "grad_V", "grad_T", "grad_E", "grad_F", "grad_K",
"grad_C": [[...]], "grad_s"}]}.
"""
import json
import os
import sys

import torch

# The global and structure terms are GOAL's reference's own (two-way InfoNCE, the HN loss).
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from goal_reference import hn_loss, info_nce  # noqa: E402


def local_term(K, C, owner, s):
    n, m = K.shape[0], C.shape[0]
    seg_terms = []
    for k in range(n):
        row = [s * (K[k] @ C[j]) for j in range(m)]
        denom = sum(torch.exp(x) for x in row)
        num = sum(torch.exp(row[j]) for j in range(m) if owner[j] == k)
        seg_terms.append(-torch.log(num / denom))
    chunk_terms = []
    for j in range(m):
        col = torch.stack([s * (K[k] @ C[j]) for k in range(n)])
        chunk_terms.append(torch.logsumexp(col, dim=0) - col[owner[j]])
    return 0.5 * (torch.stack(seg_terms).mean() + torch.stack(chunk_terms).mean())


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)["cases"]
    names = ["V", "T", "E", "F", "K", "C"]
    results = []
    for c in cases:
        x = {n: torch.tensor(c[n], dtype=torch.float64, requires_grad=True) for n in names}
        TG = torch.tensor(c["TG"], dtype=torch.float64)
        s = torch.tensor(c["s"], dtype=torch.float64, requires_grad=True)
        if c["hn"]:
            glob = hn_loss(x["V"], x["T"], TG, s, c["gamma"])
        else:
            glob = info_nce(x["V"], x["T"], s)
        structure = info_nce(x["E"], x["F"], s)
        target = torch.ones(x["V"].shape[0], dtype=torch.float64)
        consistency = torch.nn.CosineEmbeddingLoss()(x["V"], x["E"], target)
        local = local_term(x["K"], x["C"], c["owner"], s)
        loss = (glob + c["w_structure"] * structure + c["w_consistency"] * consistency
                + c["w_local"] * local)
        loss.backward()
        r = {"loss": loss.item(), "global": glob.item(), "structure": structure.item(),
             "consistency": consistency.item(), "local": local.item(), "grad_s": s.grad.item()}
        for n in names:
            r["grad_" + n] = x[n].grad.tolist()
        results.append(r)
    with open(sys.argv[2], "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
