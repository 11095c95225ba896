"""Lesson 06 · special tokens: which tokens are cut, and the longest-first partition."""

from __future__ import annotations

from itertools import combinations

from ..special import partition as _partition
from ..vocab import BYTE, CONTROL, LSTRIP, NORMAL, RSTRIP, UNKNOWN, USER_DEFINED
from ._core import Case, Exercise
from ._data import random_text, rng

_BITS = {"NORMAL": NORMAL, "CONTROL": CONTROL, "USER_DEFINED": USER_DEFINED, "UNKNOWN": UNKNOWN, "BYTE": BYTE,
         "LSTRIP": LSTRIP, "RSTRIP": RSTRIP}


def _attr_text(attr: int) -> str:
    return " | ".join(name for name, bit in _BITS.items() if attr & bit) or "0"


# ---------------------------------------------------------------------------------------------- is_cut
def _ref_is_cut(attr: int, parse_special: bool) -> bool:
    """Ask gguftok's partition itself: is a token with ``attr`` cut out of its own text?"""
    if not attr & (CONTROL | USER_DEFINED | UNKNOWN):  # not in the special cache at all
        return False
    return _partition(b"T", [0], lambda i: b"T", lambda i: attr, parse_special) == [0]


def _cut_case(attr: int, parse_special: bool) -> Case:
    return Case((attr, parse_special), f"is_cut({_attr_text(attr)}, parse_special={parse_special})")


def _cut_examples() -> list[Case]:
    return [_cut_case(a, p) for a, p in ((CONTROL, True), (CONTROL, False), (USER_DEFINED, False),
                                         (CONTROL | USER_DEFINED | RSTRIP, False), (NORMAL, True), (UNKNOWN, False))]


def _cut_generated() -> list[Case]:
    bits = list(_BITS.values())
    attrs = sorted({sum(c) for n in range(len(bits) + 1) for c in combinations(bits, n)})
    return [_cut_case(a, p) for a in attrs for p in (False, True)]


is_cut = Exercise(
    id="06.is_cut",
    title="is this token cut out of the text?",
    statement=(
        "Before pre-tokenization, the partition cuts special tokens out of the text. Whether a token takes part\n"
        "depends on its attributes (bits of an `int`, `gguftok.vocab.CONTROL` and friends) and on\n"
        "`parse_special`. Write `is_cut(attr, parse_special)`:\n\n"
        "- a token with none of the bits `CONTROL`, `USER_DEFINED`, `UNKNOWN` is never cut;\n"
        "- a token with `CONTROL` or `UNKNOWN` is cut only when `parse_special` is true, even if it is also\n"
        "  `USER_DEFINED` (Phi-3's `</s>`, DeepSeek Coder's FIM tokens);\n"
        "- a token that is only `USER_DEFINED` is always cut.\n\n"
        "The check tries every combination of seven attribute bits with both values of `parse_special`, and\n"
        "asks gguftok's partition (`gguftok.special.partition`) whether a token with those bits is cut out of\n"
        "its own text."),
    template='''from gguftok.vocab import CONTROL, NORMAL, UNKNOWN, USER_DEFINED  # noqa: E402


def is_cut(attr: int, parse_special: bool) -> bool:
    """Whether a token with attributes ``attr`` is cut out of the text before pre-tokenization.

    >>> is_cut(USER_DEFINED, False), is_cut(CONTROL, False), is_cut(NORMAL, True)
    (True, False, False)
    """
    raise NotImplementedError''',
    reference=_ref_is_cut,
    reference_name="gguftok.special.partition",
    examples=_cut_examples,
    generated=_cut_generated,
)


# ------------------------------------------------------------------------------------------- partition
def _ref_partition(text: str, specials: list[str]) -> list[str | int]:
    data = text.encode()
    texts = [s.encode() for s in specials]
    order = sorted(range(len(specials)), key=lambda i: (-len(texts[i]), i))
    frags = _partition(data, order, texts.__getitem__, lambda i: CONTROL, True)
    return [f if isinstance(f, int) else data[f[0]:f[0] + f[1]].decode() for f in frags]


_CHATML = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "[PAD151646]"]
_SPACES = [" " * n for n in range(2, 25)]


def _partition_examples() -> list[Case]:
    return [Case(("<|im_start|>user\nHi[PAD151646]<|im_end|>\n<|im_start|>assistant\n", _CHATML)),
            Case(("x" + " " * 30 + "y", _SPACES), "partition('x' + ' ' * 30 + 'y', specials=[' ' * n for n in "
                                                  "range(2, 25)])  # MPT's 23 space tokens"),
            Case(("no special text here", _CHATML)),
            Case(("", _CHATML)),
            Case(("<|im_end|><|im_end|>", _CHATML)),
            Case(("aaaaa", ["a", "aa"])),
            Case(("abcabc", ["bc", "ab"]))]


def _partition_generated() -> list[Case]:
    r = rng(601)
    cases = []
    for _ in range(250):
        specials = list(dict.fromkeys(random_text(r, "ab<|>", 1, 4) for _ in range(r.randint(0, 5))))
        cases.append(Case((random_text(r, "ab<|> 世", 0, 20), specials)))
    return cases


partition = Exercise(
    id="06.partition",
    title="cut special tokens out, longest first",
    statement=(
        "Write `partition(text, specials)`. `specials` is a list of special-token texts; the token's id is its\n"
        "position in the list. Return the text as a list of fragments: an `int` for each special token found,\n"
        "and a `str` for each run of plain text between them (never an empty one), in order. The rule is\n"
        "llama.cpp's:\n\n"
        "- take the specials **longest first** (length in UTF-8 bytes; on equal lengths, the lower id first);\n"
        "- for each one in turn, cut every non-overlapping occurrence, from left to right, out of the plain runs\n"
        "  that are still left; fragments already cut are never searched again.\n\n"
        "Here every token is cut (as if all were control tokens and `parse_special=True`). The check uses the\n"
        "lesson's ChatML line, MPT's 23 space tokens on a run of 30 spaces, and 250 random texts and token lists\n"
        "over `a`, `b`, `<`, `|`, `>`, against `gguftok.special.partition`."),
    template='''def partition(text: str, specials: list[str]) -> list[str | int]:
    """``text`` as plain runs (str) and special tokens (their index in ``specials``), longest token first.

    >>> partition("hi<|im_end|>!", ["<|im_start|>", "<|im_end|>"])
    ['hi', 1, '!']
    """
    raise NotImplementedError''',
    reference=_ref_partition,
    reference_name="gguftok.special.partition",
    examples=_partition_examples,
    generated=_partition_generated,
)

EXERCISES = [is_cut, partition]
