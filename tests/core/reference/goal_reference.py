"""Reference values for GOAL's fine-tuning loss, written independently of the C++ code from GOAL's
training code (CVPR 2025) in float64 with python3-torch (Debian's /usr/bin/python3): the global
term (plain two-way InfoNCE, or the HN-CLIP loss with Ḡ from separate features, detached, zero
diagonal), the crop image ↔ sentence InfoNCE weighted by crop_weight, and the two local terms:
the MSE to 1 of the cosine between a pooled feature normalised as GOAL does,
(x + 1e-8) / ‖x + 1e-8‖, and the crop image / sentence feature. Cross-entropies are written as logsumexp − target logit.

Reads {"cases": [{"V", "T", "C", "P", "R", "Q", "TG": [[...]], "s", "hn": bool, "gamma",
"crop_weight"}]} (V image, T long caption, C crop image, P sentence, R pooled patches, Q pooled
span, TG the features Ḡ is built from) and writes {"results": [{"loss", "global", "crop",
"patch", "text", "grad_V", "grad_T", "grad_C", "grad_P", "grad_R", "grad_Q": [[...]],
"grad_s"}]}.
"""
import json
import sys

import torch


def two_way_ce(logits_i2t, logits_t2i):
    # Mean over rows of logsumexp(row) − row's diagonal entry, for each direction, then averaged.
    def ce(x):
        return (torch.logsumexp(x, dim=1) - torch.diagonal(x)).mean()
    return 0.5 * (ce(logits_i2t) + ce(logits_t2i))


def hn_loss(V, T, TG, s, gamma):
    S = V @ T.T
    G = (TG @ TG.T).detach() * (1.0 - torch.eye(TG.shape[0], dtype=torch.float64))
    return two_way_ce(s * (S + gamma * G), s * (S.T + gamma * G))


def info_nce(A, B, s):
    S = A @ B.T
    return two_way_ce(s * S, s * S.T)


def alignment(X, unit):
    shifted = X + 1e-8  # GOAL's F.normalize(x + 1e-8)
    direction = shifted / shifted.norm(dim=1, keepdim=True).clamp_min(1e-12)
    cos = (direction * unit).sum(dim=1)
    return ((cos - 1.0) ** 2).mean()


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)["cases"]
    names = ["V", "T", "C", "P", "R", "Q"]
    results = []
    for c in cases:
        x = {n: torch.tensor(c[n], dtype=torch.float64, requires_grad=True) for n in names}
        TG = torch.tensor(c["TG"], dtype=torch.float64)
        s = torch.tensor(c["s"], dtype=torch.float64, requires_grad=True)
        if c["hn"]:
            glob = hn_loss(x["V"], x["T"], TG, s, c["gamma"])
        else:
            glob = info_nce(x["V"], x["T"], s)
        crop = info_nce(x["C"], x["P"], s)
        patch = alignment(x["R"], x["C"])
        text = alignment(x["Q"], x["P"])
        loss = glob + c["crop_weight"] * crop + patch + text
        loss.backward()
        r = {"loss": loss.item(), "global": glob.item(), "crop": crop.item(),
             "patch": patch.item(), "text": text.item(), "grad_s": s.grad.item()}
        for n in names:
            r["grad_" + n] = x[n].grad.tolist()
        results.append(r)
    with open(sys.argv[2], "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
