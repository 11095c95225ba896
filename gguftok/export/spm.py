"""SentencePiece (``tokenizer.ggml.model = "llama"``) as a ``tokenizers`` pipeline.

llama.cpp turns spaces into ``▁``, puts one ``▁`` before every raw fragment when ``add_space_prefix`` is set
(a fragment is the text between two special tokens: each one follows a special or starts the text), and
merges the adjacent pair whose merged token has the highest score, the leftmost on ties. Here: the normalizer
``Prepend("▁")`` (``tokenizers`` normalizes each piece between added tokens alone) and ``Replace(" ", "▁")``,
and a ``BPE`` model whose merges are every split ``a + b`` of every token into two tokens, ranked by the
merged token's score, highest first; among equal scores the longer left part first (a run of ``▁``,
whose tokens all share one score, is then built from the left, as llama.cpp's leftmost rule builds it).
``byte_fallback`` gives ``<0xNN>`` for a character that is no token. The decoder turns ``▁`` back into
spaces, bytes into text, and strips the first space.
"""

from __future__ import annotations

import math
from typing import Any

from ..vocab import BYTE, CONTROL, UNKNOWN, USER_DEFINED
from .common import Difference, Stages, not_utf8
from .pieces import clean_up_decoders, decoder


def merges(texts: list[str], scores: list[float]) -> list[tuple[str, str]]:
    """Every ``(a, b)`` with ``a``, ``b`` and ``a + b`` tokens, in the order SentencePiece merges them.

    >>> merges(["a", "b", "c", "ab", "bc", "abc"], [0, 0, 0, -2.0, -1.0, -3.0])
    [('b', 'c'), ('a', 'b'), ('ab', 'c'), ('a', 'bc')]
    """
    ids = {t: i for i, t in enumerate(texts)}
    found = []
    for i, t in enumerate(texts):
        for k in range(len(t) - 1, 0, -1):
            if t[:k] in ids and t[k:] in ids:
                found.append((-float(scores[i]), -k, i, t[:k], t[k:]))
    found.sort()
    return [(a, b) for *_, a, b in found]


def stages(tok: Any) -> Stages:
    """The stages of ``tok``'s SentencePiece pipeline (``added_tokens`` left to the caller)."""
    from tokenizers import normalizers
    from tokenizers.models import BPE

    v = tok.vocab
    texts, scores = list(v.texts), [float(s) for s in v.scores]
    differences: list[Difference] = []
    if any(math.isnan(s) for s in scores):
        differences.append(Difference("model", "NaN scores: llama.cpp's queue has no order a merge list can follow"))
    bad = [texts[i] for i in not_utf8(texts)]
    if bad:
        differences.append(Difference("model", f"{len(bad)} token texts are not valid UTF-8 (first {bad[0]!r}): "
                                      "tokenizers holds only text", texts="text with those bytes"))
    missing = [b for b in range(256) if f"<0x{b:02X}>" not in v.token_to_id]
    if missing:
        differences.append(Difference(
            "model", f"no <0x{missing[0]:02X}> token: llama.cpp aborts on a character that needs it, "
                     "tokenizers gives the unknown token", texts="characters that are no token"))
    vocab = {t: i for i, t in enumerate(texts)}
    unk = v.special.get("unk", -1)
    kwargs: dict[str, Any] = {}
    if 0 <= unk < len(texts):
        kwargs["unk_token"] = texts[unk]
    model = BPE(vocab=vocab, merges=merges(texts, scores), byte_fallback=True, fuse_unk=False,
                ignore_merges=False, **kwargs)
    steps = [normalizers.Prepend("\u2581")] if v.add_space_prefix else []
    steps.append(normalizers.Replace(" ", "\u2581"))
    if v.add_space_prefix:
        differences.append(first_space_difference(tok))
    dec = decoder(texts, [t for t, a in zip(texts, v.attrs, strict=True) if a & BYTE],
                  [t for t, a in zip(texts, v.attrs, strict=True) if a & (CONTROL | UNKNOWN | USER_DEFINED)],
                  strip_first_space=v.add_space_prefix, tail=clean_up_decoders() if v.clean_spaces else ())
    return Stages(model=model, normalizer=normalizers.Sequence(steps), decoder=dec, differences=differences)


def first_space_difference(tok: Any) -> Difference:
    """llama.cpp drops the leading space of the first id's piece, and of no other: after a leading special token
    that renders as nothing, the next piece keeps its space. ``skip_special_tokens=True`` removes special tokens
    before the decoder runs, so no decoder can tell ``[BOS, ▁Hi]`` from ``[▁Hi]``."""
    v = tok.vocab
    first = next((i for i, a in enumerate(v.attrs) if a & CONTROL), 0)
    return Difference("decoder", f"add_space_prefix: llama.cpp strips the space of the first piece only; after a "
                      f"leading special token such as {v.texts[first]!r} (which skip_special_tokens removes "
                      "before the decoder) the next piece keeps its space", f"{v.texts[first]} Hi",
                      "decoding, without unparse_special, ids that start with a special token")
