"""Generate gguftok/pretokenize/unicode-15.1.json from llama.cpp's own src/unicode-data.cpp (pinned sdist).

llama.cpp classifies code points with tables generated from UnicodeData.txt 15.1, not with the running
Python's ``unicodedata`` (3.11 has 14.0) nor the ``regex`` module's (newer). To get its token ids we use its
tables: this script parses them out of the pinned source, and tests/test_unicode.py checks the result against
an independent dump. Usage: python scripts/gen_unicode_tables.py
"""

import json
import re
import tarfile
from pathlib import Path

from gguftok.data import SDIST_MODELS, sdist_path

OUT = Path(__file__).resolve().parent.parent / "gguftok" / "pretokenize" / "unicode-15.1.json"


def table(src: str, name: str) -> str:
    start = src.index(name)
    return src[src.index("{", start) + 1: src.index("};", start)]


def main() -> None:
    with tarfile.open(sdist_path(), "r:gz") as tar:
        src = tar.extractfile(SDIST_MODELS.replace("models/", "src/unicode-data.cpp")).read().decode()
    hexes = lambda body: [int(h, 16) for h in re.findall(r"0x[0-9A-Fa-f]+", body)]  # noqa: E731
    ranges = hexes(table(src, "unicode_ranges_flags"))
    lower = hexes(table(src, "unicode_map_lowercase"))
    nfd = hexes(table(src, "unicode_ranges_nfd"))
    doc = {
        "source": "llama.cpp src/unicode-data.cpp, llama-cpp-python 0.3.36 (UnicodeData.txt 15.1)",
        "ranges": [ranges[i:i + 2] for i in range(0, len(ranges), 2)],  # [start, flags], until the next start
        "ws": hexes(table(src, "unicode_set_whitespace")),
        "lower": [lower[i:i + 2] for i in range(0, len(lower), 2)],
        "nfd": [nfd[i:i + 3] for i in range(0, len(nfd), 3)],  # [first, last, nfd]
    }
    OUT.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"{OUT}: {len(doc['ranges'])} ranges, {len(doc['ws'])} whitespace, {len(doc['lower'])} lowercase, "
          f"{len(doc['nfd'])} nfd ranges")


if __name__ == "__main__":
    main()
