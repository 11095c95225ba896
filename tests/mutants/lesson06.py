"""Wrong variants of lesson 06's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

from gguftok.vocab import CONTROL, UNKNOWN, USER_DEFINED


def _in_list_order(text, specials):
    """The partition without sorting: MPT's list is shortest first, so its runs of spaces fall apart."""
    fragments = [text] if text else []
    for tid, needle in enumerate(specials):
        out = []
        for frag in fragments:
            if isinstance(frag, int):
                out.append(frag)
                continue
            for k, piece in enumerate(frag.split(needle)):
                out += ([tid] if k else []) + ([piece] if piece else [])
        fragments = out
    return fragments


WRONG = {
    "06.is_cut": lambda attr, parse: bool(attr & USER_DEFINED) or (parse and bool(attr & (CONTROL | UNKNOWN))),
    "06.partition": lambda text, specials: _in_list_order(text, specials),
}
