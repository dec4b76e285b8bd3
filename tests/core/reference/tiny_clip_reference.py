"""Reference outputs of a tiny OpenAI-architecture CLIP, for tests/core/model/test_clip_state_dict.cpp
and tests/e2e/test_cli_encode.cpp. Written independently of the C++ code from the documented
architecture of OpenAI CLIP (ViT image tower; causal text transformer pooled at the end token),
with torch.nn.MultiheadAttention (packed in_proj_weight), LayerNorm computed in fp32 and
QuickGELU. Run by Debian's /usr/bin/python3 (python3-torch 1.13).

usage: tiny_clip_reference.py OUT_DIR [--vocab-size N] [--image PNG]... [--tokens ID,ID,...]...
Writes into OUT_DIR:
  clip.pt        torch.save(model.state_dict())            (an OrderedDict, as OpenAI's releases)
  clip_jit.pt    torch.jit.script archive with the int attributes input_resolution,
                 context_length, vocab_size, as OpenAI's TorchScript releases carry
  longclip.pt    a 248-position Long-CLIP variant with positional_embedding_res
  clip_fp16.pt   the weights of clip.pt in float16
  reference.json the fixed inputs and every variant's encode_image / encode_text / logits
With --image/--tokens (the e2e test) only clip.pt and reference.json are written; the inputs are
those PNGs (RGB, already image_size square: no resize) and those token rows.
"""
import argparse
import json
import os
from collections import OrderedDict

import torch
from torch import nn

WIDTH = 128          # heads = width // 64 = 2, as OpenAI derives them
LAYERS = 2
PATCH = 8
IMAGE = 32           # grid 4
EMBED = 64
CONTEXT = 77
LONG_CONTEXT = 248
LONG_KEEP = 20
MEAN = (0.48145466, 0.4578275, 0.40821073)
STD = (0.26862954, 0.26130258, 0.27577711)


class LayerNorm(nn.LayerNorm):
    """Computed in fp32 whatever the input dtype (as OpenAI's subclass)."""

    def forward(self, x):
        t = x.dtype
        return nn.functional.layer_norm(x.float(), self.normalized_shape, self.weight, self.bias,
                                        self.eps).to(t)


class QuickGELU(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(1.702 * x)


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(width, heads)
        self.ln_1 = LayerNorm(width)
        self.mlp = nn.Sequential(OrderedDict([
            ("c_fc", nn.Linear(width, width * 4)),
            ("gelu", QuickGELU()),
            ("c_proj", nn.Linear(width * 4, width)),
        ]))
        self.ln_2 = LayerNorm(width)

    def forward(self, x, mask: torch.Tensor):
        h = self.ln_1(x)
        if mask.numel() > 0:
            a = self.attn(h, h, h, need_weights=False, attn_mask=mask)[0]
        else:
            a = self.attn(h, h, h, need_weights=False)[0]
        x = x + a
        return x + self.mlp(self.ln_2(x))


class Stack(nn.Module):
    def __init__(self, width, layers, heads):
        super().__init__()
        self.resblocks = nn.ModuleList([Block(width, heads) for _ in range(layers)])

    def forward(self, x, mask: torch.Tensor):
        for b in self.resblocks:
            x = b(x, mask)
        return x


class Visual(nn.Module):
    def __init__(self):
        super().__init__()
        scale = WIDTH ** -0.5
        self.conv1 = nn.Conv2d(3, WIDTH, kernel_size=PATCH, stride=PATCH, bias=False)
        self.class_embedding = nn.Parameter(scale * torch.randn(WIDTH))
        self.positional_embedding = nn.Parameter(scale * torch.randn((IMAGE // PATCH) ** 2 + 1, WIDTH))
        self.ln_pre = LayerNorm(WIDTH)
        self.transformer = Stack(WIDTH, LAYERS, WIDTH // 64)
        self.ln_post = LayerNorm(WIDTH)
        self.proj = nn.Parameter(scale * torch.randn(WIDTH, EMBED))

    def forward(self, x):
        x = self.conv1(x)
        x = x.reshape(x.shape[0], x.shape[1], -1).permute(0, 2, 1)        # N, grid², W
        cls = self.class_embedding.to(x.dtype) + torch.zeros(x.shape[0], 1, x.shape[-1], dtype=x.dtype)
        x = torch.cat([cls, x], dim=1) + self.positional_embedding.to(x.dtype)
        x = self.ln_pre(x).permute(1, 0, 2)                               # sequence first
        x = self.transformer(x, torch.empty(0)).permute(1, 0, 2)
        return self.ln_post(x[:, 0, :]) @ self.proj


class TinyClip(nn.Module):
    def __init__(self, vocab_size, context_length):
        super().__init__()
        self.input_resolution = IMAGE
        self.context_length = context_length
        self.vocab_size = vocab_size
        self.visual = Visual()
        self.transformer = Stack(WIDTH, LAYERS, WIDTH // 64)
        self.token_embedding = nn.Embedding(vocab_size, WIDTH)
        self.positional_embedding = nn.Parameter(torch.randn(context_length, WIDTH) * 0.1)
        self.ln_final = LayerNorm(WIDTH)
        self.text_projection = nn.Parameter(torch.randn(WIDTH, EMBED) * WIDTH ** -0.5)
        self.logit_scale = nn.Parameter(torch.ones([]) * 2.7)
        mask = torch.empty(context_length, context_length)
        mask.fill_(float("-inf"))
        self.attn_mask = mask.triu(1)   # plain attribute: not in the state dict
        # Random, non-trivial gains and biases so a mix-up of any two tensors shows.
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name.endswith("bias") or ".ln_" in name or name.startswith("ln_"):
                    p.copy_(torch.randn_like(p) * 0.1 + (1.0 if name.endswith("weight") else 0.0))

    def encode_image(self, images):
        return self.visual(images)

    def encode_text(self, text):
        x = self.token_embedding(text) + self.positional_embedding
        return self.text_tower(x, text)

    def text_tower(self, x, text):
        x = self.transformer(x.permute(1, 0, 2), self.attn_mask).permute(1, 0, 2)
        x = self.ln_final(x)
        return x[torch.arange(x.shape[0]), text.argmax(dim=-1)] @ self.text_projection

    def forward(self, images, text):
        i = self.encode_image(images)
        t = self.encode_text(text)
        i = i / i.norm(2, [1], True)
        t = t / t.norm(2, [1], True)
        return self.logit_scale.exp() * i @ t.t()


class LongTinyClip(TinyClip):
    """Long-CLIP: rows < 20 from positional_embedding, the rest from positional_embedding_res,
    added through 0/1 row masks as Long-CLIP's encode_text does."""

    def __init__(self, vocab_size, context_length):
        super().__init__(vocab_size, context_length)
        self.positional_embedding_res = nn.Parameter(torch.randn(context_length, WIDTH) * 0.1)
        keep = torch.zeros(context_length, 1)
        keep[:LONG_KEEP] = 1
        self.mask1 = keep
        self.mask2 = 1 - keep

    def encode_text(self, text):
        x = (self.token_embedding(text) + self.positional_embedding * self.mask1 +
             self.positional_embedding_res * self.mask2)
        return self.text_tower(x, text)


def token_rows(vocab_size, context_length, gen):
    """Fixed rows: start = vocab-2, words in [1, vocab-3], end = vocab-1 (the largest id), pad 0."""
    rows = []
    for length in (3, 9, 17, 40):
        words = torch.randint(1, vocab_size - 2, (length,), generator=gen).tolist()
        row = [vocab_size - 2] + words + [vocab_size - 1]
        rows.append(row + [0] * (context_length - len(row)))
    return torch.tensor(rows)


def outputs(model, images, tokens):
    with torch.no_grad():
        return {"image": model.encode_image(images).tolist(),
                "text": model.encode_text(tokens).tolist(),
                "logits": model(images, tokens).tolist()}


def png_tensor(path):
    from PIL import Image
    img = Image.open(path).convert("RGB")
    assert img.size == (IMAGE, IMAGE), "the e2e PNG must be image_size square (no resize)"
    x = torch.tensor(list(img.getdata()), dtype=torch.float32).reshape(IMAGE, IMAGE, 3) / 255.0
    x = (x - torch.tensor(MEAN)) / torch.tensor(STD)
    return x.permute(2, 0, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--vocab-size", type=int, default=1000)
    ap.add_argument("--image", action="append", default=[])
    ap.add_argument("--tokens", action="append", default=[])
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    torch.manual_seed(20240607)
    model = TinyClip(a.vocab_size, CONTEXT).eval()
    torch.save(model.state_dict(), os.path.join(a.out, "clip.pt"))

    if a.image or a.tokens:
        result = {}
        with torch.no_grad():
            if a.image:
                result["image"] = model.encode_image(torch.stack([png_tensor(p) for p in a.image])).tolist()
            if a.tokens:
                rows = [[int(v) for v in t.split(",")] for t in a.tokens]
                rows = [r + [0] * (CONTEXT - len(r)) for r in rows]   # padded to the context
                result["text"] = model.encode_text(torch.tensor(rows)).tolist()
        with open(os.path.join(a.out, "reference.json"), "w") as f:
            json.dump(result, f)
        return

    gen = torch.Generator().manual_seed(7)
    images = torch.randn(3, 3, IMAGE, IMAGE, generator=gen)
    tokens = token_rows(a.vocab_size, CONTEXT, gen)
    long_tokens = token_rows(a.vocab_size, LONG_CONTEXT, gen)
    long_tokens[3, :] = 0
    long_row = [a.vocab_size - 2] + torch.randint(1, a.vocab_size - 2, (200,), generator=gen).tolist()
    long_tokens[3, :202] = torch.tensor(long_row + [a.vocab_size - 1])   # reaches past position 77

    # TorchScript archive, with the integer metadata OpenAI's .pt releases carry.
    scripted = torch.jit.script(model)
    torch.jit.save(scripted, os.path.join(a.out, "clip_jit.pt"))

    longclip = LongTinyClip(a.vocab_size, LONG_CONTEXT).eval()
    torch.save(longclip.state_dict(), os.path.join(a.out, "longclip.pt"))

    fp16_sd = OrderedDict((k, v.half()) for k, v in model.state_dict().items())
    torch.save(fp16_sd, os.path.join(a.out, "clip_fp16.pt"))
    rounded = TinyClip(a.vocab_size, CONTEXT).eval()
    rounded.load_state_dict({k: v.float() for k, v in fp16_sd.items()})

    ref = {
        "config": {"width": WIDTH, "layers": LAYERS, "patch": PATCH, "image_size": IMAGE,
                   "embed_dim": EMBED, "vocab_size": a.vocab_size},
        "images": images.flatten().tolist(), "image_shape": list(images.shape),
        "tokens": tokens.tolist(), "long_tokens": long_tokens.tolist(),
        "clip": outputs(model, images, tokens),
        "clip_jit": outputs(scripted, images, tokens),
        "longclip": outputs(longclip, images, long_tokens),
        "clip_fp16": outputs(rounded, images, tokens),
    }
    with open(os.path.join(a.out, "reference.json"), "w") as f:
        json.dump(ref, f)


if __name__ == "__main__":
    main()
