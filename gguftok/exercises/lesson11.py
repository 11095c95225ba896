"""Lesson 11 · SentencePiece: merge by score, then the whole toy encoder with byte fallback."""

from __future__ import annotations

from ..models.spm import spm_merge as _spm_merge
from ..viz.families_view import SPACE, toy_spm_encode, toy_spm_vocab
from ._core import Case, Exercise
from ._data import random_text, rng, tokenizer


def _toy_scores() -> dict[str, float]:
    texts, scores = toy_spm_vocab()
    return dict(zip(texts[:18], scores[:18], strict=True))


# -------------------------------------------------------------------------------------------- spm_merge
def _ref_merge(text: str, scores: dict[str, float]) -> list[str]:
    texts = list(scores)
    bytes_to_id = {t.encode(): i for i, t in enumerate(texts)}
    return [s.decode() for s in _spm_merge(text.encode(), bytes_to_id, [scores[t] for t in texts])]


def _merge_examples() -> list[Case]:
    toy = _toy_scores()
    return [Case((SPACE + t.replace(" ", SPACE), toy), f"spm_merge({SPACE + t.replace(' ', SPACE)!r}, TOY_SCORES)")
            for t in ("Hello world", "Hello wörld", "world Hello", "")]


def _merge_generated() -> list[Case]:
    r = rng(1101)
    toy = _toy_scores()
    cases = [Case((random_text(r, "▁Helowrd", 0, 14), toy), None) for _ in range(100)]
    cases = [Case(c.args, f"spm_merge({c.args[0]!r}, TOY_SCORES)") for c in cases]
    for _ in range(150):  # random vocabularies; few distinct scores, so ties are common
        vocab = {random_text(r, "abc", 2, 4): float(r.choice([-1, -2, -3])) for _ in range(r.randint(1, 10))}
        cases.append(Case((random_text(r, "abc", 0, 12), vocab)))
    spm = tokenizer("llama-spm")
    if spm is not None:
        scores = dict(zip(spm.vocab.texts, spm.vocab.scores, strict=True))
        for word in ("▁Hello▁world", "▁tokenization", "▁naïve▁café", "▁Insecta▁and▁Arthropoda", "▁世界"):
            cases.append(Case((word, scores), f"spm_merge({word!r}, <Llama 2's {len(scores):,} scores>)", copy=False))
    return cases


spm_merge = Exercise(
    id="11.spm_merge",
    title="merge by score",
    statement=(
        "Write `spm_merge(text, scores)`, SentencePiece's merge loop: start with one symbol per character of\n"
        "`text` (spaces are already `▁`); as long as some pair of neighbours together spells a token of `scores`\n"
        "(a dictionary token text -> score), merge the pair whose token has the **highest score**, the\n"
        "**leftmost** on ties; return the symbols left.\n\n"
        "The check uses this notebook's toy vocabulary (`TOY_SCORES`, its 18 scored tokens) on the lesson's\n"
        "words and 100 random ones, 150 random vocabularies with many equal scores, and the real Llama 2 scores,\n"
        "against `gguftok.models.spm.spm_merge` (a priority queue; a plain loop that rescans every pair gives\n"
        "the same answers)."),
    template='''def spm_merge(text: str, scores: dict[str, float]) -> list[str]:
    """Characters of ``text`` merged pair by pair, highest-scoring token first (ties: leftmost).

    >>> spm_merge("▁Hello", {"▁H": -9.0, "▁He": -7.0, "lo": -5.0, "▁Hel": -6.8, "▁Hello": -3.0})
    ['▁Hello']
    """
    raise NotImplementedError''',
    reference=_ref_merge,
    reference_name="gguftok.models.spm.spm_merge",
    examples=_merge_examples,
    generated=_merge_generated,
)


# ------------------------------------------------------------------------------------------- spm_encode
def _encode_examples() -> list[Case]:
    return [Case((t, *toy_spm_vocab()), f"spm_encode({t!r}, TOY_TEXTS, TOY_SCORES)")
            for t in ("Hello world", "Hello wörld", "Hello 😀", "")]


def _encode_generated() -> list[Case]:
    r = rng(1102)
    texts, scores = toy_spm_vocab()
    cases = [Case((t, texts, scores), f"spm_encode({t!r}, TOY_TEXTS, TOY_SCORES)", copy=False)
             for t in (random_text(r, "Helo wrdö😀", 0, 14) for _ in range(150))]
    return cases


spm_encode = Exercise(
    id="11.spm_encode",
    title="the toy SentencePiece encoder",
    statement=(
        "Put SentencePiece together on the toy vocabulary. `texts` and `scores` are parallel lists\n"
        "(`TOY_TEXTS, TOY_SCORES = toy_spm_vocab()`: 18 scored tokens, then the 256 byte tokens `<0x00>`..\n"
        "`<0xFF>`). Write `spm_encode(text, texts, scores)` that returns the token texts:\n\n"
        "1. replace every space with `▁` and put one `▁` in front;\n"
        "2. merge with your `spm_merge`, using only the tokens that are not byte tokens;\n"
        "3. a symbol that is a token stays; any other symbol becomes one `<0xXX>` token per UTF-8 byte\n"
        "   (upper-case hex).\n\n"
        "The check uses the lesson's two texts, an emoji, and 150 random texts, against gguftok's\n"
        "`SPMModel` (`gguftok.viz.families_view.toy_spm_encode`)."),
    template='''def spm_encode(text: str, texts: list[str], scores: list[float]) -> list[str]:
    """SentencePiece on a toy vocabulary: ``▁`` for spaces and in front, merge by score, byte fallback.

    >>> spm_encode("Hello wörld", TOY_TEXTS, TOY_SCORES)
    ['▁Hello', '▁w', '<0xC3>', '<0xB6>', 'r', 'ld']
    """
    raise NotImplementedError''',
    reference=toy_spm_encode,
    reference_name="gguftok.models.spm.SPMModel",
    examples=_encode_examples,
    generated=_encode_generated,
)

EXERCISES = [spm_merge, spm_encode]
