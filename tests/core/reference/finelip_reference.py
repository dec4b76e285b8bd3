"""Reference values for FineLIP's fine-grained loss, written independently of the C++ code from
FineLIP's / LAPS's description in float64 with python3-torch (Debian's /usr/bin/python3): token
aggregation (LayerNorm → Linear → GELU → Linear, scaled, softmax over the tokens with padding
masked, weighted sum), the global feature appended, L2 normalisation, leaky-ReLU cosines, the
two-way mean-of-max similarity and VSE++'s triplet hinge (summed, or hardest negatives).

Reads {"cases": [{"patches": [B][N][d], "image_global": [B][d], "words": [B][L][d],
"word_mask": [B][L] (0/1), "text_global": [B][d], "image_agg": AGG, "text_agg": AGG, "margin",
"slope", "hardest": bool}]} with AGG = {"norm_w", "norm_b", "fc1_w", "fc1_b", "fc2_w", "fc2_b",
"scale"}, and writes {"results": [{"loss", "similarity": [[...]], "grad_patches", "grad_words",
"grad_image_fc2_w", "grad_text_scale"}]}.
"""
import json
import sys

import torch
import torch.nn.functional as F


def t(x):
    return torch.tensor(x, dtype=torch.float64, requires_grad=True)


def aggregate(x, mask, agg):
    h = F.layer_norm(x, (x.shape[-1],), agg["norm_w"], agg["norm_b"], eps=1e-5)
    h = F.gelu(h @ agg["fc1_w"].T + agg["fc1_b"])
    w = (h @ agg["fc2_w"].T + agg["fc2_b"]).transpose(1, 2) * agg["scale"]  # B, K, N
    if mask is not None:
        w = w.masked_fill(~mask.unsqueeze(1), float("-inf"))
    return torch.softmax(w, dim=2) @ x


def token_set(x, mask, glob, agg):
    s = torch.cat([aggregate(x, mask, agg), glob.unsqueeze(1)], dim=1)
    return s / s.norm(dim=-1, keepdim=True)


def similarity(I, T, slope):
    B_i, B_t = I.shape[0], T.shape[0]
    S = torch.zeros(B_i, B_t, dtype=torch.float64)
    rows = []
    for i in range(B_i):
        row = []
        for j in range(B_t):
            A = F.leaky_relu(I[i] @ T[j].T, slope)  # K_i, K_t
            row.append(A.max(dim=0).values.mean() + A.max(dim=1).values.mean())
        rows.append(torch.stack(row))
    return torch.stack(rows)


def hinge(S, margin, hardest):
    d = S.diag().view(-1, 1)
    eye = torch.eye(S.shape[0], dtype=torch.bool)
    cost_s = (margin + S - d).clamp(min=0).masked_fill(eye, 0)
    cost_im = (margin + S - d.T).clamp(min=0).masked_fill(eye, 0)
    if hardest:
        return cost_s.max(1)[0].sum() + cost_im.max(0)[0].sum()
    return cost_s.sum() + cost_im.sum()


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)["cases"]
    results = []
    for c in cases:
        patches, words = t(c["patches"]), t(c["words"])
        ig, tg = t(c["image_global"]), t(c["text_global"])
        mask = torch.tensor(c["word_mask"], dtype=torch.bool)
        ia = {k: t(v) for k, v in c["image_agg"].items()}
        ta = {k: t(v) for k, v in c["text_agg"].items()}
        I = token_set(patches, None, ig, ia)
        T = token_set(words, mask, tg, ta)
        S = similarity(I, T, c["slope"])
        loss = hinge(S, c["margin"], c["hardest"])
        loss.backward()
        results.append({"loss": loss.item(), "similarity": S.tolist(),
                        "grad_patches": patches.grad.tolist(), "grad_words": words.grad.tolist(),
                        "grad_image_fc2_w": ia["fc2_w"].grad.tolist(),
                        "grad_text_scale": ta["scale"].grad.item()})
    with open(sys.argv[2], "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
