"""Fixtures and checks for core/model/state_dict_file, made by real PyTorch (Debian's
/usr/bin/python3 with python3-torch), so the C++ reader and writer are tested against what
torch.save / torch.jit.save / torch.load actually do.

  state_dict_files.py make DIR
      Writes the fixture files into DIR, and DIR/expected.json:
      {file name: [{"key", "dtype", "shape", "values"}, ...] in file order} for the readable ones.
  state_dict_files.py check FILE EXPECTED_JSON
      torch.load(FILE) must be a collections.OrderedDict with exactly the entries of EXPECTED_JSON
      (same format as above, one list), in that order, with equal dtype, shape and values.
      Exits 1 with a message naming the first difference.
  state_dict_files.py checksum FILE
      Prints "<key> <dtype> <shape> <sum in float64>" per entry of torch.load(FILE), in file order.
"""
import collections
import json
import os
import pickle
import sys
import zipfile

import torch


def describe(sd):
    out = []
    for key, t in sd.items():
        out.append({
            "key": key,
            "dtype": str(t.dtype).replace("torch.", ""),
            "shape": list(t.shape),
            "values": [float(v) for v in t.detach().reshape(-1).to(torch.float64).tolist()],
        })
    return out


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(3, 2)
        self.norm = torch.nn.BatchNorm1d(2)
        self.scale = torch.nn.Parameter(torch.tensor(2.5))
        self.register_buffer("mask", torch.tensor([True, False, True]))


class Scripted(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.input_resolution = 224  # an int attribute, like OpenAI CLIP's: not a weight
        self.inner = torch.nn.Linear(2, 2)
        self.register_buffer("steps", torch.tensor([1, 2, 3], dtype=torch.int64))
        self.logit_scale = torch.nn.Parameter(torch.tensor([4.0]).half())

    def forward(self, x):
        return self.inner(x) * self.input_resolution


def make(out_dir):
    torch.manual_seed(7)
    expected = {}

    def save(name, obj, entries, **kwargs):
        torch.save(obj, os.path.join(out_dir, name), **kwargs)
        if entries is not None:
            expected[name] = describe(entries)

    dtypes = collections.OrderedDict()
    dtypes["f32"] = torch.randn(3, 4)
    dtypes["f16"] = torch.randn(2, 3).half()
    dtypes["bf16"] = torch.randn(5).bfloat16()
    dtypes["f64"] = torch.randn(2, 2, dtype=torch.float64)
    dtypes["i64"] = torch.tensor([[-3, 0], [7, 1 << 40]], dtype=torch.int64)
    dtypes["i32"] = torch.tensor([-5, 6], dtype=torch.int32)
    dtypes["u8"] = torch.tensor([0, 255, 17], dtype=torch.uint8)
    dtypes["bool"] = torch.tensor([True, False, True, True])
    dtypes["scalar"] = torch.tensor(3.25)
    dtypes["empty"] = torch.zeros(0, 3)
    save("dtypes.pt", dtypes, dtypes)

    t = torch.arange(20.0).view(4, 5)
    views = collections.OrderedDict()
    views["a"] = t[:, 1:3]
    views["b"] = t.t()
    views["row"] = t[2]
    views["whole"] = t
    views["strided"] = t[::2, ::2]
    save("views.pt", views, views)

    module = Small()
    with torch.no_grad():
        module.norm.running_mean.fill_(0.5)
    sd = module.state_dict()
    save("module.pt", sd, sd)

    plain = {"x": torch.randn(2, 2), "y": torch.tensor([1, 2, 3])}
    save("plain.pt", plain, plain)

    nested = {"epoch": 3, "lr": 0.01, "name": "run", "history": [1.5, 2.5], "done": True, "none": None,
              "state_dict": module.state_dict()}
    save("nested.pt", nested, module.state_dict())

    params = collections.OrderedDict(p=torch.nn.Parameter(torch.randn(2, 3)))
    save("parameter.pt", params, params)

    scripted = torch.jit.script(Scripted())
    scripted.save(os.path.join(out_dir, "script.pt"))
    expected["script.pt"] = describe(collections.OrderedDict(
        (k, v) for k, v in scripted.state_dict().items()))

    torch.save(dtypes, os.path.join(out_dir, "legacy.pt"), _use_new_zipfile_serialization=False)
    with open(os.path.join(out_dir, "notzip.pt"), "w") as f:
        f.write("hello, not a zip\n")
    with open(os.path.join(out_dir, "dtypes.pt"), "rb") as f:
        whole = f.read()
    with open(os.path.join(out_dir, "truncated.pt"), "wb") as f:
        f.write(whole[: len(whole) // 2])
    # A torch.save archive with one storage record taken out.
    with zipfile.ZipFile(os.path.join(out_dir, "dtypes.pt")) as src, \
            zipfile.ZipFile(os.path.join(out_dir, "missing_record.pt"), "w") as dst:
        for info in src.infolist():
            if not info.filename.endswith("/data/1"):
                dst.writestr(info.filename, src.read(info.filename))
    # A zip laid out like torch.save's whose data.pkl is a protocol-0 pickle (text opcodes).
    with zipfile.ZipFile(os.path.join(out_dir, "protocol0.pt"), "w") as dst:
        dst.writestr("archive/data.pkl", pickle.dumps({"a": 1}, protocol=0))
        dst.writestr("archive/version", "3\n")
    save("device.pt", {"w": torch.ones(2), "where": torch.device("cpu")}, None)
    save("list.pt", [torch.ones(2)], None)
    # One float of storage seen as 200000 x 200000 through zero strides: 160 GB if materialised.
    save("expanded.pt", {"w": torch.ones(1).expand(200000, 200000)}, None)

    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(expected, f)


def check(path, expected_path):
    with open(expected_path) as f:
        expected = json.load(f)
    sd = torch.load(path)
    if not isinstance(sd, collections.OrderedDict):
        sys.exit(f"{path}: loaded a {type(sd).__name__}, not an OrderedDict")
    keys = list(sd.keys())
    want = [e["key"] for e in expected]
    if keys != want:
        sys.exit(f"{path}: keys {keys} != expected {want}")
    for e in expected:
        t = sd[e["key"]]
        if not isinstance(t, torch.Tensor):
            sys.exit(f"{path}: {e['key']} is a {type(t).__name__}")
        dtype = str(t.dtype).replace("torch.", "")
        if dtype != e["dtype"]:
            sys.exit(f"{path}: {e['key']} dtype {dtype} != {e['dtype']}")
        if list(t.shape) != e["shape"]:
            sys.exit(f"{path}: {e['key']} shape {list(t.shape)} != {e['shape']}")
        values = [float(v) for v in t.reshape(-1).to(torch.float64).tolist()]
        if values != e["values"]:
            sys.exit(f"{path}: {e['key']} values {values[:8]} != {e['values'][:8]}")
        if t.requires_grad:
            sys.exit(f"{path}: {e['key']} requires grad")
    print(f"ok {len(expected)} tensors")


def checksum(path):
    for key, t in torch.load(path).items():
        print(key, str(t.dtype).replace("torch.", ""), "x".join(str(s) for s in t.shape) or "scalar",
              repr(float(t.to(torch.float64).sum())))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "checksum":
        checksum(sys.argv[2])
    else:
        sys.exit("usage: state_dict_files.py make DIR | check FILE EXPECTED_JSON | checksum FILE")
