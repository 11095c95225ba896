"""What every family's export shares: the stages of a Hugging Face ``tokenizers`` pipeline, and a known difference.

A family module (``bpe``, ``spm``, ``wpm``, ``ugm``) turns a gguftok :class:`~gguftok.tokenizer.Tokenizer` into
:class:`Stages`: the ``tokenizers`` objects of the normalizer, pre-tokenizer, model, post-processor and decoder,
the added tokens, and the :class:`Difference` list of llama.cpp's rules that no stage can express exactly (empty
for an exact export). Only this package imports ``tokenizers`` (an optional extra), and only inside functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Difference:
    """A rule of llama.cpp's that the exported pipeline does not follow: the ``stage`` (``"normalizer"``,
    ``"pre-tokenizer"``, ``"model"``, ``"post-processor"``, ``"decoder"``, ``"added tokens"``), the ``rule`` in
    words, and an ``example`` text on which the two give other ids (``""`` when none is known), with the
    ``texts`` it touches in words (``"code points new in Unicode 16"``, ``"any text with a tab"``)."""

    stage: str
    rule: str
    example: str = ""
    texts: str = ""


@dataclass
class Stages:
    """The pipeline's parts; ``None`` leaves a stage out. ``added_tokens`` are ``tokenizers.AddedToken``
    objects in id order, each with its id (``(id, AddedToken)``) and whether it is special."""

    model: Any
    normalizer: Any = None
    pre_tokenizer: Any = None
    post_processor: Any = None
    decoder: Any = None
    added_tokens: list[tuple[int, Any]] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)


def utf8(text: str) -> bytes | None:
    """``text`` as UTF-8, or ``None`` for a text that is not (a lone surrogate: gguftok's escape of a byte that is
    not UTF-8), which no ``tokenizers`` vocabulary or added token can hold.

    >>> utf8("é"), utf8(chr(0xDCFF))
    (b'\\xc3\\xa9', None)
    """
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return None


def not_utf8(texts: list[str]) -> list[int]:
    """The indexes of the texts that are not UTF-8 (gguftok holds such bytes as surrogate escapes), found with one
    encoding of them all where there are none.

    >>> not_utf8(["a", chr(0xDCFF), "é"]), not_utf8(["a"])
    ([1], [])
    """
    try:
        "".join(texts).encode("utf-8")
    except UnicodeEncodeError:
        return [i for i, t in enumerate(texts) if utf8(t) is None]
    return []
