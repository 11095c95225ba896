"""The numbers notebook 04's prose states that no cell prints: each computed from the files it is about."""

from __future__ import annotations

import json
import re
from pathlib import Path

import gguftok.pretokenize

TABLES = Path(gguftok.pretokenize.__file__).with_name("unicode-15.1.json")


def _unicode_version() -> str:
    """The Unicode version of llama.cpp's tables, as the generated file records its source."""
    return re.search(r"UnicodeData\.txt ([\d.]+)", json.loads(TABLES.read_text())["source"])[1]


COMPUTED = {
    "15.1": _unicode_version,
}
