#!/usr/bin/python3
"""Writes the seed corpora of the fuzz targets into tests/fuzz/corpus/<target>/ (run once; the
files are committed, so CI needs no torch for fuzzing). Seeds are small valid inputs — libFuzzer
mutates from there — plus the minimised inputs of past findings, which this script leaves alone
(they are named finding-*). Torch is used only for the pickle and the zip archive, so that those
seeds are exactly what torch.save writes.

  /usr/bin/python3 tests/fuzz/make_corpus.py
"""
import collections
import io
import json
import os
import struct
import zipfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


def put(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def tokenizer_seeds():
    captions = {
        "plain": "a photo of a cat sitting on a red mat",
        "contractions": "it's what they'd've done, we'll see, I'm sure you're right",
        "digits": "12 apples and 3.5 pears cost $4,000",
        "special": "<|startoftext|>two <|endoftext|> tokens<|endoftext|>",
        "html": "fish &amp; chips &lt;b&gt; &eacute;t&eacute; &#x263a; &#128512; &notanentity;",
        "ftfy": "\u201cquoted\u201d it\u2019s \ufb01ne \uff21\uff22 caf\u00e9 \x1b[31mred\x1b[0m \x85 line\r\nbreak",
        "unicode": "\u0391\u03b8\u03ae\u03bd\u03b1 \u6771\u4eac \u0645\u0631\u062d\u0628\u0627 \U0001f600\u200d\U0001f680",
        "whitespace": "\t  lots\u3000of\u00a0  space \n\n ",
        "long": " ".join(["word"] * 40),
    }
    for name, text in captions.items():
        put("fuzz_clip_bpe_tokenizer", name + ".txt", text)
    put("fuzz_clip_bpe_tokenizer", "invalid_utf8.txt", b"bad \xff\xfe bytes \xc3\x28 \xe2\x82 end")


def manifest_seeds():
    put("fuzz_manifest_reader", "jsonl.jsonl",
        '{"image": "img/a.png", "captions": ["a cat", "a small cat"], "split": "train", "group": "g1"}\n'
        '\n'
        '{"image": "img/b.png", "caption": "a dog", "split": "test"}\n')
    put("fuzz_manifest_reader", "csv.csv",
        'image,caption,split,group\n'
        'img/a.png,"a cat, sitting",train,g1\n'
        'img/a.png,"the ""same"" cat",train,g1\n'
        'img/b.png,a dog,test,\n')
    put("fuzz_manifest_reader", "csv_reordered.csv",
        '\ufeffsplit,image,caption\r\ntrain,img/b.png,"multi\nline"\r\n')


def dci_seeds():
    put("fuzz_dci_json", "annotation.json", json.dumps({
        "image": "sa_1.png", "short_caption": "a cat", "extra_caption": "on a red mat",
        "mask_data": {"0": {"bounds": [[0, 0], [2, 2]], "outer_mask": "eJxjYGBgAAAABAAB"}},
        "summaries": {"base": ["x"]}}))
    put("fuzz_dci_json", "annotation_no_extra.json",
        '{"image": "sa_1.png", "short_caption": "only short", "extra_caption": ""}')
    put("fuzz_dci_json", "splits.json", json.dumps({"train": ["a.json"], "valid": [], "test": ["a.json"]}))


def tiny_state_dict():
    torch.manual_seed(0)
    return collections.OrderedDict([
        ("proj.weight", torch.randn(2, 3)),
        ("proj.bias", torch.zeros(2, dtype=torch.float16)),
        ("steps", torch.tensor(7, dtype=torch.int64)),
        ("mask", torch.tensor([True, False])),
    ])


def saved(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def state_dict_seeds():
    sd = tiny_state_dict()
    put("fuzz_state_dict_zip", "state_dict.pt", saved(sd))
    put("fuzz_state_dict_zip", "nested.pt", saved({"epoch": 3, "state_dict": sd}))
    # A view into a shared storage (offset, strides) and a parameter.
    base = torch.arange(12, dtype=torch.float32)
    put("fuzz_state_dict_zip", "views.pt", saved({
        "row": base.view(3, 4)[1], "col": base.view(3, 4)[:, 2],
        "param": torch.nn.Parameter(torch.ones(2))}))


def unpickler_seeds():
    # The data.pkl records of the archives above; their storage keys are "0".."N", which the
    # target's record loader serves.
    for name in ("state_dict.pt", "nested.pt", "views.pt"):
        with open(os.path.join(CORPUS, "fuzz_state_dict_zip", name), "rb") as f:
            z = zipfile.ZipFile(io.BytesIO(f.read()))
        pkl = next(n for n in z.namelist() if n.endswith("/data.pkl"))
        put("fuzz_torch_unpickler", name.replace(".pt", ".pkl"), z.read(pkl))


def safetensors_file(tensors, metadata=None):
    dtype_names = {torch.float32: "F32", torch.float16: "F16", torch.int64: "I64", torch.bool: "BOOL",
                   torch.uint8: "U8"}
    header = {}
    if metadata:
        header["__metadata__"] = metadata
    data = b""
    for key, t in tensors:
        raw = t.contiguous().numpy().tobytes()
        header[key] = {"dtype": dtype_names[t.dtype], "shape": list(t.shape),
                       "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def safetensors_seeds():
    sd = tiny_state_dict()
    put("fuzz_safetensors_header", "tiny.safetensors",
        safetensors_file(list(sd.items()), {"format": "pt"}))
    put("fuzz_safetensors_header", "empty_tensor.safetensors",
        safetensors_file([("e", torch.zeros(0, 3)), ("b", torch.ones(3, dtype=torch.uint8))]))
    put("fuzz_safetensors_header", "no_tensors.safetensors", safetensors_file([]))


def main():
    tokenizer_seeds()
    manifest_seeds()
    dci_seeds()
    state_dict_seeds()
    unpickler_seeds()
    safetensors_seeds()


if __name__ == "__main__":
    main()
