"""Lesson 09 · conformance: read llama.cpp's .inp/.out test files, run them, name the first difference, and prove
the stage at which two engines part."""

from __future__ import annotations

from functools import cache

from ..conformance.cases import SEPARATOR
from ..conformance.cases import read_cases as _gguftok_read_cases
from ..data import vocab_dir
from ..disagree import word_stages as _word_stages
from ..viz.conformance_view import first_difference as _first_difference
from ._core import Case, Exercise, short
from ._data import random_text, rng, tokenizer


@cache
def case_files() -> tuple[tuple[str, bytes, str], ...]:
    """Every .inp/.out pair in data/vocab: (vocabulary name, the .inp bytes, the .out text)."""
    pairs = []
    for inp in sorted(vocab_dir().glob("ggml-vocab-*.gguf.inp")):
        out = inp.with_suffix(".out")
        if out.exists():
            name = inp.name.removeprefix("ggml-vocab-").removesuffix(".gguf.inp")
            pairs.append((name, inp.read_bytes(), out.read_text(encoding="utf-8")))
    return tuple(pairs)


# ------------------------------------------------------------------------------------------- read_cases
_TEXT_ALPHABET = "ab \n\n\r\t_é😀"


def _random_pair(r) -> tuple[bytes, str]:
    """A small .inp/.out pair: texts (some empty, some with newlines or a separator-like word), id lines with
    the files' leading space or not, trailing spaces or a carriage return, a final newline or not; and now and
    then one line too many or too few, or an id that is not a number."""
    n = r.randint(0, 5)
    texts = []
    for _ in range(n):
        text = random_text(r, _TEXT_ALPHABET, 0, 6)
        if r.random() < 0.15:
            text += r.choice(["__ggml_vocab_test__", "\n__ggml_vocab_test__", "__ggml_vocab_test__\n",
                              "\r\n__ggml_vocab_test__\r\n"])
        texts.append(text.encode())
    inp = SEPARATOR.join(texts) + (SEPARATOR if texts and r.random() < 0.7 else b"")
    lines = []
    for _ in range(n):
        ids = [str(r.randrange(-2, 200_000)) for _ in range(r.randint(0, 4))]
        line = (" " if r.random() < 0.6 else "") + " ".join(ids)
        lines.append(line + r.choice(["", "", " ", "  ", "\r", "\t"]))
    if r.random() < 0.12:
        if lines and r.random() < 0.5:
            lines.pop(r.randrange(len(lines)))
        else:
            lines.insert(r.randint(0, len(lines)), " 1 2")
    if lines and r.random() < 0.08:
        k = r.randrange(len(lines))
        lines[k] = lines[k] + " " + r.choice(["x", "abc", "one", "k9"])
    out = "\n".join(lines) + ("\n" if lines and r.random() < 0.8 else "")
    return inp, out


def _read_examples() -> list[Case]:
    s = SEPARATOR
    return [Case((b"Hello" + s + b" world" + s, " 9707\n 1879\n")),
            Case((b"a" + s + s + b"b", " 64\n\n 65")),
            Case((b"", "")),
            Case((s + b"x", "\n 87\n")),
            Case((b"one" + s + b"two" + s, " 1\n")),
            Case((b"a\r\nb" + s, " 1 2 3\r\n")),
            Case((b"a__ggml_vocab_test__b" + s, " 5\n")),
            Case((b"a" + s, " 1 x\n"))]


def _read_generated() -> list[Case]:
    r = rng(903)
    cases = [Case((inp, out), f"read_cases(<{name}'s .inp, {len(inp):,} bytes>, <its .out, "
                              f"{out.count(chr(10))} lines>)", copy=False) for name, inp, out in case_files()]
    cases += [Case(_random_pair(r)) for _ in range(200)]
    return cases


read_cases = Exercise(
    id="09.read_cases",
    title="read an .inp/.out pair as llama.cpp does",
    statement=(
        "Write `read_cases(inp, out)`: the cases of a pair of test files, as a list of `(text, expected ids)`\n"
        "in file order. `inp` is the .inp file's bytes, `out` the .out file's text. Follow the rules of\n"
        "llama.cpp's `tests/test-tokenizer-0.cpp` as notebook 09 lists them: the texts lie between separators\n"
        "(the constant `SEPARATOR` in your file), kept as bytes; line `k` of `out` holds the ids of text `k`,\n"
        "and a final `\"\\n\"` ends the last line and starts no other. When the numbers of texts and lines\n"
        "differ, raise `ValueError`; so does an id that is not an integer (`int` raises it for you).\n\n"
        "The check uses the examples above, all 15 pairs in `data/vocab`, and 200 small pairs with empty texts,\n"
        "separator-like words, `\\r`, missing final newlines, a line too many or too few, or a bad id, against\n"
        "`gguftok.conformance.cases.read_cases`."),
    template="",
    reference=_gguftok_read_cases,
    reference_name="gguftok.conformance.cases.read_cases",
    examples=_read_examples,
    generated=_read_generated,
    module="conformance",
)


# -------------------------------------------------------------------------------------------- run_cases
class VocabEncoder:
    """``encode`` of a real vocabulary as llama.cpp's test encodes: no BOS/EOS, special tokens not parsed."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, text: bytes) -> list[int]:
        return tokenizer(self.name).encode(text, add_special=False, parse_special=False)


class ToyEncoder:
    """A small encoder with a memory: the ids are the text's bytes, then how many texts it has seen before;
    it raises for some texts (``ValueError`` for a byte ``ff``, ``KeyError`` for an empty text, ``ZeroDivisionError``
    for a text that starts with ``0``)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, text: bytes) -> list[int]:
        self.calls += 1
        if b"\xff" in text:
            raise ValueError(f"cannot encode byte 0xff at {text.index(0xFF)}")
        if not text:
            raise KeyError("")
        if text.startswith(b"0"):
            return [1 // 0]
        return [*text, self.calls - 1]

    def __repr__(self) -> str:
        return "ToyEncoder()"


def _ref_run_cases(encode, cases):
    """The loop of ``gguftok.conformance.cases.run_cases``: every case in order, an exception recorded as text."""
    results = []
    for text, expected in cases:
        try:
            got = encode(text)
        except Exception as e:  # the check's encoders raise several kinds
            got = f"{type(e).__name__}: {e}"
        results.append((text, expected, got))
    return results


def _toy_cases(r) -> list[tuple[bytes, list[int]]]:
    texts = [random_text(r, "ab0 é", 0, 4).encode() + (b"\xff" if r.random() < 0.15 else b"")
             for _ in range(r.randint(0, 5))]
    return [(t, [r.randrange(300) for _ in range(r.randint(0, 3))]) for t in texts]


def _toy_case(cases: list[tuple[bytes, list[int]]]) -> Case:
    return Case((ToyEncoder(), cases), f"run_cases(ToyEncoder(), {short(cases, 150)})")


def _run_examples() -> list[Case]:
    return [_toy_case([(b"ab", [97, 98, 0]), (b"c", [99, 0])]),
            _toy_case([(b"x\xff", [1]), (b"", []), (b"ok", [111, 107, 2])]),
            _toy_case([(b"0", [48])]), _toy_case([])]


def _run_generated() -> list[Case]:
    r = rng(904)
    cases = []
    for name, inp, out in case_files():
        tests = _gguftok_read_cases(inp, out)
        cases.append(Case((VocabEncoder(name), tests), f"run_cases(<{name}'s encode, without BOS or special "
                                                        f"tokens>, <the {len(tests)} cases of its .inp/.out pair>)"))
    cases += [_toy_case(_toy_cases(r)) for _ in range(80)]
    return cases


run_cases = Exercise(
    id="09.run_cases",
    title="run every case through an encoder",
    statement=(
        "Write `run_cases(encode, cases)`: call `encode(text)` once for each case of `cases` (as `read_cases`\n"
        "gives them), in order, and return one `(text, expected, got)` per case, where `got` is what `encode`\n"
        "returned. When `encode` raises an exception, `got` is the text `f\"{type(e).__name__}: {e}\"` (for\n"
        "example `\"ValueError: cannot encode byte 0xff at 1\"`) and the run goes on with the next case: one\n"
        "broken case must not hide the others.\n\n"
        "The check uses a small encoder that remembers how many texts it has seen (so each text must be encoded\n"
        "once, in order) and raises three kinds of exception, and the 15 vocabularies that have a pair of test\n"
        "files, each encoded as llama.cpp's test encodes (no BOS, special tokens not parsed), against the loop of\n"
        "`gguftok.conformance.cases.run_cases`."),
    template="",
    reference=_ref_run_cases,
    reference_name="the loop of gguftok.conformance.cases.run_cases",
    examples=_run_examples,
    generated=_run_generated,
    module="conformance",
)


# ------------------------------------------------------------------------------------- first_difference
def _diff_generated() -> list[Case]:
    r = rng(901)
    cases = []
    for _ in range(250):
        ref = [r.randrange(6) for _ in range(r.randint(0, 8))]
        got = list(ref)
        action = r.choice(["same", "change", "drop", "add", "shift"])
        if action == "change" and got:
            got[r.randrange(len(got))] = r.randrange(6)
        elif action == "drop" and got:
            del got[r.randrange(len(got))]
        elif action == "add":
            got.insert(r.randint(0, len(got)), r.randrange(6))
        elif action == "shift":
            got = got[1:] if r.random() < 0.5 else [128000, *got]
        cases.append(Case((got, ref)))
    return cases


first_difference = Exercise(
    id="09.first_difference",
    title="the first difference between two id lists",
    statement=(
        "Write `first_difference(got, expected)`: the first index at which the two id lists differ, or `None`\n"
        "when they are equal. When one list is the other with more ids at the end, the first difference is at\n"
        "the end of the shorter one (a missing token is a difference).\n\n"
        "The check uses the Llama 3 ids that forgot BOS (above), four small pairs, and 250 random pairs with one\n"
        "id changed, dropped, added or shifted, against `gguftok.viz.conformance_view.first_difference`."),
    template="",
    reference=_first_difference,
    reference_name="gguftok.viz.conformance_view.first_difference",
    examples=lambda: [Case(([9906, 1917, 11, 433, 596, 220, 2366, 21, 0],
                            [128000, 9906, 1917, 11, 433, 596, 220, 2366, 21, 0])),
                      Case(([1, 2, 3], [1, 2, 3])), Case(([1, 2], [1, 2, 5])), Case(([1, 2, 5], [1, 2])),
                      Case(([], []))],
    generated=_diff_generated,
    module="conformance",
)


# ------------------------------------------------------------------------------------------- word_stages
# The model inputs of the notebook's disagreements with transformers' conversion of the same file (both sides'
# words, spelled as the vocabulary spells its tokens), the other model's ids on llama.cpp's words, llama.cpp's
# ids; tests/test_lesson09_exercises.py recomputes each one from the two engines.
LESSON_WORDS = {
    ("deepseek-coder", "\tThe cat"): (["ĉThe", "Ġcat"], ["ĉ", "The", "Ġcat"], [25859, 5939], [25859, 5939]),
    ("deepseek-coder", "  42"): (["ĠĠ", "4", "2"], ["Ġ", "Ġ42"], [243, 19, 17], [243, 19, 17]),
    ("deepseek-coder", " ½"): (["Ġ", "Â½"], ["ĠÂ½"], [207, 19192], [207, 19192]),
    ("llama-spm", "  42"): (["▁▁▁42"], ["▁▁42"], [1678, 29946, 29906], [1678, 29946, 29906]),
    ("llama-bpe", "Cửa Việt"): (["Cá»Ńa", "ĠViá»ĩt"], ["Cá»Ńa", "ĠViá»ĩt"], [34, 91163, 11655, 26298, 83],
                                 [34, 91163, 101798]),
    ("llama-bpe", "Hello world"): (["Hello", "Ġworld"], ["Hello", "Ġworld"], [9906, 1917], [9906, 1917]),
    ("llama-spm", "Hello world"): (["▁Hello▁world"], ["▁Hello▁world"], [15043, 3186], [15043, 3186]),
}

_WORD_ALPHABET = "abĠĉ▁4½"


def _recut(r, text: str) -> list[str]:
    """``text`` cut into non-empty words at random places."""
    cuts = sorted(r.sample(range(1, len(text)), r.randint(0, min(3, len(text) - 1)))) if len(text) > 1 else []
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def _random_words(r) -> tuple[list[str], list[str], list[int] | None, list[int]]:
    """Two model inputs of one text and the ids: the same words, the same characters cut elsewhere, other
    characters (cut alike or elsewhere); the other model on llama.cpp's words agreeing, not, or not run."""
    ours = _recut(r, random_text(r, _WORD_ALPHABET, 1, 7))
    joined = "".join(ours)
    kind = r.choice(["same", "same", "recut", "chars", "chars+recut"])
    theirs = list(ours)
    if kind == "recut":
        theirs = _recut(r, joined)
    elif kind.startswith("chars"):
        k = r.randrange(len(joined))
        changed = joined[:k] + r.choice(["", "Ġ", "▁", "a", joined[k] * 2]) + joined[k + 1:] or "a"
        if changed == joined:
            changed += "Ġ"
        theirs = _recut(r, changed) if kind.endswith("recut") else [changed[:len(ours[0])], changed[len(ours[0]):]]
        theirs = [w for w in theirs if w]
    ids = [r.randrange(1000) for _ in range(r.randint(1, 5))]
    model = r.choice(["same", "same", "other", "none"])
    if model == "same":
        on_ours = list(ids)
    elif model == "none":
        on_ours = None
    else:
        on_ours = list(ids)
        action = r.choice(["change", "add", "drop"])
        if action == "change":
            on_ours[r.randrange(len(on_ours))] += 1
        elif action == "add":
            on_ours.insert(r.randint(0, len(on_ours)), r.randrange(1000))
        else:
            del on_ours[r.randrange(len(on_ours))]
    return ours, theirs, on_ours, ids


def _stages_examples() -> list[Case]:
    return [Case(args) for args in LESSON_WORDS.values()] + [
        Case((["ab", "Ġa"], ["a", "bĠ", "a"], None, [5, 6])),  # the other model not run: only the words say
        Case((["▁▁a"], ["▁a", "b"], [1, 2], [3])),  # other characters: the split cannot be compared
        Case((["a", "b"], ["ab"], [1], [2])),  # other words, and the other model on these words differs too
        Case(([], [], [], [])),
    ]


def _stages_generated() -> list[Case]:
    r = rng(905)
    return [Case(_random_words(r)) for _ in range(250)]


word_stages = Exercise(
    id="09.word_stages",
    title="prove the stage where two engines part",
    statement=(
        "Two engines give one text different ids. To prove which stage is to blame, hand llama.cpp's words to the\n"
        "other engine's model. Write `word_stages(ours_words, theirs_words, theirs_on_ours, ours_ids)`:\n"
        "`ours_words` and `theirs_words` are what each engine hands its model, spelled alike (`Ġ`, `▁`);\n"
        "`theirs_on_ours` is the other model's ids on `ours_words` (`None`: not run), `ours_ids` llama.cpp's.\n"
        "Return the stages that differ, in pipeline order: `\"normalizer\"` when the words, joined, differ;\n"
        "otherwise `\"pre-tokenizer\"` when the same characters are cut elsewhere; then `\"model\"` when\n"
        "`theirs_on_ours` is not `None` and differs from `ours_ids`.\n\n"
        "The check uses this notebook's disagreements, four small cases and 250 random ones, against\n"
        "`gguftok.disagree.word_stages`."),
    template="",
    reference=_word_stages,
    reference_name="gguftok.disagree.word_stages",
    examples=_stages_examples,
    generated=_stages_generated,
    module="conformance",
)

EXERCISES = [read_cases, run_cases, first_difference, word_stages]
