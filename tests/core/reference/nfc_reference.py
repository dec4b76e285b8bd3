"""NFC by Python's unicodedata for three strings per code point, to compare utf8proc's NFC with
(tests/core/text/test_ftfy_fixes.cpp): the code point alone, followed by U+0301 (does it compose
with an acute?), and between "a" and U+0316 (is it reordered past a combining mark of class 220?).
Surrogates are skipped (not encodable as UTF-8).

Writes {"unidata_version": "...", "unassigned": [[first, last], ...] (category Cn),
"changed": [[code point, which string 0|1|2, NFC as a list of code points], ...]}: only the
strings NFC changes, so the file stays small.
"""
import json
import sys
import unicodedata


def variants(ch):
    return [ch, ch + "\u0301", "a" + ch + "\u0316"]


def main(out_path):
    changed, unassigned, start = [], [], None
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        cn = unicodedata.category(ch) == "Cn"
        if cn and start is None:
            start = cp
        elif not cn and start is not None:
            unassigned.append([start, cp - 1])
            start = None
        for which, s in enumerate(variants(ch)):
            n = unicodedata.normalize("NFC", s)
            if n != s:
                changed.append([cp, which, [ord(c) for c in n]])
    if start is not None:
        unassigned.append([start, 0x10FFFF])
    json.dump({"unidata_version": unicodedata.unidata_version, "unassigned": unassigned,
               "changed": changed}, open(out_path, "w"))


if __name__ == "__main__":
    main(sys.argv[1])
