"""Lesson 11 · SentencePiece: the score-ordered merge, then the whole encoder with ``<0xNN>`` byte fallback;
WordPiece's greedy longest match of one word; Unigram's Viterbi.

The expected symbols come from :func:`gguftok.models.spm.spm_merge` (llama.cpp's SentencePiece session, on the
text's UTF-8 bytes); the expected ids from the same merge followed by llama.cpp's emission: a symbol that is a
token is its id, any other symbol one ``<0xNN>`` token per byte. Where a vocabulary lacks a byte token, llama.cpp
stops with an error (gguftok's ``SPMModel`` raises ``EncodeError``); the workbook's ``spm_encode`` gives
``unk_id`` for that byte instead, which is what the capstone's contract asks.

WordPiece's expected ids come from :class:`gguftok.models.wpm.WPMModel` (``match``: one preprocessed word), and
Unigram's from :class:`gguftok.models.ugm.UGMModel` (``_viterbi``: normalised bytes); both agree with llama.cpp
on its test file for bert-bge and on its recorded answers for nomic-bert-moe (``data/golden/``).
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
        "Write `spm_merge(text, token_ids, scores)`: start with one symbol per character of `text`; while\n"
        "two neighbours together spell a token (a key of `token_ids`), merge the pair whose token has the\n"
        "**highest score** (`scores[token_ids[pair]]`), the **leftmost** on ties; return the symbols left.\n\n"
        f"The check uses the toy vocabulary (`TOY_IDS, TOY_SCORES`) on this notebook's texts and {TOY_TEXTS} "
        "random\n"
        f"ones, {RANDOM_VOCABS} small random vocabularies with many equal scores, and Llama 2's vocabulary on "
        "the words\n"
        "and texts of llama.cpp's test file, against `gguftok.models.spm.spm_merge`."),
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
        "Write `spm_encode(text, token_ids, scores, unk_id)`: your `spm_merge`, then each symbol's id. A\n"
        "symbol that is not a token becomes its UTF-8 bytes, one `<0xNN>` token per byte (upper-case hex:\n"
        "`é` is `<0xC3>` `<0xA9>`); a byte without such a token becomes `unk_id`.\n\n"
        f"The check uses the toy vocabulary on this notebook's texts and {TOY_TEXTS} random ones, the toy "
        "vocabulary\n"
        f"without its non-ASCII byte tokens on {BARE_TEXTS} more, and Llama 2's and Phi-3's vocabularies on "
        "the words and\n"
        f"texts of llama.cpp's test files and {REAL_TEXTS} random texts each, against "
        "`gguftok.models.spm.SPMModel`."),
    template="",
    reference=reference_encode,
    reference_name="gguftok.models.spm (llama.cpp's merge and byte fallback)",
    examples=_encode_examples,
    generated=_encode_generated,
    module="sentencepiece",
)



# ------------------------------------------------------------------------------------------------ WordPiece
# The notebook's toy WordPiece vocabulary: ``▁`` starts a word, a continuation has no mark (BERT's ``##ize``).
TOY_WORDPIECE = ("[UNK]", "▁un", "▁u", "▁to", "▁token", "k", "en", "iz", "ize", "izer", "er", "s", "able", "a",
                 "b", "l", "e")
_wpm_models: dict[int, tuple[dict[str, int], object]] = {}
# Generated cases: random toy words; real words of bert-bge (from llama.cpp's test file, made of pieces of its
# vocabulary, random in many scripts).
TOY_WORDS, VOCAB_WORDS, SCRIPT_WORDS = 100, 150, 60


def toy_wordpiece() -> tuple[dict[str, int], int, int]:
    """The toy vocabulary as ``(WP_IDS, WP_UNK, WP_MAX)``: each token's text to its id, ``[UNK]``'s id and the
    longest token's length in characters."""
    return {t: i for i, t in enumerate(TOY_WORDPIECE)}, 0, max(map(len, TOY_WORDPIECE))


def wordpiece_vocab(name: str = "bert-bge") -> tuple[dict[str, int], int, int] | None:
    """A real WordPiece vocabulary as ``(token_ids, unk_id, max_len)``, the last id of a repeated text winning as
    in llama.cpp's ``token_to_id``; ``None`` when it has not been fetched."""
    tok = tokenizer(name)
    if tok is None:
        return None
    texts = tok.vocab.texts
    token_ids = _real_ids.get(name)
    if token_ids is None:
        token_ids = _real_ids[name] = {t: i for i, t in enumerate(texts)}
    return token_ids, tok.vocab.special["unk"], max(map(len, texts))


_real_ids: dict[str, dict[str, int]] = {}


def _wpm_model(token_ids: dict[str, int], unk_id: int):
    """gguftok's ``WPMModel`` for ``token_ids`` (the real vocabulary's own model; built once per dict)."""
    from ..models.wpm import WPMModel

    held = _wpm_models.get(id(token_ids))
    if held is None or held[0] is not token_ids:
        real = next((n for n, ids in _real_ids.items() if ids is token_ids), None)
        if real is not None:
            model = tokenizer(real).model
        else:
            texts = [""] * (max(token_ids.values(), default=-1) + 1)
            for t, i in token_ids.items():
                texts[i] = t
            model = WPMModel(texts, unk_id, lowercase=False, strip_accents=False)
        if len(_wpm_models) > 8:
            _wpm_models.clear()
        held = _wpm_models[id(token_ids)] = (token_ids, model)
    return held[1]


def reference_wordpiece(word: str, token_ids: dict[str, int], unk_id: int, max_len: int) -> list[int]:
    """llama.cpp's greedy longest match of ``▁`` + ``word`` (gguftok's ``WPMModel.match``)."""
    return _wpm_model(token_ids, unk_id).match(word)


def bert_words(texts: list[str]) -> list[str]:
    """The distinct words of ``texts`` as BERT's pre-tokenizer cuts them (lower-cased, accents stripped)."""
    from ..models.wpm import preprocess

    return list(dict.fromkeys(w for t in texts for w in preprocess(t, lowercase=True, strip_accents=True)))


def _wp_case(word: str, vocab: tuple, name: str) -> Case:
    return Case((word, *vocab), f"wordpiece_word({word!r}, {name})", copy=False)


def _wordpiece_examples() -> list[Case]:
    toy = toy_wordpiece()
    return [_wp_case(w, toy, "WP_IDS, WP_UNK, WP_MAX") for w in ("unable", "tokenizers", "tokenx", "to", "")]


def _wordpiece_generated() -> list[Case]:
    r = rng(1103)
    toy = toy_wordpiece()
    cases = [_wp_case(random_text(r, "unabletokizrsx", 1, 12), toy, "WP_IDS, WP_UNK, WP_MAX")
             for _ in range(TOY_WORDS)]
    real = wordpiece_vocab()
    if real is not None:
        label = f"<bert-bge's {len(real[0]):,} token ids>, {real[1]}, {real[2]}"
        words = bert_words(inp_texts("bert-bge"))
        texts = sorted(real[0])
        for _ in range(VOCAB_WORDS):  # two or three of its tokens glued, the ▁ of a word start dropped
            parts = [r.choice(texts).lstrip("\u2581") for _ in range(r.randint(2, 3))]
            words.append("".join(parts))
        words += bert_words([random_text(r, _SCRIPTS.replace("\t", "").replace("\n", ""), 4, 16)
                             for _ in range(SCRIPT_WORDS)])
        cases += [_wp_case(w, real, label) for w in dict.fromkeys(w for w in words if w)]
    return cases


wordpiece_word = Exercise(
    id="11.wordpiece_word",
    title="WordPiece: the longest token first",
    statement=(
        "Write `wordpiece_word(word, token_ids, unk_id, max_len)`: put `▁` in front of the word, then from the\n"
        "start take the **longest** token (a key of `token_ids`, at most `max_len` characters) that the rest\n"
        "starts with, and go on after it; return the ids. If at some place no token fits, return `[unk_id]`.\n\n"
        f"The check uses the toy vocabulary on this notebook's words and {TOY_WORDS} random ones, and bert-bge's\n"
        f"on the words of llama.cpp's test file, {VOCAB_WORDS} words glued from its tokens and the words of "
        f"{SCRIPT_WORDS}\nrandom texts, against `gguftok.models.wpm.WPMModel`."),
    template="",
    reference=reference_wordpiece,
    reference_name="gguftok.models.wpm.WPMModel.match",
    examples=_wordpiece_examples,
    generated=_wordpiece_generated,
    module="wordpiece",
)


# -------------------------------------------------------------------------------------------------- Unigram
# The notebook's toy Unigram vocabulary: each token's score (a log-probability); <unk> (id 0) is no candidate.
TOY_UNIGRAM = (("<unk>", 0.0), ("▁", -2.0), ("▁h", -5.0), ("▁hu", -6.5), ("▁hug", -8.0), ("h", -4.0), ("hu", -5.5),
               ("hug", -5.0), ("u", -3.0), ("ug", -4.0), ("g", -3.5))
_ugm_models: dict[int, tuple[dict[str, int], object]] = {}
# Generated cases: random toy texts, small random vocabularies with ties, nomic-bert-moe's normalised texts
# (llama.cpp's recorded ones, bert-bge's test file's and random ones in many scripts) and their words.
TOY_LATTICES, RANDOM_LATTICES, UGM_TEXTS, UGM_RANDOM = 100, 150, 120, 40


def float32(x: float) -> float:
    """``x`` rounded to the nearest 32-bit float, as llama.cpp's unknown score is."""
    import struct

    return struct.unpack("<f", struct.pack("<f", x))[0]


def toy_unigram() -> tuple[dict[str, int], list[float], int, float, int]:
    """The toy vocabulary as ``(UG_IDS, UG_SCORES, UG_UNK, UG_UNK_SCORE, UG_MAX)``: the candidates' ids (not
    ``<unk>``), every id's score, ``<unk>``'s id, its score (the lowest score minus 10) and the longest
    candidate's length."""
    ids = {t: i for i, (t, _) in enumerate(TOY_UNIGRAM) if i}
    scores = [s for _, s in TOY_UNIGRAM]
    return ids, scores, 0, float32(min(scores[1:]) - 10.0), max(map(len, ids))


def unigram_vocab(name: str = "nomic-bert-moe") -> tuple[dict[str, int], list[float], int, float, int] | None:
    """A real Unigram vocabulary as ``(token_ids, scores, unk_id, unk_score, max_len)``: the tokens Viterbi may
    use (normal, user-defined, unused), every id's score, the unknown token and its score; ``None`` when it has
    not been fetched."""
    tok = tokenizer(name)
    if tok is None:
        return None
    held = _ugm_real.get(name)
    if held is None:
        model = tok.model
        token_ids = dict(model._text_ids)
        scores = [float(s) for s in tok.vocab.scores]
        held = _ugm_real[name] = (token_ids, scores, tok.vocab.special["unk"], model.unknown_score,
                                  max(map(len, token_ids)))
    return held


_ugm_real: dict[str, tuple] = {}


def _ugm_model(token_ids: dict[str, int], scores: list[float], unk_id: int, unk_score: float):
    """gguftok's ``UGMModel`` for these candidates (the real vocabulary's own model; built once per dict)."""
    from ..models.ugm import UGMModel
    from ..vocab import NORMAL, UNKNOWN

    held = _ugm_models.get(id(token_ids))
    if held is None or held[0] is not token_ids:
        real = next((n for n, v in _ugm_real.items() if v[0] is token_ids), None)
        if real is not None:
            model = tokenizer(real).model
        else:
            texts = [f"\0{i}" for i in range(len(scores))]  # no text of the normalised input holds a NUL
            attrs = [UNKNOWN] * len(scores)
            for t, i in token_ids.items():
                texts[i], attrs[i] = t, NORMAL
            model = UGMModel(texts, scores, attrs, attrs, unk_id, b"", False, False)
        if len(_ugm_models) > 8:
            _ugm_models.clear()
        held = _ugm_models[id(token_ids)] = (token_ids, model)
    return held[1]


def reference_unigram(text: str, token_ids: dict[str, int], scores: list[float], unk_id: int, unk_score: float,
                      max_len: int) -> list[int]:
    """llama.cpp's Viterbi over normalised text (gguftok's ``UGMModel._viterbi``)."""
    model = _ugm_model(token_ids, scores, unk_id, unk_score)
    if (model.unknown_score, model.unk) != (unk_score, unk_id):  # the model's own, from the lowest score
        raise ValueError(f"unk_score {unk_score} and unk_id {unk_id}: the vocabulary's are "
                         f"{model.unknown_score} and {model.unk}")
    return model._viterbi(text.encode("utf-8"))[0]


def nomic_normalize(texts: list[str]) -> list[str]:
    """``texts`` normalised as nomic-bert-moe normalises them (its character map, ``▁`` before every word)."""
    tok = tokenizer("nomic-bert-moe")
    return [tok.model.normalize_slow(t.encode("utf-8")).decode("utf-8", "replace") for t in texts]


def golden_texts(name: str, limit: int) -> list[str]:
    """The first ``limit`` texts (valid UTF-8, at most 200 characters) llama.cpp's recorded answers hold for
    ``name`` (``data/golden/``)."""
    from .capstone import golden_cases

    return [t.decode("utf-8") for t, _ in golden_cases(name) if len(t) <= 200][:limit]


def _ug_case(text: str, vocab: tuple, name: str) -> Case:
    return Case((text, *vocab), f"unigram_encode({text!r}, {name})", copy=False)


_UG_NAME = "UG_IDS, UG_SCORES, UG_UNK, UG_UNK_SCORE, UG_MAX"


def _unigram_examples() -> list[Case]:
    toy = toy_unigram()
    return [_ug_case(t, toy, _UG_NAME) for t in ("▁hug", "▁hugh", "▁hux", "▁hxxg", "")]


def _unigram_generated() -> list[Case]:
    r = rng(1104)
    toy = toy_unigram()
    cases = [_ug_case(random_text(r, "▁hugx", 1, 14), toy, _UG_NAME) for _ in range(TOY_LATTICES)]
    for _ in range(RANDOM_LATTICES):  # small random vocabularies with few distinct scores: ties are common
        texts = list(dict.fromkeys(random_text(r, "abc", 1, 3) for _ in range(r.randint(1, 10))))
        token_ids = {t: i + 1 for i, t in enumerate(texts)}
        scores = [0.0] + [float(r.choice([-1, -2, -3])) for _ in texts]
        cases.append(Case((random_text(r, "abcd", 0, 12), token_ids, scores, 0, float32(min(scores[1:]) - 10.0),
                           max(map(len, texts)))))
    real = unigram_vocab()
    if real is not None:
        label = f"<nomic-bert-moe's {len(real[0]):,} token ids and scores>, {real[2]}, {real[3]}, {real[4]}"
        texts = golden_texts("nomic-bert-moe", UGM_TEXTS) + inp_texts("bert-bge")
        texts += [random_text(r, _SCRIPTS + "ｈｅｌｌｏ①②ﬁ　", 1, 24) for _ in range(UGM_RANDOM)]
        normal = [t for t in dict.fromkeys(nomic_normalize(texts)) if t]
        words = list(dict.fromkeys("\u2581" + w for t in normal for w in t.split("\u2581") if w))
        cases += [_ug_case(t, real, label) for t in words[:150] + normal]
    return cases


unigram_encode = Exercise(
    id="11.unigram_encode",
    title="Unigram: the best-scoring split, by Viterbi",
    statement=(
        "Write `unigram_encode(text, token_ids, scores, unk_id, unk_score, max_len)`, Viterbi on normalised\n"
        "text: a token (a key of `token_ids`, at most `max_len` characters) adds `scores[id]`; where no\n"
        "one-character token starts, `unk_id` may step over one character, adding `unk_score`. Keep a candidate\n"
        "only if it is **strictly** better, walk back from the end, and make unknowns next to each other one.\n\n"
        f"The check uses the toy vocabulary on this notebook's texts and {TOY_LATTICES} random ones, "
        f"{RANDOM_LATTICES} small\nrandom vocabularies with many equal scores, and nomic-bert-moe's on "
        "normalised texts (llama.cpp's\n"
        f"recorded ones for it, those of its test file for bert-bge, {UGM_RANDOM} random ones) and their words, "
        "against\n`gguftok.models.ugm.UGMModel`."),
    template="",
    reference=reference_unigram,
    reference_name="gguftok.models.ugm.UGMModel (llama.cpp's Viterbi)",
    examples=_unigram_examples,
    generated=_unigram_generated,
    module="unigram",
)

EXERCISES = [spm_merge, spm_encode, wordpiece_word, unigram_encode]


# ------------------------------------------------------------------------------- the notebook's step tables
def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=False)]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=False)).rstrip()
                     for r in [header, *rows])


def wordpiece_steps(word: str, token_ids: dict[str, int], unk_id: int, max_len: int) -> str:
    """WordPiece's match of one word as a step table: at each place, the rest of ``▁`` + ``word`` and the
    longest token it starts with (the ids are gguftok's ``WPMModel``'s)."""
    text, rows, at = "\u2581" + word, [], 0
    names = {i: t for t, i in token_ids.items()}
    while at < len(text):
        rest = text[at:]
        hit = next((rest[:j] for j in range(min(len(rest), max_len), 0, -1) if rest[:j] in token_ids), None)
        if hit is None:
            rows.append([str(at), rest, "none: the whole word is " + names.get(unk_id, str(unk_id)), str(unk_id)])
            break
        rows.append([str(at), rest, hit, str(token_ids[hit])])
        at += len(hit)
    ids = reference_wordpiece(word, token_ids, unk_id, max_len)
    return _table(["at", "rest", "longest token it starts with", "id"], rows) + f"\nids: {ids}"


def lattice_table(text: str, token_ids: dict[str, int], scores: list[float], max_len: int) -> str:
    """The lattice of ``text``: at each position, every token that starts there, with its score."""
    rows = []
    for start in range(len(text)):
        found = [text[start:e] for e in range(start + 1, min(len(text), start + max_len) + 1) if text[start:e] in
                 token_ids]
        rows.append([str(start), text[start], ", ".join(f"{t} ({scores[token_ids[t]]:+.1f} to {start + len(t)})"
                                                         for t in found) or "none"])
    return _table(["at", "char", "tokens that start here (score, to position)"], rows)


def viterbi_steps(text: str, token_ids: dict[str, int], scores: list[float], unk_id: int, unk_score: float,
                  max_len: int) -> str:
    """Viterbi's forward pass on ``text`` as a step table, one row per candidate in the order llama.cpp tries
    them, then the best split ending at each position and the walk back (the ids are gguftok's ``UGMModel``'s)."""
    n = len(text)
    best, start_of, token_of = [0.0] + [None] * n, [0] * (n + 1), [""] * (n + 1)
    rows = []
    for start in range(n):
        ends = range(start + 1, min(n, start + max_len) + 1)
        cands = [(text[start:e], scores[token_ids[text[start:e]]]) for e in ends if text[start:e] in token_ids]
        single = any(len(t) == 1 for t, _ in cands)
        if not single:
            cands.append(("<unk>", unk_score))
        for tok, score in cands:
            end = start + (len(tok) if tok != "<unk>" else 1)
            total = best[start] + score
            before = best[end]
            kept = before is None or total > before
            rows.append([str(start), tok, str(end), f"{best[start]:.1f} {score:+.1f} = {total:.1f}",
                         "-" if before is None else f"{before:.1f}", "kept" if kept else "no"])
            if kept:
                best[end], start_of[end], token_of[end] = total, start, tok
    walk, end = [], n
    while end > 0:
        walk.append(f"{end} <- {token_of[end]} <- {start_of[end]}")
        end = start_of[end]
    ids = reference_unigram(text, token_ids, scores, unk_id, unk_score, max_len)
    return (_table(["from", "token", "to", "best[from] + score", "best[to] so far", ""], rows)
            + f"\nback from the end: {', '.join(walk)}\nids: {ids}")
