"""A safetensors reader and writer written by hand from the format's specification (8-byte
little-endian header length N, N bytes of JSON header, the byte buffer) with struct + json + torch,
for testing core/model/safetensors_file against something that is not the C++ code itself
(Debian has no python3-safetensors). The writer lays files out as the reference implementation
does: a compact header listing __metadata__ first and then the tensors in byte order (fields
dtype, shape, data_offsets), padded with spaces to a multiple of 8.

  safetensors_files.py make DIR
      Writes fixtures into DIR and DIR/expected.json: {file name: {"tensors": [{"key", "dtype",
      "shape", "values"}, ...] in byte order, "metadata": {...}}}.
  safetensors_files.py check FILE EXPECTED_JSON
      Reads FILE with this reader (which enforces the specification's rules) and compares it with
      EXPECTED_JSON ({"tensors": [...], "metadata": {...}} as above). Exits 1 naming the first
      difference.
  safetensors_files.py rewrite IN OUT
      Reads IN and writes its tensors (in IN's byte order) and metadata to OUT with this writer.
  safetensors_files.py checksum FILE
      Prints "<key> <dtype> <shape> <sum in float64>" per tensor of FILE, in byte order.
"""
import json
import os
import struct
import sys

import torch

# safetensors dtype name -> (torch dtype, element size)
DTYPES = {
    "F64": (torch.float64, 8), "F32": (torch.float32, 4), "F16": (torch.float16, 2),
    "BF16": (torch.bfloat16, 2), "I64": (torch.int64, 8), "I32": (torch.int32, 4),
    "I16": (torch.int16, 2), "I8": (torch.int8, 1), "U8": (torch.uint8, 1), "BOOL": (torch.bool, 1),
}
NAME_OF = {t: name for name, (t, _) in DTYPES.items()}
MAX_HEADER = 100_000_000


def tensor_bytes(t):
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16; same-size reinterpretation
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def tensor_from_bytes(buf, dtype_name, shape):
    dtype, size = DTYPES[dtype_name]
    if dtype == torch.bfloat16:
        flat = torch.frombuffer(bytearray(buf), dtype=torch.int16).view(torch.bfloat16) if buf else \
            torch.empty(0, dtype=torch.bfloat16)
    else:
        flat = torch.frombuffer(bytearray(buf), dtype=dtype) if buf else torch.empty(0, dtype=dtype)
    return flat.reshape(shape)


def header_bytes(entries, metadata, pad=True):
    """entries: [(name, dtype name, shape, begin, end)] in the order to list them."""
    parts = []
    if metadata:
        parts.append('"__metadata__":' + json.dumps(metadata, separators=(",", ":"), ensure_ascii=False,
                                                     sort_keys=True))
    for name, dtype, shape, begin, end in entries:
        info = {"dtype": dtype, "shape": list(shape), "data_offsets": [begin, end]}
        parts.append(json.dumps(name, ensure_ascii=False) + ":" + json.dumps(info, separators=(",", ":")))
    text = ("{" + ",".join(parts) + "}").encode("utf-8")
    if pad:
        text += b" " * ((8 - len(text) % 8) % 8)
    return text


def write(path, tensors, metadata=None, pad=True, listed_order=None):
    """tensors: [(name, tensor)] in byte order; listed_order: the header's order of names."""
    entries, blobs, offset = [], [], 0
    for name, t in tensors:
        data = tensor_bytes(t)
        entries.append((name, NAME_OF[t.dtype], list(t.shape), offset, offset + len(data)))
        blobs.append(data)
        offset += len(data)
    if listed_order is not None:
        entries.sort(key=lambda e: listed_order.index(e[0]))
    header = header_bytes(entries, metadata or {}, pad)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)))
        f.write(header)
        for data in blobs:
            f.write(data)


def read(path):
    """(tensors [(name, tensor)] in byte order, metadata), refusing what the spec refuses."""
    with open(path, "rb") as f:
        whole = f.read()
    if len(whole) < 8:
        sys.exit(f"{path}: shorter than 8 bytes")
    (n,) = struct.unpack("<Q", whole[:8])
    if n > MAX_HEADER or 8 + n > len(whole):
        sys.exit(f"{path}: header length {n} invalid")
    header = json.loads(whole[8:8 + n].decode("utf-8"))
    metadata = header.pop("__metadata__", {})
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        sys.exit(f"{path}: __metadata__ not a string map")
    data = whole[8 + n:]
    items = sorted(header.items(), key=lambda kv: tuple(kv[1]["data_offsets"]))
    out, expected = [], 0
    for name, info in items:
        begin, end = info["data_offsets"]
        dtype, size = DTYPES[info["dtype"]]
        numel = 1
        for d in info["shape"]:
            numel *= d
        if begin != expected or end - begin != numel * size:
            sys.exit(f"{path}: {name} offsets [{begin}, {end}] invalid (expected begin {expected}, "
                     f"{numel * size} bytes)")
        expected = end
        out.append((name, tensor_from_bytes(data[begin:end], info["dtype"], info["shape"])))
    if expected != len(data):
        sys.exit(f"{path}: tensors cover {expected} of {len(data)} data bytes")
    return out, metadata


def describe(tensors):
    return [{
        "key": name,
        "dtype": NAME_OF[t.dtype],
        "shape": list(t.shape),
        "values": [float(v) for v in t.reshape(-1).to(torch.float64).tolist()],
    } for name, t in tensors]


def make(out_dir):
    torch.manual_seed(11)
    expected = {}

    def save(name, tensors, metadata=None, **kwargs):
        write(os.path.join(out_dir, name), tensors, metadata, **kwargs)
        expected[name] = {"tensors": describe(tensors), "metadata": metadata or {}}

    dtypes = [
        ("f64", torch.randn(2, 2, dtype=torch.float64)),
        ("f32", torch.randn(3, 4)),
        ("f16", torch.randn(2, 3).half()),
        ("bf16", torch.randn(5).bfloat16()),
        ("i64", torch.tensor([[-3, 0], [7, 1 << 40]], dtype=torch.int64)),
        ("i32", torch.tensor([-5, 6], dtype=torch.int32)),
        ("i16", torch.tensor([-300, 301, 7], dtype=torch.int16)),
        ("i8", torch.tensor([-128, 127], dtype=torch.int8)),
        ("u8", torch.tensor([0, 255, 17], dtype=torch.uint8)),
        ("bool", torch.tensor([True, False, True])),
        ("scalar", torch.tensor(3.25)),
        ("empty", torch.zeros(0, 3)),
    ]
    save("dtypes.safetensors", dtypes, {"format": "pt", "note": "written by hand"})
    # The header lists the tensors in another order than their bytes (allowed: readers sort by
    # offset), and the file has no metadata.
    order = [("a", torch.arange(6.0).view(2, 3)), ("b", torch.tensor([1, 2], dtype=torch.int64)),
             ("c", torch.tensor([0.5]))]
    save("header_order.safetensors", order, listed_order=["c", "a", "b"])
    # An unpadded header of odd length: every tensor's bytes start at an odd file offset.
    unaligned = [("w", torch.randn(3, 2)), ("d", torch.randn(2, dtype=torch.float64))]
    for pad in ("", "x"):
        entries = [("w", "F32", [3, 2], 0, 24), ("d", "F64", [2], 24, 40)]
        if len(header_bytes(entries, {"pad": pad}, pad=False)) % 2 == 1:
            save("unaligned.safetensors", unaligned, {"pad": pad}, pad=False)

    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(expected, f)


def check(path, expected_path):
    with open(expected_path) as f:
        want = json.load(f)
    tensors, metadata = read(path)
    got = describe(tensors)
    if metadata != want["metadata"]:
        sys.exit(f"{path}: metadata {metadata} != {want['metadata']}")
    if [g["key"] for g in got] != [w["key"] for w in want["tensors"]]:
        sys.exit(f"{path}: keys {[g['key'] for g in got]} != {[w['key'] for w in want['tensors']]}")
    for g, w in zip(got, want["tensors"]):
        for field in ("dtype", "shape", "values"):
            if g[field] != w[field]:
                sys.exit(f"{path}: {g['key']} {field} {str(g[field])[:80]} != {str(w[field])[:80]}")
    print(f"ok {len(got)} tensors")


def rewrite(src, dst):
    tensors, metadata = read(src)
    write(dst, tensors, metadata)


def checksum(path):
    for name, t in read(path)[0]:
        print(name, NAME_OF[t.dtype], "x".join(str(s) for s in t.shape) or "scalar",
              repr(float(t.to(torch.float64).sum())))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "make":
        make(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "rewrite":
        rewrite(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "checksum":
        checksum(sys.argv[2])
    else:
        sys.exit("usage: safetensors_files.py make DIR | check FILE EXPECTED_JSON | rewrite IN OUT | checksum FILE")
