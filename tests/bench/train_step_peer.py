"""The peer of tests/bench/train_step_vs_pytorch.cpp: the same CLIP fine-tuning step written as a
researcher would write it in PyTorch (OpenAI CLIP's model.py architecture, sequence-first
nn.MultiheadAttention, fp32 LayerNorm, QuickGELU; the HN-CLIP loss as the paper states it; AdamW
with decayed matrices and undecayed gains, biases, embeddings and logit scale). Run by Debian's
/usr/bin/python3, whose python3-torch is the same LibTorch 1.13 the workbench links. Written
independently of the C++ model, from the documented architecture.

usage:
  train_step_peer.py check WEIGHTS BATCH GAMMA OUT [pooled-rows]
      one forward and backward on BATCH (no update); torch.save's {"loss": scalar,
      "grad/<name>": gradient} to OUT, every parameter's gradient under its state-dict name
  train_step_peer.py time WEIGHTS BATCH GAMMA THREADS WARMUP STEPS [pooled-rows]
      WARMUP + STEPS optimiser steps on BATCH; prints one JSON line {"step_seconds": [...]} with
      the STEPS timed steps (each from the end of the previous one, as the C++ side times them)
  pooled-rows: each tower's last block computes only the row its pooled feature reads (the class
      token, each caption's end token), as the workbench does when it needs no token features —
      written here as a PyTorch user would write it (nn.MultiheadAttention with one query row and
      a per-caption mask), the control that tells that saving from the rest of the step
  train_step_peer.py gpu-time PRESET CONTEXT BATCH GAMMA WARMUP STEPS DEVICE eager|compile
      tests/bench/gpu_step.sh's peer: the model of PRESET (ViT-L/14, ViT-B/32, tiny) with random
      weights and a CONTEXT-token text tower on DEVICE, a random batch, the encoders under bf16
      autocast and the loss in fp32, AdamW; `compile` runs the forward (both towers and the loss)
      through torch.compile.
      Prints one JSON line {"step_seconds": [...], "first_step_seconds", "loss": first loss,
      "phase_seconds": {"forward", "backward", "optimizer": [...]}} (steps synchronised on CUDA
      before the clock is read; the phases from 3 more steps synchronised between them)

  train_step_peer.py gpu-profile PRESET CONTEXT BATCH GAMMA STEPS DEVICE eager|compile
      the gpu-time step's device time by kernel class (matrix products, attention, norms,
      elementwise, optimiser, torch.compile's generated kernels) over STEPS profiled steps: where
      eager and compiled PyTorch differ, and so what the C++ step (eager's kernels) would need

WEIGHTS: a torch.save'd state dict under OpenAI CLIP's names (what `hnclip export` writes);
BATCH: torch.save'd {"images": [B, 3, S, S] float32, "tokens": [B, L] int64, "vision_heads",
"text_heads": int64 scalars}. The rest of the model's shape is read off the weights (as OpenAI's
build_model does); the heads are given because the workbench's tiny preset does not follow
OpenAI's width // 64.
"""
import json
import math
import sys
import time
from collections import OrderedDict

import torch
from torch import nn
import torch.nn.functional as F


class LayerNorm(nn.LayerNorm):
    def forward(self, x):
        t = x.dtype
        return F.layer_norm(x.float(), self.normalized_shape, self.weight, self.bias, self.eps).to(t)


class QuickGELU(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(1.702 * x)


class ResidualAttentionBlock(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(width, heads)
        self.ln_1 = LayerNorm(width)
        self.mlp = nn.Sequential(OrderedDict([("c_fc", nn.Linear(width, width * 4)),
                                              ("gelu", QuickGELU()),
                                              ("c_proj", nn.Linear(width * 4, width))]))
        self.ln_2 = LayerNorm(width)

    def forward(self, x, mask):
        h = self.ln_1(x)
        x = x + self.attn(h, h, h, need_weights=False, attn_mask=mask)[0]
        return x + self.mlp(self.ln_2(x))

    def forward_rows(self, x, rows, row_mask):
        # x: [N, B, W]; the block's output at position rows[b] of each sequence b, [B, W].
        batch = torch.arange(x.shape[1])
        h = self.ln_1(x)
        y = x[rows, batch] + self.attn(h[rows, batch].unsqueeze(0), h, h, need_weights=False,
                                       attn_mask=row_mask)[0][0]
        return y + self.mlp(self.ln_2(y))


class Transformer(nn.Module):
    def __init__(self, width, layers, heads):
        super().__init__()
        self.resblocks = nn.ModuleList([ResidualAttentionBlock(width, heads) for _ in range(layers)])

    def forward(self, x, mask=None):
        for block in self.resblocks:
            x = block(x, mask)
        return x

    def forward_rows(self, x, mask, rows, row_mask):
        for block in self.resblocks[:-1]:
            x = block(x, mask)
        return self.resblocks[-1].forward_rows(x, rows, row_mask)


class VisionTransformer(nn.Module):
    def __init__(self, resolution, patch, width, layers, heads, embed):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, kernel_size=patch, stride=patch, bias=False)
        self.class_embedding = nn.Parameter(torch.empty(width))
        self.positional_embedding = nn.Parameter(torch.empty((resolution // patch) ** 2 + 1, width))
        self.ln_pre = LayerNorm(width)
        self.transformer = Transformer(width, layers, heads)
        self.ln_post = LayerNorm(width)
        self.proj = nn.Parameter(torch.empty(width, embed))

    def forward(self, x, pooled_rows=False):
        x = self.conv1(x)
        x = x.reshape(x.shape[0], x.shape[1], -1).permute(0, 2, 1)
        cls = self.class_embedding.to(x.dtype) + torch.zeros(x.shape[0], 1, x.shape[-1], dtype=x.dtype,
                                                             device=x.device)
        x = torch.cat([cls, x], dim=1) + self.positional_embedding.to(x.dtype)
        x = self.ln_pre(x).permute(1, 0, 2)
        if pooled_rows:
            rows = torch.zeros(x.shape[1], dtype=torch.long, device=x.device)
            return self.ln_post(self.transformer.forward_rows(x, None, rows, None)) @ self.proj
        x = self.transformer(x).permute(1, 0, 2)
        return self.ln_post(x[:, 0, :]) @ self.proj


class CLIP(nn.Module):
    def __init__(self, sd, vision_heads, text_heads, pooled_rows=False):
        super().__init__()
        self.pooled_rows = pooled_rows
        self.text_heads = text_heads
        vision_width = sd["visual.conv1.weight"].shape[0]
        patch = sd["visual.conv1.weight"].shape[-1]
        grid = round((sd["visual.positional_embedding"].shape[0] - 1) ** 0.5)
        vision_layers = len({k.split(".")[3] for k in sd if k.startswith("visual.transformer.resblocks.")})
        embed = sd["text_projection"].shape[1]
        context, text_width = sd["positional_embedding"].shape
        vocab = sd["token_embedding.weight"].shape[0]
        text_layers = len({k.split(".")[2] for k in sd if k.startswith("transformer.resblocks.")})
        self.visual = VisionTransformer(grid * patch, patch, vision_width, vision_layers,
                                        vision_heads, embed)
        self.transformer = Transformer(text_width, text_layers, text_heads)
        self.token_embedding = nn.Embedding(vocab, text_width)
        self.positional_embedding = nn.Parameter(torch.empty(context, text_width))
        self.ln_final = LayerNorm(text_width)
        self.text_projection = nn.Parameter(torch.empty(text_width, embed))
        self.logit_scale = nn.Parameter(torch.ones([]))
        self.register_buffer("attn_mask", torch.full((context, context), float("-inf")).triu(1),
                             persistent=False)

    def encode_image(self, images):
        return self.visual(images, self.pooled_rows)

    def encode_text(self, text):
        x = self.token_embedding(text) + self.positional_embedding
        eot = text.argmax(dim=-1)
        if self.pooled_rows:
            # The end token's row sees positions up to its own: one mask row per caption and head.
            later = torch.arange(x.shape[1], device=x.device) > eot.unsqueeze(1)
            row_mask = torch.zeros(later.shape, dtype=x.dtype, device=x.device).masked_fill(
                later, float("-inf")).unsqueeze(1).repeat_interleave(self.text_heads, dim=0)
            x = self.transformer.forward_rows(x.permute(1, 0, 2), self.attn_mask, eot, row_mask)
            return self.ln_final(x) @ self.text_projection
        x = self.transformer(x.permute(1, 0, 2), self.attn_mask).permute(1, 0, 2)
        x = self.ln_final(x)
        return x[torch.arange(x.shape[0]), eot] @ self.text_projection


def hn_clip_loss(image, text, scale, gamma):
    """Symmetric InfoNCE with the margins gamma * Gbar on the negatives (Gbar = T T^T detached,
    diagonal 0); gamma = 0 is plain InfoNCE."""
    s = image @ text.t()
    labels = torch.arange(s.shape[0], device=s.device)
    if gamma > 0:
        # Gbar's diagonal zeroed out of place: torch.compile refuses fill_diagonal_ on this view
        # (a mutation through as_strided); the values are the same.
        eye = torch.eye(s.shape[0], dtype=torch.bool, device=s.device)
        g = (text @ text.t()).detach().masked_fill(eye, 0.0)
        logits_i, logits_t = scale * (s + gamma * g), scale * (s.t() + gamma * g)
    else:
        logits_i, logits_t = scale * s, scale * s.t()
    return 0.5 * (F.cross_entropy(logits_i, labels) + F.cross_entropy(logits_t, labels))


def load(weights_path, batch_path, pooled_rows=False):
    sd = torch.load(weights_path)
    batch = torch.load(batch_path)
    model = CLIP(sd, int(batch["vision_heads"]), int(batch["text_heads"]), pooled_rows)
    model.load_state_dict(sd, strict=True)
    return model, batch["images"], batch["tokens"]


def forward_loss(model, images, tokens, gamma):
    image = F.normalize(model.encode_image(images), dim=-1)
    text = F.normalize(model.encode_text(tokens), dim=-1)
    scale = model.logit_scale.exp().clamp(max=100.0)
    return hn_clip_loss(image, text, scale, gamma), scale


def check(weights_path, batch_path, gamma, out, pooled_rows):
    model, images, tokens = load(weights_path, batch_path, pooled_rows)
    model.train()
    loss, _ = forward_loss(model, images, tokens, gamma)
    loss.backward()
    result = {"loss": loss.detach()}
    for name, p in model.named_parameters():
        result["grad/" + name] = p.grad.detach().clone()
    torch.save(result, out)


def time_steps(weights_path, batch_path, gamma, threads, warmup, steps, pooled_rows):
    torch.set_num_threads(threads)
    model, images, tokens = load(weights_path, batch_path, pooled_rows)
    model.train()
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.dim() < 2 or "embedding" in name or name == "logit_scale" else decay).append(p)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=5e-5, betas=(0.9, 0.98), eps=1e-6)
    params = decay + no_decay
    times = []
    last = time.perf_counter()
    for _ in range(warmup + steps):
        loss, scale = forward_loss(model, images, tokens, gamma)
        loss_value = loss.item()
        if not math.isfinite(loss_value):
            raise SystemExit("non-finite loss")
        opt.zero_grad()
        loss.backward()
        # The workbench logs the gradient norm every step; so does this loop.
        grad_norm = torch.stack([p.grad.norm() for p in params if p.grad is not None]).norm().item()
        opt.step()
        with torch.no_grad():
            model.logit_scale.clamp_(max=math.log(100.0))
        _ = (grad_norm, scale.item())
        now = time.perf_counter()
        times.append(now - last)
        last = now
    print(json.dumps({"step_seconds": times[warmup:]}))


# The workbench's presets (core/model/clip_config.cpp): vision (resolution, patch, width, layers,
# heads), text (width, layers, heads), embed.
GPU_PRESETS = {
    "tiny": ((48, 8, 64, 2, 2), (64, 2, 2), 64),
    "ViT-B/32": ((224, 32, 768, 12, 12), (512, 12, 8), 512),
    "ViT-L/14": ((224, 14, 1024, 24, 16), (768, 12, 12), 768),
}
VOCAB = 49408


def random_clip(preset, context):
    """The architecture above at a preset's size with random weights (CLIP's initialisation scales
    do not matter for timing; finite, modest values do)."""
    (res, patch, vw, vl, vh), (tw, tl, th), embed = GPU_PRESETS[preset]
    sd = {"visual.conv1.weight": torch.empty(vw, 3, patch, patch),
          "visual.positional_embedding": torch.empty((res // patch) ** 2 + 1, vw),
          "text_projection": torch.empty(tw, embed),
          "positional_embedding": torch.empty(context, tw),
          "token_embedding.weight": torch.empty(VOCAB, tw)}
    sd.update({f"visual.transformer.resblocks.{i}.x": None for i in range(vl)})
    sd.update({f"transformer.resblocks.{i}.x": None for i in range(tl)})
    model = CLIP(sd, vh, th)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name == "logit_scale":
                p.fill_(math.log(1 / 0.07))
            elif name.endswith("weight") and p.dim() == 1:
                p.fill_(1.0)
            elif name.endswith("bias"):
                p.zero_()
            else:
                p.normal_(0.0, p.shape[-1] ** -0.5 if p.dim() > 1 else 0.02)
    return model


def gpu_step_setup(preset, context, batch, gamma, device, mode):
    """The GPU modes' shared step: the model of PRESET with random weights on DEVICE, a random
    batch, AdamW, and the loss function (compiled for mode `compile`). Returns
    (dev, model, images, tokens, opt, loss_fn)."""
    torch.manual_seed(0)
    dev = torch.device(device)
    model = random_clip(preset, context).to(dev)
    model.train()
    res = GPU_PRESETS[preset][0][0]
    images = torch.randn(batch, 3, res, res, device=dev)
    tokens = torch.randint(1, VOCAB - 1, (batch, context), device=dev)
    tokens[:, -1] = VOCAB - 1  # the end token last: every caption fills the context
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, betas=(0.9, 0.98), eps=1e-6,
                            weight_decay=0.1)

    def step_loss(images, tokens):
        with torch.autocast(device_type=dev.type, dtype=torch.bfloat16):
            image = model.encode_image(images)
            text = model.encode_text(tokens)
        image, text = F.normalize(image.float(), dim=-1), F.normalize(text.float(), dim=-1)
        return hn_clip_loss(image, text, model.logit_scale.exp().clamp(max=100.0), gamma)

    # torch.compile(model) alone would compile only model.forward, which this CLIP (like OpenAI's)
    # never calls: encode_image / encode_text would run eager. Compiling the whole forward (both
    # towers and the loss) as one function is the peer at its strongest; its backward is compiled
    # with it (AOTAutograd). The optimiser stays torch.optim's default (foreach on CUDA).
    loss_fn = torch.compile(step_loss) if mode == "compile" else step_loss
    return dev, model, images, tokens, opt, loss_fn


def gpu_time(preset, context, batch, gamma, warmup, steps, device, mode, phase_steps=3):
    dev, model, images, tokens, opt, loss_fn = gpu_step_setup(preset, context, batch, gamma,
                                                              device, mode)

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)

    times, first_loss = [], None
    sync()
    last = time.perf_counter()
    for _ in range(warmup + steps):
        loss = loss_fn(images, tokens)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sync()
        if first_loss is None:
            first_loss = loss.item()
        now = time.perf_counter()
        times.append(now - last)
        last = now
    # Where a step's time goes: a few more steps, synchronised between the phases (so a little
    # slower in all than the timed steps above).
    phases = {"forward": [], "backward": [], "optimizer": []}
    for _ in range(phase_steps):
        t0 = time.perf_counter()
        loss = loss_fn(images, tokens)
        sync()
        t1 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        sync()
        t2 = time.perf_counter()
        opt.step()
        sync()
        t3 = time.perf_counter()
        phases["forward"].append(t1 - t0)
        phases["backward"].append(t2 - t1)
        phases["optimizer"].append(t3 - t2)
    report = {"step_seconds": times[warmup:], "first_step_seconds": times[0], "loss": first_loss,
              "phase_seconds": phases, "torch_version": torch.__version__, "mode": mode}
    if dev.type == "cuda":
        report["peak_memory_bytes"] = torch.cuda.max_memory_allocated(dev)
    print(json.dumps(report))


KERNEL_CLASSES = (  # first match wins; names as CUDA kernels are reported by torch.profiler
    ("optimiser (AdamW)", ("multi_tensor_apply", "foreach", "adam")),
    ("attention (flash / memory-efficient)", ("flash", "fmha", "attention", "efficient")),
    ("matrix products (GEMM)", ("gemm", "xmma", "cutlass", "nvjet", "cublas", "wgmma", "sm90")),
    ("generated by torch.compile (Triton)", ("triton",)),
    ("norms, softmax and reductions", ("layer_norm", "norm", "softmax", "reduce", "welford")),
    ("elementwise and copies", ("elementwise", "vectorized", "unrolled", "copy", "cat", "index",
                                "fill", "mul", "add")),
)


def kernel_class(name):
    low = name.lower()
    for label, keys in KERNEL_CLASSES:
        if any(k in low for k in keys):
            return label
    return "other"


def gpu_profile(preset, context, batch, gamma, steps, device, mode):
    """Where the device time of a step goes, by kernel class: `steps` steps under torch.profiler
    after a warm-up (compile's included). Prints one JSON line {"per_step_ms": {class: ms},
    "top": [[kernel, ms per step, class], ...], "steps": N}."""
    from torch.profiler import ProfilerActivity, profile
    dev, model, images, tokens, opt, loss_fn = gpu_step_setup(preset, context, batch, gamma,
                                                              device, mode)

    def step():
        loss = loss_fn(images, tokens)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    for _ in range(3 if mode == "eager" else 8):
        step()
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev.type == "cuda" else [])
    with profile(activities=activities) as prof:
        for _ in range(steps):
            step()
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
    per_class, kernels = {}, []
    from torch.autograd import DeviceType
    for e in prof.key_averages():
        # Device kernels only: an ATen operator's entry (aten::mm, ...) also carries the device
        # time of the kernels it launched, and a Triton kernel also has a host-side launch entry;
        # counting those too counted kernels twice (the first H200 profile did: 649 ms of
        # "device time" in a 318 ms step).
        if getattr(e, "device_type", None) != DeviceType.CUDA:
            continue
        us = getattr(e, "self_device_time_total", None)
        if us is None:
            us = getattr(e, "self_cuda_time_total", 0)
        if not us or us <= 0:
            continue
        label = kernel_class(e.key)
        per_class[label] = per_class.get(label, 0.0) + us / 1e3 / steps
        kernels.append((e.key[:120], us / 1e3 / steps, label))
    kernels.sort(key=lambda k: -k[1])
    print(json.dumps({"mode": mode, "steps": steps, "per_step_ms": per_class,
                      "total_ms": sum(per_class.values()), "top": kernels[:25]}))


def pooled_rows_flag(args):
    if args and args != ["pooled-rows"]:
        raise SystemExit("train_step_peer.py: unknown arguments " + " ".join(args))
    return bool(args)


def main():
    mode = sys.argv[1]
    if mode == "check":
        check(sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5],
              pooled_rows_flag(sys.argv[6:]))
    elif mode == "time":
        time_steps(sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]),
                   int(sys.argv[7]), pooled_rows_flag(sys.argv[8:]))
    elif mode == "gpu-time":
        gpu_time(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]),
                 int(sys.argv[6]), int(sys.argv[7]), sys.argv[8], sys.argv[9])
    elif mode == "gpu-profile":
        gpu_profile(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]),
                    int(sys.argv[6]), sys.argv[7], sys.argv[8])
    else:
        raise SystemExit("usage: train_step_peer.py check|time|gpu-time|gpu-profile ...")


if __name__ == "__main__":
    main()
