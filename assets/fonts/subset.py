#!/usr/bin/env python3
"""Regenerate the bundled Japanese font subsets for Kumite.

Requires Debian's fonts-noto-cjk (apt-get install fonts-noto-cjk) and
fontTools (pip install fonttools). Run from anywhere:

    python3 assets/fonts/subset.py [path/to/NotoSansCJK-Regular.ttc]

Writes NotoSansJP-Kumite.otf and NotoSansMonoJP-Kumite.otf next to this script.
"""
import os
import sys

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

DEFAULT_TTC = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
HERE = os.path.dirname(os.path.abspath(__file__))

# (family name in the name table, output file)
FACES = [
    ("Noto Sans CJK JP", "NotoSansJP-Kumite.otf"),
    ("Noto Sans Mono CJK JP", "NotoSansMonoJP-Kumite.otf"),
]

RANGES = [
    (0x0020, 0x007E),  # ASCII
    (0x00A0, 0x00FF),  # Latin-1 supplement
    (0x2000, 0x206F),  # general punctuation
    (0x2190, 0x21FF),  # arrows
    (0x2200, 0x22FF),  # mathematical operators
    (0x2500, 0x257F),  # box drawing
    (0x25A0, 0x25FF),  # geometric shapes
    (0x2600, 0x26FF),  # miscellaneous symbols
    (0x3000, 0x303F),  # CJK symbols and punctuation
    (0x3040, 0x309F),  # hiragana
    (0x30A0, 0x30FF),  # katakana
    (0xFF00, 0xFFEF),  # half-width and full-width forms
]

EXTRA = "勝敗利々〜・ー"


def jis_x_0208_chars():
    """All characters of JIS X 0208: symbols/kana rows 1-8 and kanji rows 16-84."""
    chars = set()
    lead_bytes = list(range(0xA1, 0xA9)) + list(range(0xB0, 0xF5))
    for b1 in lead_bytes:
        for b2 in range(0xA1, 0xFF):
            try:
                s = bytes([b1, b2]).decode("euc_jp")
            except UnicodeDecodeError:
                continue
            if len(s) == 1:
                chars.add(ord(s))
    return chars


def wanted_codepoints():
    cps = set()
    for lo, hi in RANGES:
        cps.update(range(lo, hi + 1))
    cps.update(jis_x_0208_chars())
    cps.update(ord(c) for c in EXTRA)
    return cps


def family_name(font):
    name = font["name"]
    return name.getDebugName(1)


def main():
    ttc_path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_TTC
    coll = TTCollection(ttc_path)
    index_by_family = {family_name(f): i for i, f in enumerate(coll.fonts)}
    coll.close()
    cps = wanted_codepoints()

    for family, out_name in FACES:
        idx = index_by_family[family]
        # Load each face on its own: faces in a TTC share tables, and the
        # subsetter modifies the font in place.
        font = TTFont(ttc_path, fontNumber=idx, lazy=False)
        opts = subset.Options()
        opts.layout_features = []       # no GSUB/GPOS features
        opts.hinting = False            # drop hints
        opts.desubroutinize = False     # keep CFF subroutines (smaller file)
        opts.notdef_outline = True
        opts.name_IDs = ["*"]           # keep names incl. copyright/licence
        opts.name_languages = ["*"]
        opts.flavor = None              # plain OpenType (CFF outlines)
        sub = subset.Subsetter(opts)
        sub.populate(unicodes=cps)
        sub.subset(font)
        out_path = os.path.join(HERE, out_name)
        font.recalcTimestamp = False    # keep the source's head.modified: reproducible bytes
        font.save(out_path)
        print(f"{family} (ttc index {idx}) -> {out_path}: "
              f"{font['maxp'].numGlyphs} glyphs, {os.path.getsize(out_path)} bytes")


if __name__ == "__main__":
    main()
