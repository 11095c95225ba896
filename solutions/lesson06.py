"""Lesson 06: which tokens the partition cuts, and the longest-first partition itself."""

from __future__ import annotations

from gguftok.vocab import CONTROL, UNKNOWN, USER_DEFINED


def is_cut(attr: int, parse_special: bool) -> bool:
    """Whether a token with attributes ``attr`` is cut out of the text before pre-tokenization.

    >>> is_cut(USER_DEFINED, False), is_cut(CONTROL, False), is_cut(NORMAL, True)
    (True, False, False)
    """
    if attr & (CONTROL | UNKNOWN):
        return parse_special
    return bool(attr & USER_DEFINED)


def partition(text: str, specials: list[str]) -> list[str | int]:
    """``text`` as plain runs (str) and special tokens (their index in ``specials``), longest token first.

    >>> partition("hi<|im_end|>!", ["<|im_start|>", "<|im_end|>"])
    ['hi', 1, '!']
    """
    fragments: list[str | int] = [text] if text else []
    order = sorted(range(len(specials)), key=lambda i: (-len(specials[i].encode()), i))
    for tid in order:
        needle = specials[tid]
        out: list[str | int] = []
        for frag in fragments:
            if isinstance(frag, int):
                out.append(frag)
                continue
            pieces = frag.split(needle)  # non-overlapping, left to right
            for k, piece in enumerate(pieces):
                if k:
                    out.append(tid)
                if piece:
                    out.append(piece)
        fragments = out
    return fragments
