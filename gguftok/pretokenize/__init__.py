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
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..bytemap import spell_text
from ..errors import EncodeError, VocabError
from .fast import ASTRAL, FAST, PIECE_END, bmp_pattern, joined_pattern
from .regex_split import collapse, collapsed_text, separator, split_regex, uses_categories, wide
from .splitters import CUSTOM
from .unicode import MAX_CODE_POINT

_TABLES = json.loads(Path(__file__).with_name("pre-tables.json").read_text(encoding="utf-8"))
PRE_STRINGS: dict[str, dict[str, Any]] = _TABLES["pre"]
PRE_TYPE_REGEXES: dict[str, dict[str, Any]] = _TABLES["regexes"]



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
    """Splits text into words with one pre-type's regex list, as ``unicode_regex_split`` does.

    :meth:`split` is the fast path that encoding uses; :meth:`split_lengths` runs llama.cpp's hand-written
    loops as ported (the reference the teaching views show). They cut alike: a test checks it.
    """

    def __init__(self, config: PreTokenizerConfig) -> None:
        self.config = config
        self.regexes = config.regexes
        self.byte_encode = config.byte_encode
        self._collapse = any(uses_categories(r) for r in self.regexes)
        # one hand-written splitter with a compiled equivalent: one findall over the whole text (its collapsed
        # form, or the text itself when no code point is past U+FFFF)
        self._single = FAST.get(self.regexes[0]) if len(self.regexes) == 1 else None
        self._bmp = bmp_pattern(self._single) if self._single is not None else None

    def split_lengths(self, cps: list[int]) -> list[int]:
        """The word lengths (in code points) of ``cps``, with llama.cpp's loops as ported; empty words
        (zero-length matches) included. Empty text has no words (llama.cpp never pre-tokenizes an empty
        fragment).
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

    def fast_lengths(self, text: str) -> list[int]:
        """:meth:`split_lengths` of ``text``, with the compiled equivalents of the loops where there are some
        (:mod:`gguftok.pretokenize.fast`, run on the pieces of the collapsed text joined:
        :func:`~gguftok.pretokenize.fast.joined_pattern`)."""
        if not text:
            return []
        collapsed = collapse(text)
        cps: list[int] | None = None  # made only for a step that needs the code points
        wide_form: str | None = None
        lengths = [len(text)]
        for rx in self.regexes:
            fast = FAST.get(rx)
            if fast is not None:
                if len(lengths) == 1:
                    lengths = list(map(len, fast.findall(collapsed)))
                else:  # every piece in one findall (joined_pattern)
                    lengths = list(map(len, joined_pattern(fast).findall(join_pieces(collapsed, lengths, PIECE_END))))
                continue
            custom = CUSTOM.get(rx)
            if custom is not None:
                if cps is None:
                    cps = [ord(c) for c in text]
                out = custom(cps, lengths)
                if out:
                    lengths = out
                    continue
            if wide_form is None and not uses_categories(rx):
                wide_form = wide(text)
            lengths = split_regex(cps, lengths, rx, collapsed, fast=True, wide=wide_form)
        return lengths

    def words(self, text: str) -> list[str]:
        """The words of ``text`` as they are in it (no byte encoding): :meth:`split` before its last step.

        With one hand-written splitter and no code point past U+FFFF, one ``findall`` of its BMP pattern
        makes them (:func:`~gguftok.pretokenize.fast.bmp_pattern`); otherwise the text is cut at the
        lengths :meth:`fast_lengths` finds, in C (:func:`cut`).
        """
        if not text:
            return []
        if self._bmp is not None and not ASTRAL.search(text):
            return self._bmp.findall(text)
        return cut(text, self._lengths(text))

    def split(self, text: str) -> list[str]:
        """The words of ``text`` (code points as a ``str``, surrogates allowed), GPT-2 byte-encoded if the
        pre-type says so. Raises :class:`~gguftok.errors.EncodeError` for a code point past U+10FFFF.

        The words come from :meth:`words`, byte-encoded by :func:`byte_encode_words` (in C, without a Python
        step per word). Encoding does not call this: its word cache knows words as written.
        """
        words = self.words(text)
        return byte_encode_words(words) if self.byte_encode else words

    def _lengths(self, text: str) -> Iterable[int]:
        if self._single is None:
            return self.fast_lengths(text)
        return map(len, self._single.findall(collapse(text)))


def join_pieces(text: str, lengths: Iterable[int], sep: str) -> str:
    """The consecutive pieces of ``text`` with these lengths (in code points), joined by ``sep``: the
    separator is put between them in the text's array of code points, in C."""
    ends = np.cumsum(np.fromiter(lengths, dtype=np.int64))
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return np.insert(cps, ends[:-1], ord(sep)).tobytes().decode("utf-32-le", "surrogatepass")


def split_joined(joined: str, sep: str, byte_encode: bool) -> list[str]:
    """The pieces of ``joined`` between the ``sep`` characters, each byte-encoded if ``byte_encode``.

    Byte-encoding the whole at once is exact: the UTF-8 bytes of ``sep`` map to a string that occurs only
    where ``sep`` was (UTF-8 is self-synchronising, and the pieces do not contain ``sep``).
    """
    if not byte_encode:
        return joined.split(sep)
    return spell_text(joined).split(spell_text(sep))


def cut(text: str, lengths: Iterable[int]) -> list[str]:
    """``text`` cut into consecutive pieces of these lengths (in code points)."""
    sep = separator(text) if len(text) >= 256 else None  # shorter: slicing costs less than NumPy's setup
    if sep is not None:
        return join_pieces(text, lengths, sep).split(sep)
    out = []
    start = 0
    for n in lengths:
        out.append(text[start:start + n])
        start += n
    return out


def byte_encode_words(words: list[str]) -> list[str]:
    """Each word's UTF-8 bytes as GPT-2 characters (``"é"`` -> ``"Ã©"``), surrogates as their own bytes."""
    if not words:
        return []
    sep = separator("".join(words))
    if sep is None:
        return list(map(spell_text, words))
    return split_joined(sep.join(words), sep, True)


def check_code_points(cps: list[int]) -> None:
    """llama.cpp re-encodes every word's code points and aborts past U+10FFFF; we raise instead."""
    for i, c in enumerate(cps):
        if c > MAX_CODE_POINT:
            raise EncodeError(f"code point U+{c:X} (code point {i} of a text fragment) is past U+10FFFF; "
                              "llama.cpp aborts on it")
