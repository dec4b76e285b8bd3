"""Fixtures for tests/core/model/test_pretrained_file.cpp: one OpenAI-named CLIP state dict laid
out as the ecosystem stores it, written by real PyTorch (Debian's /usr/bin/python3) with a
name mapping written here independently of the C++ one (from transformers' CLIPModel and
open_clip's documented layouts), so the C++ reader is checked against a known mapping.

usage: pretrained_layouts.py SRC.pt OUT_DIR TEXT_HEADS VISION_HEADS
SRC.pt is an OrderedDict under OpenAI CLIP names (hnclip's write_state_dict_file). Writes:
  hf/           config.json + pytorch_model.bin (HF names, with the position_ids buffers older
                transformers saved), hidden_act quick_gelu
  hf_gelu/      the same with hidden_act gelu
  open_clip/    open_clip_config.json (no quick_gelu key: exact GELU) + open_clip_pytorch_model.bin
  open_clip_quick/  the same with "quick_gelu": true
  train_ckpt.pt open_clip's training checkpoint {"epoch", "name", "state_dict": {"module.…"},
                "optimizer"}
  siglip.pt     the state dict plus a SigLIP logit_bias
  layer_scale.pt  the state dict plus layer scale (ls_1.gamma) in one block
"""
import collections
import json
import os
import re
import sys

import torch


def hf_names(sd):
    out = collections.OrderedDict()
    plain = {
        "token_embedding.weight": "text_model.embeddings.token_embedding.weight",
        "positional_embedding": "text_model.embeddings.position_embedding.weight",
        "ln_final.weight": "text_model.final_layer_norm.weight",
        "ln_final.bias": "text_model.final_layer_norm.bias",
        "visual.class_embedding": "vision_model.embeddings.class_embedding",
        "visual.conv1.weight": "vision_model.embeddings.patch_embedding.weight",
        "visual.positional_embedding": "vision_model.embeddings.position_embedding.weight",
        "visual.ln_pre.weight": "vision_model.pre_layrnorm.weight",
        "visual.ln_pre.bias": "vision_model.pre_layrnorm.bias",
        "visual.ln_post.weight": "vision_model.post_layernorm.weight",
        "visual.ln_post.bias": "vision_model.post_layernorm.bias",
        "logit_scale": "logit_scale",
    }
    block = {"attn.out_proj": "self_attn.out_proj", "ln_1": "layer_norm1", "ln_2": "layer_norm2",
             "mlp.c_fc": "mlp.fc1", "mlp.c_proj": "mlp.fc2"}
    for k, v in sd.items():
        if k in plain:
            out[plain[k]] = v.clone()
            continue
        if k == "text_projection":
            out["text_projection.weight"] = v.t().contiguous()
            continue
        if k == "visual.proj":
            out["visual_projection.weight"] = v.t().contiguous()
            continue
        tower = "vision_model" if k.startswith("visual.") else "text_model"
        m2 = re.match(r"^(?:visual\.)?transformer\.resblocks\.(\d+)\.attn\.in_proj_(weight|bias)$", k)
        m = re.match(r"^(visual\.)?transformer\.resblocks\.(\d+)\.(.+)\.(weight|bias)$", k)
        assert m2 or m, k
        if m2:
            q, kk, vv = v.chunk(3, dim=0)
            for name, part in (("q", q), ("k", kk), ("v", vv)):
                out[f"{tower}.encoder.layers.{m2.group(1)}.self_attn.{name}_proj.{m2.group(2)}"] = part.clone()
            continue
        layer, module, kind = m.group(2), m.group(3), m.group(4)
        out[f"{tower}.encoder.layers.{layer}.{block[module]}.{kind}"] = v.clone()
    n_text = sd["positional_embedding"].shape[0]
    n_vision = sd["visual.positional_embedding"].shape[0]
    out["text_model.embeddings.position_ids"] = torch.arange(n_text).unsqueeze(0)
    out["vision_model.embeddings.position_ids"] = torch.arange(n_vision).unsqueeze(0)
    return out


def hf_config(sd, text_heads, vision_heads, act):
    conv = sd["visual.conv1.weight"]
    grid = int(round((sd["visual.positional_embedding"].shape[0] - 1) ** 0.5))
    vocab = sd["token_embedding.weight"].shape[0]
    text_width = sd["ln_final.weight"].shape[0]
    layers = lambda prefix: len({k.split(".")[len(prefix.split(".")) - 1] for k in sd if k.startswith(prefix)})
    return {
        "architectures": ["CLIPModel"],
        "model_type": "clip",
        "projection_dim": sd["text_projection"].shape[1],
        "text_config": {
            "vocab_size": vocab, "hidden_size": text_width, "intermediate_size": 4 * text_width,
            "num_hidden_layers": layers("transformer.resblocks."), "num_attention_heads": text_heads,
            "max_position_embeddings": sd["positional_embedding"].shape[0], "hidden_act": act,
            "layer_norm_eps": 1e-5, "eos_token_id": vocab - 1, "bos_token_id": vocab - 2,
        },
        "vision_config": {
            "hidden_size": conv.shape[0], "intermediate_size": 4 * conv.shape[0],
            "num_hidden_layers": layers("visual.transformer.resblocks."),
            "num_attention_heads": vision_heads, "image_size": conv.shape[-1] * grid,
            "patch_size": conv.shape[-1], "hidden_act": act, "layer_norm_eps": 1e-5,
        },
    }


def open_clip_config(sd, text_heads, vision_heads, quick):
    conv = sd["visual.conv1.weight"]
    grid = int(round((sd["visual.positional_embedding"].shape[0] - 1) ** 0.5))
    layers = lambda prefix: len({k.split(".")[len(prefix.split(".")) - 1] for k in sd if k.startswith(prefix)})
    model = {
        "embed_dim": sd["text_projection"].shape[1],
        "vision_cfg": {"image_size": conv.shape[-1] * grid, "layers": layers("visual.transformer.resblocks."),
                       "width": conv.shape[0], "patch_size": conv.shape[-1],
                       "head_width": conv.shape[0] // vision_heads},
        "text_cfg": {"context_length": sd["positional_embedding"].shape[0],
                     "vocab_size": sd["token_embedding.weight"].shape[0],
                     "width": sd["ln_final.weight"].shape[0], "heads": text_heads,
                     "layers": layers("transformer.resblocks.")},
    }
    if quick:
        model["quick_gelu"] = True
    return {"model_cfg": model,
            "preprocess_cfg": {"mean": [0.48145466, 0.4578275, 0.40821073],
                               "std": [0.26862954, 0.26130258, 0.27577711]}}


def write(folder, name, obj):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    if name.endswith(".json"):
        with open(path, "w") as f:
            json.dump(obj, f, indent=2)
    else:
        torch.save(obj, path)


def main():
    src, out, text_heads, vision_heads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    sd = torch.load(src)
    for folder, act in (("hf", "quick_gelu"), ("hf_gelu", "gelu")):
        write(os.path.join(out, folder), "config.json", hf_config(sd, text_heads, vision_heads, act))
        write(os.path.join(out, folder), "pytorch_model.bin", hf_names(sd))
    for folder, quick in (("open_clip", False), ("open_clip_quick", True)):
        write(os.path.join(out, folder), "open_clip_config.json",
              open_clip_config(sd, text_heads, vision_heads, quick))
        write(os.path.join(out, folder), "open_clip_pytorch_model.bin", sd)
    params = list(sd.values())
    ckpt = {
        "epoch": 3,
        "name": "laion-run",
        "state_dict": collections.OrderedDict(("module." + k, v) for k, v in sd.items()),
        "optimizer": {
            "state": {0: {"step": torch.tensor(10.0), "exp_avg": torch.zeros_like(params[0])}},
            "param_groups": [{"lr": 1e-4, "betas": (0.9, 0.98), "eps": 1e-6, "weight_decay": 0.2,
                              "amsgrad": False, "foreach": None, "params": [0]}],
        },
    }
    write(out, "train_ckpt.pt", ckpt)
    siglip = collections.OrderedDict(sd)
    siglip["logit_bias"] = torch.tensor([-10.0])
    write(out, "siglip.pt", siglip)
    scaled = collections.OrderedDict(sd)
    width = sd["visual.conv1.weight"].shape[0]
    scaled["visual.transformer.resblocks.0.ls_1.gamma"] = torch.ones(width)
    write(out, "layer_scale.pt", scaled)


if __name__ == "__main__":
    main()
