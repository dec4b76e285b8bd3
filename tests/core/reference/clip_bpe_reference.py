"""Reference token ids for ClipBpeTokenizer: OpenAI CLIP's simple_tokenizer algorithm written
independently of the C++ code, on Python's own machinery: html.unescape, re (Python's \\s),
str.lower(), and a real backtracking regex for CLIP's pre-tokenisation pattern. The only stand-in:
Python's re has no \\p{L}/\\p{N}, so those classes are built here from unicodedata categories.
ftfy.fix_text is not applied (as in the C++ tokenizer; ftfy is not installed).

Reads a JSON file {"vocab": path, "texts": [str, ...]} and writes
{"ids": [[49406, ..., 49407], ...]} (no truncation, no padding).
"""
import gzip
import html
import json
import re
import sys
import unicodedata


def byte_symbols():
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    order, chars = keep[:], keep[:]
    extra = 0
    for b in range(256):
        if b not in keep:
            order.append(b)
            chars.append(256 + extra)
            extra += 1
    return dict(zip(order, [chr(c) for c in chars]))


def category_class(prefix):
    """A re character-class body listing every code point of general category prefix*."""
    parts, start = [], None
    for cp in range(0x110001):
        inside = cp < 0x110000 and unicodedata.category(chr(cp)).startswith(prefix)
        if inside and start is None:
            start = cp
        elif not inside and start is not None:
            parts.append(re.escape(chr(start)) + ("-" + re.escape(chr(cp - 1)) if cp - 1 > start else ""))
            start = None
    return "".join(parts)


class Reference:
    def __init__(self, vocab_path):
        self.byte_sym = byte_symbols()
        lines = gzip.open(vocab_path).read().decode("utf-8").split("\n")
        merges = [tuple(line.split()) for line in lines[1:49152 - 256 - 2 + 1]]
        symbols = list(self.byte_sym.values())
        vocab = symbols + [s + "</w>" for s in symbols] + ["".join(m) for m in merges]
        vocab += ["<|startoftext|>", "<|endoftext|>"]
        self.ids = {s: i for i, s in enumerate(vocab)}
        self.rank = {m: i for i, m in enumerate(merges)}
        L, N = category_class("L"), category_class("N")
        self.pattern = re.compile(
            r"<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[%s]+|[%s]|[^\s%s%s]+" % (L, N, L, N),
            re.IGNORECASE)

    def bpe(self, token):
        if token in ("<|startoftext|>", "<|endoftext|>"):
            return [token]
        word = list(token[:-1]) + [token[-1] + "</w>"]
        while len(word) > 1:
            pairs = [(self.rank.get((a, b), float("inf")), a, b) for a, b in zip(word, word[1:])]
            r, a, b = min(pairs)
            if r == float("inf"):
                break
            out, k = [], 0
            while k < len(word):
                if k + 1 < len(word) and word[k] == a and word[k + 1] == b:
                    out.append(a + b)
                    k += 2
                else:
                    out.append(word[k])
                    k += 1
            word = out
        return word

    def encode(self, text):
        text = html.unescape(html.unescape(text)).strip()
        text = re.sub(r"\s+", " ", text).strip().lower()
        out = [self.ids["<|startoftext|>"]]
        for piece in self.pattern.findall(text):
            sym = "".join(self.byte_sym[b] for b in piece.encode("utf-8"))
            out += [self.ids[s] for s in self.bpe(sym)]
        return out + [self.ids["<|endoftext|>"]]


def main(in_path, out_path):
    request = json.load(open(in_path, encoding="utf-8"))
    ref = Reference(request["vocab"])
    json.dump({"ids": [ref.encode(t) for t in request["texts"]]}, open(out_path, "w"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
