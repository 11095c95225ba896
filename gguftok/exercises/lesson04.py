"""Lesson 04 · pre-tokenizers: llama.cpp's sequential regex split, and the regex list of a ``tokenizer.ggml.pre``.

Both references are gguftok's pre-tokenizer (:class:`gguftok.pretokenize.PreTokenizer`, what
``Tokenizer.from_gguf(...).pre`` is), which runs llama.cpp's hand-written loops and its two regex paths as
ported. The student writes the plain version with the ``regex`` module. The two agree on every case here; the
random texts leave out the inputs where llama.cpp's engine does something plain ``regex`` does not (measured
over every code point and on random texts; notebook 04 explains each in "Going deeper"):

- code points that Unicode assigned after version 15.1, the version of llama.cpp's tables (``regex`` knows a
  newer Unicode: a letter assigned since is a letter to it and "other" to llama.cpp); every random character
  here is one that 15.1 already had;
- for the two DeepSeek lists, the non-ASCII spaces from U+1680 on: llama.cpp gives its regex engine ``\\v`` in
  their place, so the class ``[一-龥ࠀ-一가-\\ud7ff]`` (whose range ``ࠀ-一`` spans U+0800 to U+4E00) never sees
  them, while plain ``regex`` lets that range take U+3000 and the others;
- ``\\d`` outside ASCII (llama.cpp's regex engine knows only ``0-9``): no random case uses a list with ``\\d``.

``04.regexes_for`` is driven by :func:`plain_split` below (written here, not the solution): the student's
list cuts the text with it, so a slip in their ``split`` does not show up in this exercise.
"""

from __future__ import annotations

import random
from functools import cache
from itertools import pairwise

import regex

from ..conformance.cases import read_cases
from ..pretokenize import PRE_STRINGS, PreTokenizer, PreTokenizerConfig, pre_tokenizer_config
from ..pretokenize.unicode import WHITESPACE_SET
from ..viz.pretokenize_view import LESSON_LINE
from ._core import Case, Exercise, short
from ._data import rng, tokenizer, vocab_file

# The byte-level BPE vocabularies llama.cpp ships test files for, by their tokenizer.ggml.pre value.
VOCABULARIES = ("gpt-2", "llama-bpe", "qwen2", "starcoder", "refact", "command-r", "mpt", "falcon", "qwen35",
                "deepseek-coder", "deepseek-llm")
# Every pre value whose pre-type is one of theirs: the values regexes_for must know, each with its vocabulary.
# "default" is what llama.cpp uses for a file that names no pre-tokenizer.
SAME_AS = {pre: name for name in (*VOCABULARIES, "default") for pre, entry in PRE_STRINGS.items()
           if entry["type"] == PRE_STRINGS[name]["type"]}
DEEPSEEK = ("deepseek-coder", "deepseek-llm")
# More lists for the random cases of 04.split, measured to agree as well: GPT-4o's, Chameleon's and Tekken's have
# capture groups (findall would give the groups, not the matches), BLOOM's runs on the wregex path.
MORE_LISTS = ("gpt-4o", "chameleon", "bloom", "tekken", "deepseek-v3", "jais-2", "seed-coder", "exaone-moe")
UNKNOWN = ("gpt-4o", "bloom", "tekken", "superbpe", "", "llama", "no-such-pre")

_CODE = "for (int i = 0; i < n; i++) {\n    sum += a[i];\n}"
# The random texts: letters of several scripts (cased ones for the contractions, ſ among them), digits and other
# numbers, spaces of several kinds, newlines, apostrophes, punctuation, CJK, emoji and combining marks.
_PARTS = ["abcdelmrstvXYZSTLDMREV", "éüßñſΩжЖ", "0129", "٣²½Ⅻ", " " * 8, "\t\xa0\u3000\u2003\u205f\x85\x0b\x0c\x1c",
          "\n\r\n", "'''’", ".,;!?()=+-_/\\$^~|<>\"`", "世界語東京한국ぁア", "\u0301\u0300\u20dd\u093f\u0e31"]
_EMOJI = ["😀", "👍", "🍜", "\U0001F1EF", "\U0001F1F5", "\ufe0f", "\u200d", "\U0001F3FD"]
ALPHABET = [c for part in _PARTS for c in part] + _EMOJI
# llama.cpp hands its regex engine \v for these (notebook 04, "Going deeper"); the DeepSeek lists see none
WIDE_SPACES = frozenset(chr(c) for c in WHITESPACE_SET if c >= 0x1680)
ALPHABET_DEEPSEEK = [c for c in ALPHABET if c not in WIDE_SPACES]


def random_text(r: random.Random, pre: str, low: int = 0, high: int = 40) -> str:
    alphabet = ALPHABET_DEEPSEEK if pre in DEEPSEEK else ALPHABET
    return "".join(r.choice(alphabet) for _ in range(r.randint(low, high)))


def llama_regexes(pre: str) -> list[str]:
    """The regex list of ``pre``'s pre-type, exactly as llama.cpp writes it."""
    return list(pre_tokenizer_config(pre).regexes)


@cache
def _engine(regexes: tuple[str, ...]) -> PreTokenizer:
    return PreTokenizer(PreTokenizerConfig(None, "regexes", regexes=regexes, byte_encode=False))


def reference_split(text: str, regexes: list[str]) -> list[str]:
    """gguftok's pre-tokenizer with this regex list, as llama.cpp runs it; empty words (a zero-length match
    gives one) left out, as they yield no token."""
    return [w for w in _engine(tuple(regexes)).words(text) if w]


def plain_split(text: str, regexes: list[str]) -> list[str]:
    """The sequential split with the ``regex`` module: every regex cuts each current word at its matches'
    edges (a zero-length match is a cut and no word)."""
    words = [text] if text else []
    for pattern in regexes:
        compiled = regex.compile(pattern)
        out = []
        for word in words:
            cuts = {0, len(word)}
            for m in compiled.finditer(word):
                cuts.update(m.span())
            edges = sorted(cuts)
            out += [word[a:b] for a, b in pairwise(edges)]
        words = out
    return words


def _list_name(regexes: list[str]) -> str | None:
    for pre in (*VOCABULARIES, *MORE_LISTS, "superbpe"):
        if list(regexes) == llama_regexes(pre):
            return pre
    return None


def _split_case(text: str, regexes: list[str], where: str = "") -> Case:
    name = _list_name(regexes)
    if name is None:
        return Case((text, regexes))
    n = len(regexes)
    return Case((text, regexes), f"split({where}{short(text, 100)}, the regex list of {name!r}: {n} regex"
                                 f"{'' if n == 1 else 'es'})")


def _inp_texts(name: str) -> list[str]:
    """The texts of llama.cpp's ``ggml-vocab-<name>.gguf.inp`` (empty when the vocabulary is not fetched)."""
    path = vocab_file(name)
    if path is None:
        return []
    inp, out = path.with_name(path.name + ".inp"), path.with_name(path.name + ".out")
    if not (inp.exists() and out.exists()):
        return []
    return [t.decode("utf-8") for t, _ in read_cases(inp.read_bytes(), out.read_text(encoding="utf-8"))]


# ------------------------------------------------------------------------------------------------- split
def _split_examples() -> list[Case]:
    return [
        Case(("a1b22c", [r"\d+"])),  # the text between matches is a word
        Case(("Hello world 2026!", [r"\p{N}", r" ?\p{L}+"])),  # each regex cuts every word the first left
        Case(("ab  12", [r"\d", r"\s+(?!\S)"])),  # a word is searched on its own: the lookahead sees its end
        Case(("pay 1234567 now", llama_regexes("superbpe")),  # zero-length matches cut, and make no word
             "split('pay 1234567 now', the regex list of 'superbpe': [r'\\p{N}+', r'(?=(\\d{3})+(?!\\d))'])"),
        Case(("", [r"\S+"])),
        Case(("   ", [r"\S+"])),
        Case(("x\n\ty    z", [r"([\t\n]|    |  )"])),
        _split_case("HTTPServer's 2026 Ünï", llama_regexes("gpt-4o")),  # capture groups
        _split_case(LESSON_LINE, llama_regexes("gpt-2")),
        _split_case(LESSON_LINE, llama_regexes("llama-bpe")),
        _split_case(LESSON_LINE, llama_regexes("qwen2")),
        _split_case(_CODE, llama_regexes("starcoder")),
        _split_case("Ünïcödé: 世界 😀 привет 12345", llama_regexes("deepseek-coder")),
        _split_case("Ünïcödé: 世界 😀 привет 12345\n\n", llama_regexes("deepseek-llm")),
    ]


def _split_generated() -> list[Case]:
    r = rng(401)
    lists = (*VOCABULARIES, *MORE_LISTS)
    cases = []
    for _ in range(400):
        pre = r.choice(lists)
        cases.append(_split_case(random_text(r, pre), llama_regexes(pre)))
    for name in VOCABULARIES:
        for k, text in enumerate(_inp_texts(name), 1):
            cases.append(_split_case(text, llama_regexes(name), f"<text {k} of ggml-vocab-{name}.gguf.inp> "))
    return cases


split = Exercise(
    id="04.split",
    title="llama.cpp's sequential regex split",
    statement=(
        "Write `split(text, regexes)`: cut `text` with a list of regular expressions by the four rules above.\n"
        "Each regex in turn cuts every word left, searching each word on its own (a match never reaches\n"
        "past the word, and a lookahead sees the word's end there); the text between two matches, before the\n"
        "first or after the last stays a word; a match of no characters cuts but makes no word. An empty\n"
        "text has no words. Use the `regex` module and `regex.finditer` (`findall` gives a pattern's groups,\n"
        "not its matches).\n\n"
        "The check uses this notebook's small lists, random texts in many scripts with the lists of 19\n"
        "`tokenizer.ggml.pre` values, and the texts of llama.cpp's `.inp` files of the eleven byte-level BPE\n"
        "vocabularies, against gguftok's pre-tokenizer (llama.cpp's engine as ported). The random texts keep\n"
        "to characters of Unicode 15.1 (the version of llama.cpp's tables) and give the DeepSeek lists no\n"
        "non-ASCII space from U+1680 on: there llama.cpp's engine and plain `regex` part (\"Going deeper\")."),
    template="",
    reference=reference_split,
    reference_name="gguftok's pre-tokenizer with the same regex list",
    examples=_split_examples,
    generated=_split_generated,
    module="pretokenize",
)


# ------------------------------------------------------------------------------------------- regexes_for
def _reference_regexes_for(pre: str, text: str) -> list[str]:
    """The words of ``text`` under ``pre`` (gguftok's pre-tokenizer of the vocabulary); ``ValueError`` for a pre
    value outside :data:`SAME_AS`."""
    name = SAME_AS.get(pre)
    if name is None:
        raise ValueError(f"no regex list for tokenizer.ggml.pre = {pre!r}")
    tok = tokenizer(name) if pre == name else None
    pt = tok.pre if tok is not None else _engine(tuple(llama_regexes(pre)))
    return [w for w in pt.words(text) if w] if text else []


def _call_regexes_for(fn, pre: str, text: str):
    """The student's list for ``pre``, used to cut ``text`` with :func:`plain_split`."""
    regexes = fn(pre)
    if not isinstance(regexes, list | tuple) or not all(isinstance(r, str) for r in regexes):
        return f"regexes_for({pre!r}) returned {short(regexes, 80)}, not a list of pattern strings"
    for k, pattern in enumerate(regexes):
        try:
            regex.compile(pattern)
        except regex.error as e:
            return f"pattern {k} of regexes_for({pre!r}) is not a regex: {e}"
    return plain_split(text, list(regexes))


def _rf_case(pre: str, text: str, where: str = "") -> Case:
    return Case((pre, text), f"regexes_for({pre!r}), then the text {where}{short(text, 100)} cut with it")


def _regexes_for_examples() -> list[Case]:
    return [
        _rf_case("gpt-2", LESSON_LINE),
        _rf_case("llama-bpe", LESSON_LINE),
        _rf_case("qwen2", LESSON_LINE),
        _rf_case("gpt-2", "Hello world, it's 2026!\n\n  x"),
        _rf_case("llama-bpe", "I'M here  \n\n  x, we'VE 1234567"),
        _rf_case("qwen2", _CODE),
        _rf_case("llama-bpe", "Of old print: it'ſt, they'S, we'LL"),  # 'ſ is no contraction for llama.cpp
        _rf_case("llama3", LESSON_LINE),
        _rf_case("deepseek-r1-qwen", LESSON_LINE),
        _rf_case("starcoder", LESSON_LINE),
        _rf_case("deepseek-llm", "Ünïcödé: 世界 😀 привет 12345"),
        _rf_case("tekken", LESSON_LINE),
        _rf_case("no-such-pre", LESSON_LINE),
    ]


# Each contraction, in both cases, alone and with letters after it: without its alternative a pattern cuts these
# otherwise (GPT-2 gives `'` and `t`; Llama 3's letters alternative takes `'tcha` whole), so every alternative
# of the three patterns the student writes decides at least one case (random texts rarely hold `'ve`).
CONTRACTION_TEXTS = ("it's, don't, we're, I've, I'm, we'll, he'd",
                     "IT'S, DON'T, WE'RE, I'VE, I'M, WE'LL, HE'D",
                     "it'sa don'tcha we'rent I'vegot I'mok we'llx he'dve",
                     "IT'SA DON'TCHA WE'RENT I'VEGOT I'MOK WE'LLX HE'DVE")


# Digit runs of every length, after a space or not, in ASCII and other scripts (Arabic-Indic, fractions), next to
# punctuation: each regex of the given lists decides one of these (without "default"'s \p{N}+, a space before
# Arabic-Indic digits stays with them; without its [0-9][0-9][0-9], 12345 stays whole).
DIGIT_TEXTS = ("pay 12345 or 678, say 9; 1234567890!", "x ٣٤٥ and ٣٤٥٦٧, ½ off: 2½%", "a1b22c333d4444 $5,000.00")


def _regexes_for_generated() -> list[Case]:
    r = rng(402)
    cases = [_rf_case(pre, text) for pre in VOCABULARIES for text in CONTRACTION_TEXTS]
    cases += [_rf_case(name, text) for name in sorted(set(SAME_AS.values())) for text in DIGIT_TEXTS]
    for pre in sorted(SAME_AS):
        n = 30 if pre in VOCABULARIES else 4
        cases += [_rf_case(pre, random_text(r, SAME_AS[pre])) for _ in range(n)]
    cases += [_rf_case(pre, random_text(r, "gpt-2", 1, 20)) for pre in UNKNOWN]
    for name in VOCABULARIES:
        for k, text in enumerate(_inp_texts(name), 1):
            cases.append(_rf_case(name, text, f"<{k} of ggml-vocab-{name}.gguf.inp> "))
    return cases


regexes_for = Exercise(
    id="04.regexes_for",
    title="the regex list of a tokenizer.ggml.pre value",
    statement=(
        "Write GPT-2's, Llama 3's and Qwen2's patterns in `GPT2`, `LLAMA3` and `QWEN2` at the top of\n"
        "`mytok/pretokenize.py` (each one string, as printed whole above), then `regexes_for(pre)`: the list of\n"
        "regexes for a `tokenizer.ggml.pre` value. The file gives `SAME_AS`, every value that selects one of\n"
        "the lists mapped to the list's name (`\"llama3\"` to `\"llama-bpe\"`, ...), and `OTHER_REGEXES`, the\n"
        "lists other than your three (five of them use your `GPT2`). A value `SAME_AS` does not know raises\n"
        "`ValueError`. Write the contractions letter by letter as llama.cpp does (`'[sS]`, not `(?i:'s)`:\n"
        "\"Going deeper\" says why).\n\n"
        "The check cuts each text with your list (and a split of its own, so a slip in your `split` does not\n"
        "show here) and compares the words with gguftok's pre-tokenizer for that value: this notebook's\n"
        "examples, texts with every contraction, digit runs in several scripts for every list, random texts\n"
        "for every value `SAME_AS` holds, the texts of\n"
        "llama.cpp's `.inp` files, and values it does not know (`\"gpt-4o\"`, `\"\"`, ...), which must raise\n"
        "`ValueError`."),
    template="",
    reference=_reference_regexes_for,
    reference_name="gguftok's pre-tokenizer for the same tokenizer.ggml.pre",
    examples=_regexes_for_examples,
    generated=_regexes_for_generated,
    call=_call_regexes_for,
    module="pretokenize",
)

EXERCISES = [split, regexes_for]
