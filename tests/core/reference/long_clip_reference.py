"""Reference values for Long-CLIP's fine-tuning loss, written independently of the C++ code from
Long-CLIP's training code (batch PCA with torch.svd, label-smoothed cross-entropy over both
directions, long + short branches 1 : 1) in float64 with python3-torch (Debian's /usr/bin/python3),
and the PCA reconstruction checked against numpy's SVD.

Reads {"cases": [{"V", "T_long", "T_short": [[...]], "s", "k", "smoothing", "hn": bool, "gamma"}]}
and writes {"results": [{"loss", "long", "short", "pca": [[...]] (numpy), "grad_V", "grad_T_long",
"grad_T_short": [[...]]}]}. With "hn" the long branch is the HN loss with Ḡ from T_long (detached).
"""
import json
import sys

import numpy as np
import torch
import torch.nn.functional as F


def pca(X, k):
    # As Long-CLIP's CLIP.PCA: centre, torch.svd, V[:, :k], reconstruct, add the mean back.
    mean = X.mean(dim=0)
    Xc = X - mean.unsqueeze(0)
    U, S, V = torch.svd(Xc)
    P = V[:, :k]
    return (Xc @ P) @ P.T + mean


def numpy_pca(X, k):
    Xc = X - X.mean(axis=0, keepdims=True)
    _, _, vt = np.linalg.svd(Xc, full_matrices=False)
    top = vt[:k]
    return Xc @ top.T @ top + X.mean(axis=0, keepdims=True)


def smoothed(V, T, s, eps):
    t = torch.arange(V.shape[0])
    logits = s * V @ T.T
    return (F.cross_entropy(logits, t, label_smoothing=eps) +
            F.cross_entropy(logits.T, t, label_smoothing=eps)) / 2


def hn(V, T, s, gamma):
    G = (T @ T.T).detach().clone()
    G.fill_diagonal_(0.0)
    t = torch.arange(V.shape[0])
    S = V @ T.T
    return (F.cross_entropy(s * (S + gamma * G), t) + F.cross_entropy(s * (S.T + gamma * G), t)) / 2


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)["cases"]
    results = []
    for c in cases:
        V = torch.tensor(c["V"], dtype=torch.float64, requires_grad=True)
        TL = torch.tensor(c["T_long"], dtype=torch.float64, requires_grad=True)
        TS = torch.tensor(c["T_short"], dtype=torch.float64, requires_grad=True)
        long = hn(V, TL, c["s"], c["gamma"]) if c["hn"] else smoothed(V, TL, c["s"], c["smoothing"])
        short = smoothed(pca(V, c["k"]), TS, c["s"], c["smoothing"])
        loss = long + short
        loss.backward()
        results.append({
            "loss": loss.item(), "long": long.item(), "short": short.item(),
            "pca": numpy_pca(np.array(c["V"]), c["k"]).tolist(),
            "grad_V": V.grad.tolist(), "grad_T_long": TL.grad.tolist(),
            "grad_T_short": TS.grad.tolist()})
    with open(sys.argv[2], "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
