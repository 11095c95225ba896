"""What every family shares: the added tokens (llama.cpp's special-token partition) and the BOS/EOS post-processor.

llama.cpp cuts every CONTROL, USER_DEFINED and UNKNOWN token's text out of the raw input before anything else
(:mod:`gguftok.special`); CONTROL and UNKNOWN ones only with ``parse_special=True``. In ``tokenizers`` these are
added tokens, matched on the raw text (``normalized=False``) before the normalizer:

============================ ============================================================
llama.cpp                    ``tokenizers.AddedToken``
============================ ============================================================
CONTROL or UNKNOWN           ``special=True``: not matched when ``encode_special_tokens``
USER_DEFINED (and not those) ``special=False``: always matched, as llama.cpp always cuts it
LSTRIP / RSTRIP attribute    ``lstrip`` / ``rstrip`` (none where the stripped spaces give no ids anyway)
(no such rule)               ``single_word=False``, ``normalized=False``
============================ ============================================================

llama.cpp takes the tokens longest first, each claiming its leftmost occurrences; ``tokenizers`` takes the
leftmost-longest occurrence of any of them. The two agree unless two texts overlap (the end of one is the start
of another): :func:`added_token_differences` finds such pairs and writes the text that tells them apart.

>>> from gguftok import Tokenizer
>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> [(i, t.content, t.special) for i, t in added_tokens(tok)][:2]
[(282, '<|endoftext|>', True), (283, '<|im_start|>', True)]
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..vocab import CONTROL, LSTRIP, RSTRIP, UNKNOWN, USER_DEFINED
from .common import Difference, utf8

# What llama.cpp's LSTRIP/RSTRIP strip (C isspace), and what tokenizers strips besides (Rust's char::is_whitespace)
_C_SPACE = " \t\n\v\f\r"


def strip_vanishes(tok) -> bool:
    """Whether the C spaces that LSTRIP/RSTRIP take from the edge of a text fragment give no ids anyway, so the
    added token can leave them in place (and ``tokenizers`` strips no other space): a Unigram vocabulary that
    merges whitespace (a run of spaces at a fragment's edge becomes nothing), whose character map turns each C
    space into spaces or nothing and has no longer key holding one, and no user-defined token holding one
    (which would pass through the map unchanged).

    >>> from gguftok import Tokenizer
    >>> strip_vanishes(Tokenizer.from_gguf("data/vocab/ggml-vocab-nomic-bert-moe.gguf"))
    True
    """
    v = tok.vocab
    if v.type != "ugm" or not v.remove_extra_whitespaces:
        return False
    blob = v.charsmap()
    if not blob or not _map_vanishes(blob):  # no map: a tab stays a tab
        return False
    return not any(any(c in t for c in _C_SPACE) for t, a in zip(v.texts, v.attrs, strict=True) if a & USER_DEFINED)


@lru_cache(maxsize=4)
def _map_vanishes(blob: bytes) -> bool:
    """:func:`strip_vanishes`'s rule on the character map alone (``blob``, not empty), once per map: each C space
    but the space mapped to spaces or nothing, and no key of several bytes holding one."""
    from .ugm import _map_keys

    keys = _map_keys(blob)
    c_spaces = _C_SPACE.encode()
    for c in c_spaces[1:]:  # the space itself may stay as it is
        if keys.get(bytes([c]), b"x").strip(b" "):
            return False
    long_keys = b"\0".join(k for k in keys if len(k) > 1)  # NUL: no key holds one, and no C space
    return not any(c in long_keys for c in c_spaces)



def is_special(tok, token_id: int) -> bool:
    """Whether llama.cpp reads this token's text only with ``parse_special`` (and renders it only with
    ``unparse_special``): a CONTROL or UNKNOWN token."""
    return bool(tok.vocab.attrs[token_id] & (CONTROL | UNKNOWN))


def added_tokens(tok) -> list[tuple[int, Any]]:
    """``(id, AddedToken)`` for every token llama.cpp's partition cuts out, in id order (texts that are not
    UTF-8 are left out: :func:`added_token_differences` names them)."""
    from tokenizers import AddedToken

    v = tok.vocab
    out = []
    strip = not strip_vanishes(tok)
    for tid in sorted(v.special_cache):
        text, attr = v.texts[tid], v.attrs[tid]
        if not text or utf8(text) is None:
            continue
        out.append((tid, AddedToken(text, single_word=False, lstrip=strip and bool(attr & LSTRIP),
                                    rstrip=strip and bool(attr & RSTRIP),
                                    normalized=False, special=is_special(tok, tid))))
    return out


def _overlaps(texts: list[str]) -> list[tuple[str, str, int]]:
    """``(first, second, k)``: the last ``k`` characters of ``first`` are the first ``k`` of ``second``
    (``0 < k < len`` of both; a text with itself too), found through a table of every proper suffix."""
    suffixes: dict[str, list[str]] = {}
    for t in texts:
        for k in range(1, len(t)):
            suffixes.setdefault(t[-k:], []).append(t)
    found = []
    for second in texts:
        for k in range(1, len(second)):
            for first in suffixes.get(second[:k], ()):
                if k < len(first):
                    found.append((first, second, k))
    return found


def leftmost_longest(text: str, tokens: dict[str, int]) -> list[int]:
    """The ids of the added tokens ``tokenizers`` cuts out of ``text``: at each position the longest text that
    starts there, then on after it.

    >>> leftmost_longest("abcd", {"ab": 1, "bcd": 2})
    [1]
    """
    lengths = sorted({len(t) for t in tokens}, reverse=True)
    out, i = [], 0
    while i < len(text):
        hit = next((n for n in lengths if text[i:i + n] in tokens), None)
        if hit:
            out.append(tokens[text[i:i + hit]])
            i += hit
        else:
            i += 1
    return out


def added_token_differences(tok) -> list[Difference]:
    """The partition rules the added tokens cannot follow, each with a text whose ids would differ."""
    v = tok.vocab
    diffs: list[Difference] = []
    ids = list(v.special_cache)
    for tid in ids:
        if utf8(v.texts[tid]) is None:
            diffs.append(Difference("added tokens", f"token {tid}'s text is not UTF-8: tokenizers holds only text",
                                    "", "input bytes that are not UTF-8"))
    ok = [t for t in ids if utf8(v.texts[t]) is not None and v.texts[t]]
    texts = [v.texts[t] for t in ok]
    by_text = {v.texts[t]: t for t in ok}
    seen = set()
    for first, second, k in _overlaps(texts):
        # first's end is second's start: on first + second[k:] tokenizers takes the leftmost-longest text,
        # llama.cpp each text in its order (longest first), at its leftmost occurrences; a difference only if
        # the two partitions of that text differ
        example = first + second[k:]
        if example in seen:
            continue
        seen.add(example)
        for parse in (True, False):
            cut = {t: i for t, i in by_text.items() if parse or not is_special(tok, i)}
            if first not in cut or second not in cut:
                continue
            llama = [f for f in tok.fragments(example.encode(), parse_special=parse) if isinstance(f, int)]
            if llama != leftmost_longest(example, cut):
                diffs.append(Difference("added tokens", f"{first!r} ends where {second!r} starts: llama.cpp cuts the "
                                        "longer text first, tokenizers the leftmost", example,
                                        "text where the two overlap"))
                break
    specials = [v.texts[t] for t in ok if is_special(tok, t)]
    for t in ok:
        if is_special(tok, t):
            continue
        user = v.texts[t]
        inside = next((s for s in specials if user in s), None)
        if inside is not None:
            diffs.append(Difference("added tokens", f"user-defined {user!r} is inside special {inside!r}: with "
                                    "parse_special=False llama.cpp cuts it out, tokenizers skips the special's text "
                                    "whole", inside, "a special token's text, with parse_special=False"))
    for t in ok if not strip_vanishes(tok) else ():
        attr = v.attrs[t]
        if attr & (LSTRIP | RSTRIP):
            side = "before" if attr & LSTRIP else "after"
            example = "\u00a0" + v.texts[t] if attr & LSTRIP else v.texts[t] + "\u00a0x"
            diffs.append(Difference("added tokens", f"{v.texts[t]!r} strips whitespace {side} it: llama.cpp only "
                                    f"{_C_SPACE!r}, tokenizers also Unicode spaces such as U+00A0", example,
                                    "a non-ASCII space next to the token"))
    return diffs


def _template_name(text: str, fallback: str) -> str:
    """A name TemplateProcessing can parse: the token's text unless it has whitespace, ``:`` or a leading ``$``."""
    if text and not any(c.isspace() for c in text) and ":" not in text and not text.startswith("$"):
        return text
    return fallback


def post_processor(tok) -> tuple[Any, list[Difference]]:
    """``TemplateProcessing`` that adds BOS and EOS as ``tok.encode(add_special=True)`` does (``None`` when it
    adds neither), and the differences (a BOS or EOS asked for that the vocabulary lacks: llama.cpp aborts)."""
    from tokenizers import processors

    v = tok.vocab
    if v.type not in ("spm", "bpe", "ugm"):
        return None, []
    ends: dict[str, list[str]] = {"bos": [], "eos": []}
    names: dict[str, int] = {}
    diffs = []
    for flag, name in ((v.add_bos, "bos"), (v.add_eos, "eos")):
        if not flag:
            continue
        tid = v.special[name]
        if tid < 0:
            diffs.append(Difference("post-processor", f"the vocabulary asks for a {name.upper()} token but has none: "
                                    "llama.cpp aborts, tokenizers cannot", "x", "any text with add_special=True"))
            continue
        label = _template_name(v.texts[tid], f"[{name.upper()}]")
        ends[name] = [label]
        names[label] = tid
    if not names:
        return None, diffs
    head, tail = ends["bos"], ends["eos"]
    single = [*head, "$A", *tail]
    pair = [*head, "$A", *tail, *head, "$B:1", *tail]
    return processors.TemplateProcessing(single=single, pair=pair, special_tokens=list(names.items())), diffs
