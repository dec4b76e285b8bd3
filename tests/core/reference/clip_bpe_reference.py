"""Reference token ids for ClipBpeTokenizer: OpenAI CLIP's simple_tokenizer algorithm written
independently of the C++ code, on Python's own machinery: html.unescape, re (Python's \\s),
str.lower(), and a real backtracking regex for CLIP's pre-tokenisation pattern. The only stand-in:
Python's re has no \\p{L}/\\p{N}, so those classes are built here from unicodedata categories.
ftfy is not installed: ftfy_default_fixes below re-states, from ftfy 6.x's fixes.py and
chardata.py, the default fix_text steps the C++ side implements (core/text/ftfy_fixes.h), with
unicodedata's NFC/NFKC (Unicode 14) where the C++ uses utf8proc. fix_encoding is left out on both.

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


SINGLE_QUOTE_RE = re.compile("[\u02bc\u2018-\u201b]")
DOUBLE_QUOTE_RE = re.compile("[\u201c-\u201f]")
HTML_ENTITY_RE = re.compile(r"&#?[0-9A-Za-z]{1,24};")
ANSI_RE = re.compile("\033\\[((?:\\d|;)*)([a-zA-Z])")
CONTROL_CHARS = dict.fromkeys(list(range(0x00, 0x09)) + [0x0B] + list(range(0x0E, 0x20)) + [0x7F]
                              + list(range(0x206A, 0x2070)) + [0xFEFF] + list(range(0xFFF9, 0xFFFD)))
LIGATURES = {ord("\u0132"): "IJ", ord("\u0133"): "ij", ord("\u0149"): "\u02bcn",
             ord("\u01f1"): "DZ", ord("\u01f2"): "Dz", ord("\u01f3"): "dz",
             ord("\u01c4"): "D\u017d", ord("\u01c5"): "D\u017e", ord("\u01c6"): "d\u017e",
             ord("\u01c7"): "LJ", ord("\u01c8"): "Lj", ord("\u01c9"): "lj",
             ord("\u01ca"): "NJ", ord("\u01cb"): "Nj", ord("\u01cc"): "nj",
             ord("\ufb00"): "ff", ord("\ufb01"): "fi", ord("\ufb02"): "fl", ord("\ufb03"): "ffi",
             ord("\ufb04"): "ffl", ord("\ufb05"): "\u017ft", ord("\ufb06"): "st"}
WIDTH_MAP = {0x3000: " "}
WIDTH_MAP.update({i: unicodedata.normalize("NFKC", chr(i)) for i in range(0xFF01, 0xFFF0)
                  if unicodedata.normalize("NFKC", chr(i)) != chr(i)})


def unescape_fixup(match):
    unescaped = html.unescape(match.group(0))
    return match.group(0) if ";" in unescaped else unescaped


def fix_c1(match):
    return match.group(0).encode("latin-1").decode("cp1252", errors="ignore") or match.group(0)


def fix_segment(text, unescape):
    while True:
        orig = text
        if unescape:
            text = HTML_ENTITY_RE.sub(unescape_fixup, text)
        text = re.sub("[\x80-\x9f]", fix_c1, text)
        text = text.translate(LIGATURES).translate(WIDTH_MAP)
        text = SINGLE_QUOTE_RE.sub("'", DOUBLE_QUOTE_RE.sub('"', text))
        for old in ("\r\n", "\r", "\u2028", "\u2029", "\u0085"):
            text = text.replace(old, "\n")
        text = ANSI_RE.sub("", text).translate(CONTROL_CHARS)
        text = unicodedata.normalize("NFC", text)
        if text == orig:
            return text


def ftfy_default_fixes(text):
    """ftfy.fix_text fixes each line, its "\\n" included, on its own; from the first line with a
    '<' on it stops unescaping HTML."""
    out, unescape = [], True
    for seg in re.findall(r"[^\n]*\n|[^\n]+$", text):
        unescape = unescape and "<" not in seg
        out.append(fix_segment(seg, unescape))
    return "".join(out)


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
        text = html.unescape(html.unescape(ftfy_default_fixes(text))).strip()
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
