"""Reference values for the HN-CLIP loss, written independently of the C++ code from the formula in
shared/DESIGN.md §3, in float64 with python3-torch (Debian's /usr/bin/python3).

Reads a JSON file {"cases": [{"V": [[...]], "T": [[...]], "T0": [[...]] | null, "s": float,
"gamma": float}]} and writes {"results": [{"loss": float, "grad_V": [[...]], "grad_T": [[...]]}]}.
T0 = null means recomputed Ḡ (from T itself, detached); otherwise frozen Ḡ from T0.
"""
import json
import sys

import torch


def hn_loss(V, T, T0, s, gamma):
    B = V.shape[0]
    S = V @ T.T
    source = T if T0 is None else T0
    G = (source @ source.T).detach().clone()
    G.fill_diagonal_(0.0)
    targets = torch.arange(B)
    # Written out as log-softmax sums rather than F.cross_entropy, to be an independent formulation.
    def ce(logits):
        return -(logits.log_softmax(dim=1)[targets, targets]).mean()
    return 0.5 * (ce(s * (S + gamma * G)) + ce(s * (S.T + gamma * G)))


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src) as f:
        cases = json.load(f)["cases"]
    results = []
    for c in cases:
        V = torch.tensor(c["V"], dtype=torch.float64, requires_grad=True)
        T = torch.tensor(c["T"], dtype=torch.float64, requires_grad=True)
        T0 = None if c["T0"] is None else torch.tensor(c["T0"], dtype=torch.float64)
        loss = hn_loss(V, T, T0, c["s"], c["gamma"])
        loss.backward()
        results.append({"loss": loss.item(), "grad_V": V.grad.tolist(), "grad_T": T.grad.tolist()})
    with open(dst, "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
