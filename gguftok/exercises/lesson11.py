"""Lesson 11 · SentencePiece: the score-ordered merge, then the whole encoder with ``<0xNN>`` byte fallback.

The expected symbols come from :func:`gguftok.models.spm.spm_merge` (llama.cpp's SentencePiece session, on the
text's UTF-8 bytes); the expected ids from the same merge followed by llama.cpp's emission: a symbol that is a
token is its id, any other symbol one ``<0xNN>`` token per byte. Where a vocabulary lacks a byte token, llama.cpp
stops with an error (gguftok's ``SPMModel`` raises ``EncodeError``); the workbook's ``spm_encode`` gives
``unk_id`` for that byte instead, which is what the capstone's contract asks.
"""

from __future__ import annotations

from ..conformance.cases import read_cases
from ..models.spm import spm_merge as _spm_merge
from ..viz.families_view import SPACE, spm_escape, toy_spm_vocab
from ._core import Case, Exercise
from ._data import random_text, rng, tokenizer, vocab_file

_REAL = ("llama-spm", "phi-3")
_SCRIPTS = "aeiou stn,.!?'-0123éüñßΩжд世界語日本😀🚀👍🏽한국אבعربي\u0301\t\n"
_byte_keys: dict[int, tuple[dict[str, int], dict[bytes, int]]] = {}
# Generated cases: random toy texts, small random vocabularies (11.spm_merge), toy texts without the non-ASCII
# byte tokens and random texts per real vocabulary (11.spm_encode).
TOY_TEXTS, RANDOM_VOCABS, BARE_TEXTS, REAL_TEXTS = 100, 150, 40, 30


def _bytes_to_id(token_ids: dict[str, int]) -> dict[bytes, int]:
    """``token_ids`` keyed by UTF-8 bytes, as gguftok's merge wants it (built once per vocabulary object)."""
    held = _byte_keys.get(id(token_ids))
    if held is None or held[0] is not token_ids:
        if len(_byte_keys) > 8:
            _byte_keys.clear()
        held = _byte_keys[id(token_ids)] = (token_ids, {t.encode("utf-8"): i for t, i in token_ids.items()})
    return held[1]


def reference_merge(text: str, token_ids: dict[str, int], scores: list[float]) -> list[str]:
    """The symbols llama.cpp's SentencePiece session leaves (gguftok's ``spm_merge``, as text)."""
    return [s.decode("utf-8") for s in _spm_merge(text.encode("utf-8"), _bytes_to_id(token_ids), scores)]


def reference_encode(text: str, token_ids: dict[str, int], scores: list[float], unk_id: int) -> list[int]:
    """The merge, then each symbol's id or its bytes' ``<0xNN>`` ids (``unk_id`` for a byte with no token)."""
    ids: list[int] = []
    for sym in reference_merge(text, token_ids, scores):
        if sym in token_ids:
            ids.append(token_ids[sym])
        else:
            ids += [token_ids.get(f"<0x{b:02X}>", unk_id) for b in sym.encode("utf-8")]
    return ids


# ------------------------------------------------------------------------------------------- vocabularies
def toy_ids() -> tuple[dict[str, int], list[float], int]:
    """The notebook's toy vocabulary as ``(TOY_IDS, TOY_SCORES, TOY_UNK)``: 18 scored tokens, the 256 byte tokens,
    and ``<unk>`` after them (id 274, which merging can never form)."""
    texts, scores = toy_spm_vocab()
    texts, scores = [*texts, "<unk>"], [*scores, 0.0]
    return {t: i for i, t in enumerate(texts)}, scores, len(texts) - 1


def toy_without_bytes() -> tuple[dict[str, int], list[float]]:
    """The toy vocabulary with ``<unk>`` (id 0) in front and only the byte tokens of ASCII (``<0x00>``..``<0x7F>``)."""
    texts, scores = toy_spm_vocab()
    kept = [(t, s) for t, s in zip(texts, scores, strict=True) if not (t.startswith("<0x") and int(t[3:5], 16) >= 0x80)]
    pairs = [("<unk>", 0.0), *kept]
    return {t: i for i, (t, _) in enumerate(pairs)}, [s for _, s in pairs]


def real_vocab(name: str) -> tuple[dict[str, int], list[float], int] | None:
    """A real SentencePiece vocabulary as ``(token_ids, scores, unk_id)``, the last id of a repeated text winning
    as in llama.cpp's ``token_to_id``; ``None`` when it has not been fetched."""
    tok = tokenizer(name)
    if tok is None:
        return None
    v = tok.vocab
    return {t: i for i, t in enumerate(v.texts)}, list(v.scores), v.special["unk"]


def inp_texts(name: str) -> list[str]:
    """The inputs of llama.cpp's own test file for ``name``, as text."""
    path = vocab_file(name)
    if path is None or not path.with_name(path.name + ".inp").exists():
        return []
    cases = read_cases(path.with_name(path.name + ".inp").read_bytes(),
                       path.with_name(path.name + ".out").read_text(encoding="utf-8"))
    return [text.decode("utf-8") for text, _ in cases]


def _escaped_words(texts: list[str]) -> list[str]:
    """Each distinct space-separated word of ``texts``, escaped as the start of a text (``▁`` in front)."""
    seen: dict[str, None] = {}
    for t in texts:
        for w in t.split(" "):
            if w:
                seen.setdefault(spm_escape(w), None)
    return list(seen)


# --------------------------------------------------------------------------------------------- spm_merge
def _merge_case(text: str, vocab: tuple, name: str) -> Case:
    return Case((text, *vocab[:2]), f"spm_merge({text!r}, {name})", copy=False)


def _merge_examples() -> list[Case]:
    toy = toy_ids()
    return [_merge_case(spm_escape(t), toy, "TOY_IDS, TOY_SCORES")
            for t in ("Hello world", "Hello wörld", "world Hello", "")]


def _merge_generated() -> list[Case]:
    r = rng(1101)
    toy = toy_ids()
    cases = [_merge_case(random_text(r, SPACE + "Helowrd", 0, 14), toy, "TOY_IDS, TOY_SCORES")
             for _ in range(TOY_TEXTS)]
    for _ in range(RANDOM_VOCABS):  # small random vocabularies with few distinct scores, so that ties are common
        texts = list(dict.fromkeys(random_text(r, "abc", 2, 4) for _ in range(r.randint(1, 10))))
        token_ids = {t: i for i, t in enumerate(texts)}
        scores = [float(r.choice([-1, -2, -3])) for _ in texts]
        cases.append(Case((random_text(r, "abc", 0, 12), token_ids, scores)))
    real = real_vocab("llama-spm")
    if real is not None:
        for text in _escaped_words(inp_texts("llama-spm"))[:40] + [spm_escape(t) for t in inp_texts("llama-spm")]:
            cases.append(_merge_case(text, real, f"<llama-spm's {len(real[0]):,} token ids and scores>"))
    return cases


spm_merge = Exercise(
    id="11.spm_merge",
    title="merge by score",
    statement=(
        "Write `spm_merge(text, token_ids, scores)`, SentencePiece's merge: start with one symbol per\n"
        "character of `text` (its spaces are already `▁`); as long as two neighbouring symbols together spell\n"
        "a token (a key of `token_ids`), merge the pair whose token has the **highest score**\n"
        "(`scores[token_ids[pair]]`), the **leftmost** on ties; return the symbols left. llama.cpp does it with\n"
        "a queue of pairs and skips the entries that have gone stale, as notebook 05 did with ranks.\n\n"
        f"The check uses the toy vocabulary (`TOY_IDS, TOY_SCORES`) on this notebook's texts and {TOY_TEXTS} "
        "random\n"
        f"ones, {RANDOM_VOCABS} small random vocabularies with many equal scores, and Llama 2's real vocabulary "
        "on the\n"
        "words and the whole texts of llama.cpp's own test file, against `gguftok.models.spm.spm_merge`."),
    template="",
    reference=reference_merge,
    reference_name="gguftok.models.spm.spm_merge",
    examples=_merge_examples,
    generated=_merge_generated,
    module="sentencepiece",
)


# -------------------------------------------------------------------------------------------- spm_encode
def _encode_case(text: str, vocab: tuple, name: str, unk_id: int) -> Case:
    return Case((text, *vocab[:2], unk_id), f"spm_encode({text!r}, {name}, {unk_id})", copy=False)


def _encode_examples() -> list[Case]:
    toy = toy_ids()
    return [_encode_case(spm_escape(t), toy, "TOY_IDS, TOY_SCORES", toy[2])
            for t in ("Hello world", "Hello wörld", "Hello 😀", "")]


def _encode_generated() -> list[Case]:
    r = rng(1102)
    toy, bare = toy_ids(), toy_without_bytes()
    cases = [_encode_case(spm_escape(random_text(r, "Helo wrdö😀", 0, 14)), toy, "TOY_IDS, TOY_SCORES", toy[2])
             for _ in range(TOY_TEXTS)]
    cases += [_encode_case(spm_escape(random_text(r, "Helo wrdö😀世", 1, 10)), bare,
                           "<the toy vocabulary with <unk> at 0 and only the ASCII byte tokens>", 0)
              for _ in range(BARE_TEXTS)]
    for name in _REAL:
        real = real_vocab(name)
        if real is None:
            continue
        label = f"<{name}'s {len(real[0]):,} token ids and scores>"
        texts = inp_texts(name)
        cases += [_encode_case(w, real, label, real[2]) for w in _escaped_words(texts)[:30]]
        cases += [_encode_case(spm_escape(t), real, label, real[2]) for t in texts]
        cases += [_encode_case(spm_escape(random_text(r, _SCRIPTS, 1, 24)), real, label, real[2])
                  for _ in range(REAL_TEXTS)]
    return cases


spm_encode = Exercise(
    id="11.spm_encode",
    title="SentencePiece, whole: merge, then ids with byte fallback",
    statement=(
        "Write `spm_encode(text, token_ids, scores, unk_id)`: merge `text` with your `spm_merge`, then give\n"
        "each symbol its id. A symbol that is not a token (a character of no token at all, since every merge\n"
        "makes a token) becomes its UTF-8 bytes, one `<0xNN>` token per byte with the byte in upper-case hex\n"
        "(`é` is `<0xC3>` `<0xA9>`); a byte whose `<0xNN>` token the vocabulary lacks becomes `unk_id`.\n\n"
        f"The check uses the toy vocabulary (`TOY_IDS, TOY_SCORES`) on this notebook's texts and {TOY_TEXTS} "
        "random\n"
        f"ones, the toy vocabulary without its non-ASCII byte tokens on {BARE_TEXTS} more, and the real Llama 2 "
        "and Phi-3\n"
        "vocabularies: words and whole texts of llama.cpp's own test files, escaped as the tokenizer escapes\n"
        f"them, and {REAL_TEXTS} random texts in many scripts each. The expected ids are those of\n"
        "`gguftok.models.spm.SPMModel`, which are llama.cpp's."),
    template="",
    reference=reference_encode,
    reference_name="gguftok.models.spm (llama.cpp's merge and byte fallback)",
    examples=_encode_examples,
    generated=_encode_generated,
    module="sentencepiece",
)

EXERCISES = [spm_merge, spm_encode]
