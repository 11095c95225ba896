"""Pre-tokenization: cutting text into words before the model merges anything inside them.

``tokenizer.ggml.pre`` names one of llama.cpp's 91 pre-tokenizer strings; each maps to a pre-type, a few
flags, and a list of regexes applied in order, each one splitting the pieces left by the previous one
(``pre-tables.json``, generated from llama.cpp's source by ``scripts/gen_pre_tables.py``).

>>> pt = PreTokenizer(pre_tokenizer_config("qwen2"))
>>> pt.split("Hello world 2026!")
['Hello', 'Ġworld', 'Ġ', '2', '0', '2', '6', '!']
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bytemap import BYTE_TO_CHAR
from ..errors import EncodeError, VocabError
from .regex_split import collapsed_text, split_regex, uses_categories
from .splitters import CUSTOM
from .unicode import MAX_CODE_POINT

_TABLES = json.loads(Path(__file__).with_name("pre-tables.json").read_text(encoding="utf-8"))
PRE_STRINGS: dict[str, dict[str, Any]] = _TABLES["pre"]
PRE_TYPE_REGEXES: dict[str, dict[str, Any]] = _TABLES["regexes"]

# bytes.translate table: each byte to its GPT-2 character, through latin-1
_BYTE_ENCODE = {b: BYTE_TO_CHAR[b] for b in range(256)}


@dataclass(frozen=True)
class PreTokenizerConfig:
    """What a ``tokenizer.ggml.pre`` string selects: pre-type, flag changes, regexes, byte encoding."""

    pre: str | None
    type: str
    sets: dict[str, Any] = field(default_factory=dict)
    regexes: tuple[str, ...] = ()
    byte_encode: bool = True


def pre_tokenizer_config(pre: str | None) -> PreTokenizerConfig:
    """The configuration for a pre string; ``None`` or ``""`` is llama.cpp's default (with its warning).

    >>> pre_tokenizer_config("llama-bpe").type, pre_tokenizer_config("llama-bpe").sets
    ('LLAMA3', {'ignore_merges': True, 'add_bos': True})
    """
    if not pre:
        pre_type, sets = "DEFAULT", {}
    elif pre in PRE_STRINGS:
        pre_type, sets = PRE_STRINGS[pre]["type"], PRE_STRINGS[pre]["set"]
    else:
        raise VocabError(f"unknown pre-tokenizer type: {pre!r}", key="tokenizer.ggml.pre")
    entry = PRE_TYPE_REGEXES.get(pre_type, PRE_TYPE_REGEXES["DEFAULT"])
    return PreTokenizerConfig(pre, pre_type, dict(sets), tuple(entry["regexes"]), entry["byte_encode"])


class PreTokenizer:
    """Splits text into words with one pre-type's regex list, as ``unicode_regex_split`` does."""

    def __init__(self, config: PreTokenizerConfig) -> None:
        self.config = config
        self.regexes = config.regexes
        self.byte_encode = config.byte_encode
        self._collapse = any(uses_categories(r) for r in self.regexes)

    def split_lengths(self, cps: list[int]) -> list[int]:
        """The word lengths (in code points) of ``cps``; empty words (zero-length matches) included.

        Empty text has no words (llama.cpp never pre-tokenizes an empty fragment).
        """
        if not cps:
            return []
        lengths = [len(cps)]
        collapsed = collapsed_text(cps) if self._collapse else None
        for rx in self.regexes:
            custom = CUSTOM.get(rx)
            if custom is not None:
                out = custom(cps, lengths)
                if out:
                    lengths = out
                    continue
            lengths = split_regex(cps, lengths, rx, collapsed)
        return lengths

    def split(self, text: str) -> list[str]:
        """The words of ``text`` (code points as a ``str``, surrogates allowed), GPT-2 byte-encoded if the
        pre-type says so. Raises :class:`~gguftok.errors.EncodeError` for a code point past U+10FFFF.
        """
        cps = [ord(c) for c in text]
        words = []
        start = 0
        for n in self.split_lengths(cps):
            words.append(text[start:start + n])
            start += n
        if self.byte_encode:
            return [w.encode("utf-8", "surrogatepass").decode("latin-1").translate(_BYTE_ENCODE) for w in words]
        return words


def check_code_points(cps: list[int]) -> None:
    """llama.cpp re-encodes every word's code points and aborts past U+10FFFF; we raise instead."""
    for i, c in enumerate(cps):
        if c > MAX_CODE_POINT:
            raise EncodeError(f"code point U+{c:X} (code point {i} of a text fragment) is past U+10FFFF; "
                              "llama.cpp aborts on it")
