"""The workbook reads as a course: each lesson has goals, a main path, a recap, self-check questions and then a
"Going deeper" part (collapsed in JupyterLab); it stands alone (no pointer to a text the student never sees, no
talk of our tests or tooling); its main path shows no walls of output; and every number its prose states about
the data is printed by one of its cells or computed by ``tests/prose/numbers_NN.py``.
"""

from __future__ import annotations

import html
import importlib.util
import json
import re
from pathlib import Path

import pytest
from conftest import REPO

LESSONS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
PROSE = REPO / "tests" / "prose"

GOALS = re.compile(r"after this notebook,? you (can|will)", re.I)
RECAP, SELF_CHECK, DEEPER = "## Recap", "## Self-check", "## Going deeper"
MAIN_PATH_WORDS = 2_200  # markdown words before "Going deeper": about 30 minutes of reading and exercises
MAX_OUTPUT_LINES = 20  # lines of text one main-path output may show
MAX_TABLE_ROWS = 21  # rows of one table outside a <details> toggle (a header and 20 rows)

# A pointer outside the workbook, or a note for maintainers, in text a student reads.
OUTSIDE = [
    (re.compile(r"\bthe lesson\b(?!s? of this workbook)", re.I), "'the lesson' (a text the student never sees)"),
    (re.compile(r"\bJava\b"), "Java (the workbook is in Python and stands alone)"),
    (re.compile(r"\b(?:nbval|pytest|make test|test suite|jupytext)\b|\.ci/|(?<!llama\.cpp's `)\btests/(?!test-)", re.I),
     "our tests or tooling"),
    (re.compile(r"\bwhat the tests? checks?\b|\bthe tests? (?:check|compare|assert)", re.I), "our tests"),
]
# A number stated about the data: three or more digits, thousands separators or a decimal point.
NUMBER = re.compile(r"(?<![\w.+#/\\-])(?:\d{1,3}(?:,\d{3})+|\d{3,}|\d+\.\d+)(?:\.\d+)?(?![\w-])")
NOT_A_CLAIM = re.compile(r"U\+[0-9A-F]{4,6}|0x[0-9a-fA-F]+|https?://\S+|\]\([^)]*\)|[\w-]*\d[\w-]*\.(?:gguf|py|cpp|h)\b|"
                         r"\b(?:v|version |llama-cpp-python |python |jupyterlab )\d[\d.]*", re.I)


# A count or a rank the prose names, however small: "11 alternatives", "eleven keys", "the third alternative",
# "rank 14". Such a number is too small for NUMBER, and a bare "14" printed anywhere would not vouch for it:
# a cell must print it on a line that names the same thing, or tests/prose compute it under the phrase itself.
_WORDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
          "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
_ORDINALS = ["second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
             "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth",
             "nineteenth", "twentieth"]
QUALIFIED = re.compile(
    r"(?i)\b(?:(?P<n>\d+(?:,\d{3})*|" + "|".join(_WORDS) + r")\s+(?:[\w`'-]+\s+){0,2}?(?P<noun>alternative|key)s?\b"
    r"|(?P<ordinal>" + "|".join(_ORDINALS) + r")\s+(?P<onoun>alternative)\b"
    r"|(?P<rnoun>rank)s?\s+(?P<r>\d+(?:,\d{3})*)\b)")


def qualified_claims(markdown: str) -> list[tuple[str, str, str]]:
    """``(phrase, number as digits, noun)`` for each count or rank ``markdown`` names outside code blocks."""
    markdown = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    markdown = re.sub(r"<(?:[^<>\"']|\"[^\"]*\"|'[^']*')*>", " ", markdown)
    out = []
    for m in QUALIFIED.finditer(markdown):
        if m.group("n"):
            n, noun = m.group("n").lower(), m.group("noun").lower()
            number = str(_WORDS.index(n) + 2) if n in _WORDS else n.replace(",", "")
        elif m.group("ordinal"):
            number, noun = str(_ORDINALS.index(m.group("ordinal").lower()) + 2), "alternative"
        else:
            number, noun = m.group("r").replace(",", ""), "rank"
        out.append((" ".join(m.group(0).lower().split()), number, noun))
    return out


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def text(cell: dict) -> str:
    return "".join(cell["source"])


def deeper_at(cs: list[dict]) -> int:
    return next((i for i, c in enumerate(cs) if c["cell_type"] == "markdown" and text(c).startswith(DEEPER)),
                len(cs))


def headings(cs: list[dict]) -> list[tuple[int, str]]:
    return [(i, line) for i, c in enumerate(cs) if c["cell_type"] == "markdown"
            for line in text(c).splitlines() if line.startswith("#")]


def outputs_text(cell: dict) -> str:
    out = []
    for o in cell.get("outputs", []):
        out.append("".join(o.get("text", "")))
        for kind in ("text/plain", "text/html", "text/markdown"):
            out.append("".join(o.get("data", {}).get(kind, "")))
    return "\n".join(out)


def prose_module(path: Path):
    file = PROSE / f"numbers_{path.name[:2]}.py"
    if not file.exists():
        return None
    spec = importlib.util.spec_from_file_location(f"prose_lesson{path.name[:2]}", file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def claims(markdown: str) -> list[str]:
    """The numbers a markdown text states (outside code blocks, hex, code points, links, versions, file names)."""
    markdown = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    markdown = re.sub(r"<(?:[^<>\"']|\"[^\"]*\"|'[^']*')*>", " ", markdown)  # HTML tags and their attributes
    markdown = NOT_A_CLAIM.sub(" ", markdown)
    return NUMBER.findall(markdown)


def normal(number: str) -> str:
    return number.replace(",", "")


def printed_text(cs: list[dict]) -> str:
    """What the code cells print, as a reader sees it: HTML tags gone (a row, a line break or a block ends a
    line), entities unescaped."""
    out = "\n".join(outputs_text(c) for c in cs if c["cell_type"] == "code")
    out = re.sub(r"<(?:tr|br|div|p|li)\b[^>]*>", "\n", out)
    return html.unescape(re.sub(r"<[^>]*>", " ", out))


def printed_numbers(cs: list[dict]) -> set[str]:
    out = printed_text(cs)
    return {normal(n) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", out)} | {
        normal(n).rstrip("0").rstrip(".") for n in re.findall(r"\d[\d,]*\.\d+", out)}


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_each_lesson_has_goals_a_recap_self_check_and_then_going_deeper(path):
    cs = cells(path)
    assert GOALS.search(text(cs[0])), "the first cell states the goals: 'After this notebook you can ...'"
    hs = [h for _, h in headings(cs)]
    for h in (RECAP, SELF_CHECK, DEEPER):
        assert any(x.startswith(h) for x in hs), f"no '{h}' heading"
    order = [next(i for i, (_, x) in enumerate(headings(cs)) if x.startswith(h)) for h in (RECAP, SELF_CHECK, DEEPER)]
    assert order == sorted(order), "recap, then self-check, then going deeper"
    d = deeper_at(cs)
    assert cs[d]["metadata"].get("jp-MarkdownHeadingCollapsed") is True, "Going deeper starts collapsed"
    # collapsing hides the cells after the heading's cell: the heading cell holds at most a short introduction
    assert len(text(cs[d]).split()) <= 60 and d + 1 < len(cs), "Going deeper's content goes in the cells after it"
    inside = [x for i, x in headings(cs) if i > d]
    assert all(x.startswith("###") for x in inside), f"Going deeper's own headings are ### or deeper: {inside}"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_each_self_check_has_three_to_five_questions_with_folded_answers(path):
    cs = cells(path)
    start = next(i for i, c in enumerate(cs) if c["cell_type"] == "markdown" and text(c).startswith(SELF_CHECK))
    body = "\n".join(text(c) for c in cs[start:deeper_at(cs)] if c["cell_type"] == "markdown")
    answers = re.findall(r"<details>\s*<summary>", body)
    assert 3 <= len(answers) <= 5, f"{len(answers)} folded answers"
    assert body.count("</details>") == len(answers)


@pytest.mark.parametrize("path", sorted((REPO / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_student_text_stands_alone(path):
    for i, c in enumerate(cells(path)):
        if c["cell_type"] != "markdown":
            continue
        for pattern, what in OUTSIDE:
            m = pattern.search(text(c))
            assert m is None, f"cell {i}: {what}: ...{text(c)[max(m.start() - 60, 0):m.end() + 60]}..."


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_the_main_path_is_about_thirty_minutes_and_shows_no_wall_of_output(path):
    cs = cells(path)
    main = cs[:deeper_at(cs)]
    words = sum(len(text(c).split()) for c in main if c["cell_type"] == "markdown")
    assert words <= MAIN_PATH_WORDS, f"the main path has {words:,} words of markdown"
    for i, c in enumerate(main):
        if c["cell_type"] != "code" or "nbval-ignore-output" in c["metadata"].get("tags", []):
            continue
        for o in c.get("outputs", []):
            plain = "".join(o.get("text", "")) or ("".join(o.get("data", {}).get("text/plain", ""))
                                                   if "text/html" not in o.get("data", {}) else "")
            assert plain.count("\n") <= MAX_OUTPUT_LINES, f"cell {i} prints {plain.count(chr(10))} lines"
            page = re.sub(r"<details>.*?</details>", "", "".join(o.get("data", {}).get("text/html", "")), flags=re.S)
            for table in re.findall(r"<table.*?</table>", page, flags=re.S):
                rows = table.count("<tr")
                assert rows <= MAX_TABLE_ROWS, f"cell {i} shows a table of {rows} rows outside a toggle"


def unvouched(path: Path, found, vouched, agrees) -> list[tuple[int, str]]:
    """``(cell, key)`` for each claim of the markdown (``found(text)`` gives ``(key, claim)`` pairs) that no
    printed output vouches for (``vouched(claim)``), that tests/prose does not compute (``COMPUTED[key]``, its
    value checked by ``agrees(claim, value)``) and does not call no data (``NOT_DATA[key]``)."""
    module = prose_module(path)
    computed = getattr(module, "COMPUTED", {})
    not_data = getattr(module, "NOT_DATA", {})
    out = []
    for i, c in enumerate(cells(path)):
        if c["cell_type"] != "markdown":
            continue
        for key, claim in found(text(c)):
            if key in not_data or vouched(claim):
                continue
            if key in computed:
                value = computed[key]()
                assert agrees(claim, value), f"cell {i} says {key!r}; computed {value}"
                continue
            out.append((i, key))
    return out


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_every_number_in_the_prose_is_printed_or_computed(path):
    printed = printed_numbers(cells(path))
    unchecked = unvouched(path, lambda md: [(n, n) for n in claims(md)], lambda n: normal(n) in printed,
                          lambda n, value: normal(str(value)) == normal(n) or f"{value:,}" == n)
    assert not unchecked, (f"numbers in the prose that no cell prints: {unchecked}; print them, or compute them "
                           f"in tests/prose/numbers_{path.name[:2]}.py (COMPUTED), or say why they are not data "
                           "(NOT_DATA)")


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_every_count_of_alternatives_keys_and_every_rank_is_printed_or_computed(path):
    """"Llama 3's pattern stops at six" passed although the next cell printed 11: a small count is checked only
    against a printed line that names the same thing (or a computation under its phrase)."""
    lines = printed_text(cells(path)).lower().splitlines()

    def on_a_line(claim: tuple[str, str, str]) -> bool:
        _, number, noun = claim
        said = re.compile(rf"(?<![\d,.]){number}(?![\d,]|\.\d)")
        return any(noun in line and said.search(line.replace(",", "")) for line in lines)

    unchecked = unvouched(path, lambda md: [(q[0], q) for q in qualified_claims(md)], on_a_line,
                          lambda claim, value: str(value) == claim[1])
    assert not unchecked, (f"counts and ranks in the prose that no cell prints beside their noun: {unchecked}; print "
                           f"them, or compute them in tests/prose/numbers_{path.name[:2]}.py (COMPUTED, under the "
                           "phrase), or say why they are not data (NOT_DATA)")


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_the_prose_checks_are_all_used(path):
    """An entry of COMPUTED or NOT_DATA that the prose no longer states is stale."""
    module = prose_module(path)
    if module is None:
        return
    stated = {n for c in cells(path) if c["cell_type"] == "markdown" for n in claims(text(c))}
    stated |= {q[0] for c in cells(path) if c["cell_type"] == "markdown" for q in qualified_claims(text(c))}
    stale = (set(getattr(module, "COMPUTED", {})) | set(getattr(module, "NOT_DATA", {}))) - stated
    assert not stale, f"tests/prose/numbers_{path.name[:2]}.py lists numbers the prose no longer states: {stale}"


PIECE = re.compile(r"\bpieces?\b", re.I)
PIECE_DEFINED_IN = 8  # notebook 08: "Each id has a **piece**, its bytes"


def sentences(markdown: str) -> list[str]:
    markdown = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    return [s for s in re.split(r"(?<=[.!?:;])\s+|\n\s*\n|\n(?=\s*\|)", markdown) if s.strip()]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_piece_has_one_meaning_a_tokens_bytes(path):
    """"piece" is what llama.cpp's ``token_to_piece`` gives, a token's bytes, defined in notebook 08; what a
    pre-tokenizer cuts is a *word*. Before 08 the word appears only beside ``token_to_piece``, and no lesson
    calls a pre-tokenizer's output a piece."""
    lesson = int(path.name[:2])
    wrong = []
    for c in cells(path):
        if c["cell_type"] != "markdown":
            continue
        for sentence in sentences(text(c)):
            plain = sentence.replace("token_to_piece", "").replace("SentencePiece", "")
            if not PIECE.search(plain):
                continue
            if re.search(r"pre-?tokeniz|\bregex", plain, re.I) or (lesson < PIECE_DEFINED_IN
                                                                      and "token_to_piece" not in sentence):
                wrong.append(" ".join(sentence.split())[:160])
    assert not wrong, f"'piece' used for something other than a token's bytes: {wrong}"
    if lesson == PIECE_DEFINED_IN:
        assert re.search(r"\*\*piece\*\*, its bytes", "".join(text(c) for c in cells(path))), "08 defines it"


WIDGET = re.compile(r"^\s*(\w+_(?:browser|inspector|widget|explorer|player|playground))\(", re.M)


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_each_widget_is_followed_by_a_static_twin_that_nbval_checks(path):
    """A reader without a kernel (GitHub, nbviewer) sees the view: the next code cell after each widget cell
    shows the view it wraps as HTML, and its output is compared on every run."""
    cs = cells(path)
    for i, c in enumerate(cs):
        if c["cell_type"] != "code" or not WIDGET.search(text(c)):
            continue
        assert "nbval-ignore-output" in c["metadata"].get("tags", []), f"cell {i}: a widget's output is not compared"
        twin = next(x for x in cs[i + 1:] if x["cell_type"] == "code")
        assert "nbval-ignore-output" not in twin["metadata"].get("tags", []), f"cell {i}: its twin is not compared"
        assert any("text/html" in o.get("data", {}) for o in twin.get("outputs", [])), f"cell {i}: no static twin"
