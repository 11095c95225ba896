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


def _qwen2_changed_alternative() -> int:
    """Which alternative (counting from 1) Qwen2's pattern changes in Llama 3's: the only one that differs."""
    from gguftok.pretokenize import pre_tokenizer_config
    from gguftok.viz.pretokenize_view import alternatives

    llama3 = alternatives(pre_tokenizer_config("llama-bpe").regexes[0])
    qwen2 = alternatives(pre_tokenizer_config("qwen2").regexes[0])
    (changed,) = [i for i, (a, b) in enumerate(zip(llama3, qwen2, strict=True)) if a != b]
    return changed + 1


COMPUTED["third alternative"] = _qwen2_changed_alternative
