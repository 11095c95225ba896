"""The workbook in a real browser: each notebook opened in JupyterLab, run with Run All Cells, every view used.

nbval proves that cells run and print what was committed; it cannot see a widget. Here each notebook runs in
JupyterLab inside headless Chromium, and the test asserts no error output and no "Error displaying widget";
that each interactive view is on the page; one real interaction per view, whose result must equal what the
pure view function of gguftok renders for the new input (computed here, never hard-coded); and, in the dark
theme, that every piece of token text keeps a readable contrast. Screenshots of each view, light and dark,
go to ``build/screenshots/`` for people to look at (they are not compared).

The student's package is the reference solutions (``solutions/mytok``), as if every exercise were written: each
lesson must pass every check it shows, and the views that put the student's answer beside gguftok's show a real
one. nbval checks the committed notebooks in their other state, nothing attempted; together they run each
notebook once in each state.

This module holds the views, their interactions and the fixtures; the ``test_workbook_*.py`` files each run one
group of notebooks in a JupyterLab of their own, so that pytest-xdist runs the groups side by side.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path

import pytest
from conftest import FAILED
from labdriver import (
    CHROMIUM,
    CHROMIUM_ARGS,
    DARK,
    LIGHT,
    REPO,
    WAIT_MS,
    Lab,
    close_notebooks,
    code_cell,
    contrast,
    error_outputs,
    expand_going_deeper,
    folded_answers,
    html_text,
    missing_browser,
    notebook_literal,
    open_notebook,
    output_texts,
    run_all,
    screenshot,
    set_theme,
    shown_html_text,
    wait_for_text,
    widget_of,
)
from solutions_loader import SOLUTIONS_PACKAGE, assert_every_check_passes, verdicts

from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.exercises import workspace

WHY_NOT = missing_browser()
if WHY_NOT and os.environ.get("CI"):
    pytest.fail(f"the browser layer must run in CI: {WHY_NOT}", pytrace=False)
pytestmark = [pytest.mark.skipif(WHY_NOT is not None, reason=f"browser layer skipped: {WHY_NOT}"),
              pytest.mark.timeout(420)]

NOTEBOOKS = sorted(p.name for p in (REPO / "notebooks").glob("*.ipynb"))
MIN_CONTRAST = 4.5  # WCAG AA for normal-size text


@cache
def tok(name: str) -> Tokenizer:
    return Tokenizer.from_gguf(vocab_dir() / f"ggml-vocab-{name}.gguf")


# ----------------------------------------------------------------------------------------- interactions
# Each takes the page and the view's widget, acts as a student would, and asserts what the view then shows.


def _input(widget, selector: str):
    box = widget.locator(selector)
    assert box.count() >= 1, f"no {selector} in the view"
    return box.first


def _type(page, widget, selector: str, text: str, enter: bool = False) -> None:
    box = _input(widget, selector)
    box.fill(text)
    if enter:
        box.press("Enter")


def browse_vocabulary(page, widget):
    from gguftok.viz.vocab import vocab_page

    _type(page, widget, "input[type=text]", "Ġtokeniz")
    wait_for_text(page, widget, html_text(page, vocab_page(tok("qwen2"), "Ġtokeniz", 0, 25).html))
    _type(page, widget, "input[type=text]", "Ġthe")
    _type(page, widget, "input[type=number]", "2", enter=True)
    second = vocab_page(tok("qwen2"), "Ġthe", 1, 25)
    wait_for_text(page, widget, html_text(page, second.html))
    first_id = second.text.split("\n")[2].split()[0]  # page 2 starts after 25 matches
    assert first_id.isdigit() and first_id in shown_html_text(widget)


def inspect_bytes(page, widget):
    from gguftok.viz.bytemap_view import text_bytes_view

    _type(page, widget, "input[type=text]", "Hé 👋\\n")
    view = text_bytes_view(tok("qwen2"), "Hé 👋\n")
    wait_for_text(page, widget, html_text(page, view.html))
    for i in tok("qwen2").encode("Hé 👋\n", add_special=False):
        assert str(i) in shown_html_text(widget)


@cache
def qwen2_merges():
    from gguftok.viz.merges_view import MergeIndex

    return MergeIndex.from_tokenizer(tok("qwen2"))


def look_up_rank(page, widget):
    from gguftok.viz.merges_view import rank_lookup

    _type(page, widget, "input[type=text]", "Ġ a")
    wait_for_text(page, widget, html_text(page, rank_lookup(qwen2_merges(), "Ġ a").html))
    assert str(qwen2_merges().ranks["Ġ a"]) in shown_html_text(widget)


def page_merges(page, widget):
    from gguftok.viz.merges_view import first_merges

    _type(page, widget, "input[type=number]", "24", enter=True)
    wait_for_text(page, widget, html_text(page, first_merges(qwen2_merges(), 24, 12).html))


def split_with_pretokenizer(page, widget):
    from gguftok.bytemap import text_to_bytes
    from gguftok.pretokenize import PreTokenizer, pre_tokenizer_config
    from gguftok.viz.pretokenize_view import explorer_view, pre_options
    from gguftok.viz.render import escape_visible

    text = "Hello  world 123456\tfoo's 你好"
    label = next(label for label, value in pre_options() if value == "gpt-2")
    widget.locator("select").first.select_option(label=label)
    _type(page, widget, "textarea", text)
    wait_for_text(page, widget, html_text(page, explorer_view("gpt-2", text).html))
    pieces = [text_to_bytes(p).decode() for p in PreTokenizer(pre_tokenizer_config("gpt-2")).split(text)]
    assert len(pieces) > 1 and "".join(pieces) == text
    shown = shown_html_text(widget)
    assert all(escape_visible(p) in shown for p in pieces)  # each piece as a chip, whitespace made visible


def split_yours_beside(page, widget):
    """The explorer with the student's splitter: after an edit, both llama.cpp's pieces and the student's row
    (here the reference solution's) are what the pure views render."""
    from gguftok.viz.pretokenize_view import explorer_view, yours_view

    text = "Hello  world 123456 l'été"
    _type(page, widget, "textarea", text)
    wait_for_text(page, widget, html_text(page, explorer_view("qwen2", text).html))
    want = html_text(page, yours_view("qwen2", text).html)
    page.wait_for_function(
        "([w, want]) => [...w.querySelectorAll('.widget-html-content')].some(e => e.textContent === want)",
        arg=[widget.element_handle(), want], timeout=WAIT_MS, polling=100)


def _frames_shown(page, widget, frames, index: int, action: Callable[[], None]):
    wait_for_text(page, widget, html_text(page, frames[0].html))
    action()
    wait_for_text(page, widget, html_text(page, frames[index].html))


def _slider_right(widget, times: int = 1):
    handle = widget.locator(".noUi-handle").first
    handle.focus()
    for _ in range(times):
        handle.press("ArrowRight")


def step_toy_queue(page, widget, notebook="05_merge_queue"):
    from gguftok.models.bpe import merge_ranks, merge_word
    from gguftok.viz.queue_view import queue_frames

    ranks = merge_ranks(notebook_literal(notebook, "TOY"))
    frames = queue_frames("lower", ranks)
    _frames_shown(page, widget, frames, 1, lambda: _slider_right(widget))
    steps = []
    merge_word("lower", ranks, steps)
    assert " ".join(steps[0].symbols) in shown_html_text(widget) or steps[0].pair in shown_html_text(widget)


def play_qwen2_queue(page, widget):
    from gguftok.viz.queue_view import trace_frames

    trace = tok("qwen2").trace(" tokenization")[0]
    frames = trace_frames(tok("qwen2"), trace)
    _frames_shown(page, widget, frames, 1, lambda: widget.locator(".widget-play button").first.click())
    widget.locator(".widget-play button").first.click()  # Play again pauses: the screenshot shows a merge


def play_yours_beside(page, widget):
    """The student's trace beside gguftok's (here the reference solution's), stepped once."""
    from gguftok.viz.queue_view import beside_frames

    frames = beside_frames("Ġtokenization", tok("qwen2").model.ranks)
    wait_for_text(page, widget, html_text(page, frames[0].html))
    if len(frames) > 1:
        _slider_right(widget)
        wait_for_text(page, widget, html_text(page, frames[1].html))


def _slider_to(widget, index: int, nth: int = 0):
    """Press the arrow keys on the ``nth`` slider until it is at ``index`` (from 0, where a new input leaves it)."""
    handle = widget.locator(".noUi-handle").nth(nth)
    handle.focus()
    for _ in range(index):
        handle.press("ArrowRight")


def play_typed_word(page, widget):
    """The merge queue of any word: the toy merges on "lower" as the page opens, then a typed word with Qwen2's
    merges, a step, another vocabulary; each time the frame is what word_frames renders for that input."""
    from gguftok.models.bpe import merge_ranks
    from gguftok.viz.queue_view import word_frames

    toy = merge_ranks(notebook_literal("instructor", "TOY"))
    word = widget.locator("input[type=text]").first.input_value()
    wait_for_text(page, widget, html_text(page, word_frames(toy, word)[0].html))
    _slider_to(widget, 1)
    wait_for_text(page, widget, html_text(page, word_frames(toy, word)[1].html))
    widget.locator("select").first.select_option("qwen2")
    typed = " detokenization"
    _type(page, widget, "input[type=text]", typed)
    frames = word_frames(tok("qwen2"), typed)
    wait_for_text(page, widget, html_text(page, frames[0].html))
    # one step before the next choice: a second would wait in the page behind the first (ipywidgets sends a
    # model's next change once the kernel has taken its last), reach the kernel after the choice, and move the
    # new word's player to that step, as it would for a student who chose that fast
    _slider_to(widget, 1)
    wait_for_text(page, widget, html_text(page, frames[1].html))
    widget.locator("select").first.select_option("gpt-2")
    wait_for_text(page, widget, html_text(page, word_frames(tok("gpt-2"), typed)[0].html))
    assert widget.locator(".widget-play button").count() >= 1 and widget.get_by_text("ms / step").count() == 1


def step_training(page, widget):
    """BPE training: the page's corpus as it opens, then a typed corpus, stepped twice: each time the frame is
    what training_frames renders for that corpus and number of merges."""
    from gguftok.models.bpe_train import train_bpe
    from gguftok.viz.training_view import training_frames

    corpus = widget.locator("textarea").first.input_value()
    merges = int(widget.locator("input[type=number]").first.input_value())
    wait_for_text(page, widget, html_text(page, training_frames(corpus, merges)[0].html))
    typed = "hug hug hug pug pun bun hugs hugs"
    _type(page, widget, "textarea", typed)
    frames = training_frames(typed, merges)
    wait_for_text(page, widget, html_text(page, frames[0].html))
    _slider_to(widget, 2)
    wait_for_text(page, widget, html_text(page, frames[2].html))
    step = train_bpe(typed, merges)[1]
    assert f"new token {step.token!r}" in frames[2].text and step.token in shown_html_text(widget)


def step_sentencepiece(page, widget):
    """SentencePiece by score: the page's text, then a typed one stepped to its end (the byte fallback shown),
    then another vocabulary; each time the frame is what spm_frames renders."""
    from gguftok.viz.spm_view import spm_frames

    text = widget.locator("input[type=text]").first.input_value()
    wait_for_text(page, widget, html_text(page, spm_frames(tok("llama-spm"), text)[0].html))
    typed = "naïve 🦙"
    _type(page, widget, "input[type=text]", typed)
    frames = spm_frames(tok("llama-spm"), typed)
    wait_for_text(page, widget, html_text(page, frames[0].html))
    _slider_to(widget, len(frames) - 1)
    wait_for_text(page, widget, html_text(page, frames[-1].html))
    assert "byte fallback" in shown_html_text(widget)
    widget.locator("select").first.select_option("phi-3")
    wait_for_text(page, widget, html_text(page, spm_frames(tok("phi-3"), typed)[0].html))


def split_two_vocabularies(page, widget):
    """Two vocabularies' pre-tokenizers on a typed text, then another second vocabulary: the view is what
    vocab_splits renders each time."""
    from gguftok.viz.pretokenize_view import vocab_splits

    selects = widget.locator("select")
    first, second = selects.nth(0).input_value(), selects.nth(1).input_value()
    text = "Call 555-0123 at 10:30, won't you?\n    indent()"
    _type(page, widget, "textarea", text)
    wait_for_text(page, widget, html_text(page, vocab_splits([(first, tok(first)), (second, tok(second))], text).html))
    selects.nth(1).select_option("llama-bpe")
    wait_for_text(page, widget, html_text(page, vocab_splits([(first, tok(first)), ("llama-bpe", tok("llama-bpe"))],
                                                             text).html))


def flip_parse_special(page, widget):
    from gguftok.viz.special_view import playground_view

    text = widget.locator("textarea").first.input_value()
    wait_for_text(page, widget, html_text(page, playground_view(tok("qwen2"), text, False).html))
    widget.locator("input[type=checkbox]").first.check()
    wait_for_text(page, widget, html_text(page, playground_view(tok("qwen2"), text, True).html))
    specials = [i for i in tok("qwen2").encode(text, parse_special=True) if i in tok("qwen2").vocab.special_cache]
    assert specials and all(str(i) in shown_html_text(widget) for i in specials)


def choose_bos_vocabulary(page, widget):
    from gguftok.viz.bos_view import vocab_bos_view

    text = widget.locator("input[type=text]").first.input_value()
    widget.locator("select").first.select_option("ggml-vocab-llama-spm.gguf")
    wait_for_text(page, widget, html_text(page, vocab_bos_view(tok("llama-spm"), text, "llama-spm").html))
    assert str(tok("llama-spm").vocab.special["bos"]) in shown_html_text(widget)


def play_stream(page, widget, notebook="08_streaming", name="PARAGRAPH"):
    from gguftok.viz.stream_view import stream_frames, token_pieces

    ids = tok("qwen2").encode(notebook_literal(notebook, name))
    frames = stream_frames(token_pieces(tok("qwen2"), ids), ids)
    _frames_shown(page, widget, frames, 1, lambda: widget.locator(".widget-play button").first.click())
    widget.locator(".widget-play button").first.click()  # pause on the frame reached


def edit_ids(page, widget):
    from gguftok.viz.conformance_view import conformance_view

    qwen2 = tok("qwen2")
    text = widget.locator("textarea").first.input_value()
    ids = qwen2.encode(text, add_special=qwen2.add_bos, parse_special=True)
    ids[2] += 1  # one wrong id: the marker must move to token 2
    _type(page, widget, "textarea >> nth=1", str(ids))
    wait_for_text(page, widget, html_text(page, conformance_view(qwen2, text, str(ids)).html))


@cache
def converted(name: str):
    """transformers' conversion of a reference vocabulary, as the disagreement widget makes it."""
    from gguftok.disagree import transformers_tokenizer

    return transformers_tokenizer(tok(name))


def explain_disagreement(page, widget):
    """As it starts, then a typed text, another vocabulary, and ids pasted: each time the view is what
    disagreement_view renders for gguftok.disagree.explain's answer, and the stage it names is that answer's."""
    from gguftok.disagree import explain
    from gguftok.viz.conformance_view import parse_ids
    from gguftok.viz.disagree_view import disagreement_view, playground_disagreement

    def shown(name: str, text: str, other, ids: str = ""):
        d = playground_disagreement(tok(name), text, other, ids, add_special=True)
        assert d == explain(tok(name), text, parse_ids(ids) if other is None else other, add_special=True)
        wait_for_text(page, widget, html_text(page, disagreement_view(d, tok(name)).html))
        assert f"{d.stage} · PARTS HERE" in shown_html_text(widget)
        return d

    text = "Tiếng Việt"  # the widget's first text, as notebook 09 opens it
    box = widget.locator("textarea").first
    # the box is filled once the widget's model has arrived
    page.wait_for_function("([b, want]) => b.value === want", arg=[box.element_handle(), text], timeout=WAIT_MS,
                           polling=100)
    d = shown("llama-bpe", text, converted("llama-bpe"))
    assert d.stages == ["model", "bos-eos"], (text, d.evidence)
    text = "\tThe cat sat"
    _type(page, widget, "textarea", text)
    assert shown("llama-bpe", text, converted("llama-bpe")).stage == "bos-eos"
    widget.locator("select").first.select_option("deepseek-coder")
    assert shown("deepseek-coder", text, converted("deepseek-coder")).stage == "pre-tokenizer"
    widget.locator("button", has_text="ids pasted").first.click()
    ids = str(tok("deepseek-coder").encode(text, add_special=False))  # llama.cpp's ids, called without BOS
    _type(page, widget, "textarea >> nth=1", ids)
    d = shown("deepseek-coder", text, None, ids)
    assert d.stage == "flags" and d.narrowed


def resize_cache(page, widget):
    from gguftok.viz.cache_view import SIZES, cache_state, plain_words, workbook_text

    words = plain_words(tok("qwen2"), workbook_text("markdown"))  # the snapshot of lessons 01-06 that 10 reads
    frames = [cache_state(words, s, 12) for s in SIZES]
    _frames_shown(page, widget, frames, 3, lambda: _slider_right(widget, 3))


def choose_family(page, widget):
    from gguftok.viz.families_view import family_view

    text = widget.locator("textarea").first.input_value()
    widget.locator("select").first.select_option("ggml-vocab-bert-bge.gguf")
    wait_for_text(page, widget, html_text(page, family_view(tok("bert-bge"), text, title="bert-bge").html))


def compare_side_by_side(page, widget):
    """Type a text, then tick one vocabulary and untick another: each time the view is what side_by_side renders
    for the ticked vocabularies, and the counts its table shows are len(tok.encode(text)) of each, in order."""
    from gguftok.viz.compare_view import side_by_side

    checkboxes = widget.locator(".widget-checkbox")
    names = [t.strip() for t in checkboxes.all_inner_texts()]
    assert len(names) == 19, names

    def box(name: str):
        return checkboxes.nth(names.index(name)).locator("input[type=checkbox]")

    def shown_counts(text: str) -> dict[str, int]:
        chosen = [n for n in names if box(n).is_checked()]
        wait_for_text(page, widget, html_text(page, side_by_side({n: tok(n) for n in chosen}, text).html))
        rows = widget.evaluate("""w => [...w.querySelectorAll('.widget-html-content table tr')].slice(1)
                                        .map(r => [r.cells[0].textContent, r.cells[2].textContent])""")
        assert rows == [[n, str(len(tok(n).encode(text, add_special=False)))] for n in chosen]
        return {n: int(c) for n, c in rows}

    first = shown_counts(widget.locator("textarea").first.input_value())
    text = "Tokens of 2026, 3.14159 and 日本語の文 cost more 😀👍🏽 here"
    _type(page, widget, "textarea", text)
    typed = shown_counts(text)
    assert typed != first and list(typed) == list(first)
    added = next(n for n in ("gpt-2", "falcon", "mpt", "aquila") if not box(n).is_checked())
    removed = next(n for n in names if box(n).is_checked())
    box(added).check()
    box(removed).uncheck()
    ticked = shown_counts(text)
    assert added in ticked and removed not in ticked


def grade_again(page, widget, regrade: bool = True):
    """Press the button (the package is read again and re-graded), then show llama-spm's first mismatch. The
    instructor's page has the same widget: there the choice of mismatch alone is used (``regrade=False``), as
    pressing the button runs the same code again as in the project notebook, for a whole grade."""
    from gguftok.exercises.capstone import assemble, grade_vocab
    from gguftok.viz.scoreboard_view import mismatch_view

    button = widget.locator("button", has_text="Grade my tokenizer again")
    assert button.count() == 1
    if regrade:
        button.click()
        page.wait_for_function("b => !b.disabled && b.textContent.includes('again')", arg=button.element_handle(),
                               timeout=300_000, polling=500)
    widget.locator("button", has_text="llama-spm").first.click()
    expected = mismatch_view(grade_vocab(assemble().GgufTokenizer, "llama-spm")).html
    wait_for_text(page, widget, html_text(page, expected), timeout_ms=120_000)


@dataclass(frozen=True)
class View:
    marker: str  # text of the cell that displays it
    name: str
    interact: Callable


SIDE_BY_SIDE = View("side_by_side_widget(", "side-by-side", compare_side_by_side)
VIEWS = {
    "00_start_here.ipynb": [SIDE_BY_SIDE],
    "01_gguf_metadata.ipynb": [View("vocab_browser(qwen2)", "vocab-browser", browse_vocabulary)],
    "02_byte_map.ipynb": [View("byte_inspector(qwen2)", "byte-inspector", inspect_bytes)],
    "03_merge_ranks.ipynb": [View("rank_lookup_widget(qwen2_merges", "rank-lookup", look_up_rank),
                             View("merge_list_widget(qwen2_merges", "merge-list", page_merges)],
    "04_pretokenizers.ipynb": [View("pretokenizer_explorer(LESSON_LINE", "pretokenizer-explorer",
                                    split_with_pretokenizer),
                               View("pretokenizer_explorer(YOURS_LINE", "yours-beside-explorer",
                                    split_yours_beside)],
    "05_merge_queue.ipynb": [View('queue_player(queue_frames("lower"', "toy-queue-player", step_toy_queue),
                             View("queue_player(tokenization)", "qwen2-queue-player", play_qwen2_queue),
                             View("queue_player(beside_frames(", "yours-beside-queue", play_yours_beside)],
    "06_special_tokens.ipynb": [View("special_playground(", "special-playground", flip_parse_special)],
    "07_bos_eos.ipynb": [View("bos_explorer(", "bos-explorer", choose_bos_vocabulary)],
    "08_streaming.ipynb": [View("stream_player(frames)", "stream-player", play_stream)],
    "09_conformance.ipynb": [View("conformance_playground(", "conformance-playground", edit_ids),
                             View("disagree_playground(", "disagree-playground", explain_disagreement)],
    "10_word_cache.ipynb": [View("cache_explorer(prose)", "cache-explorer", resize_cache)],
    "11_sentencepiece.ipynb": [View("families_playground(", "families-playground", choose_family)],
    "12_project.ipynb": [View("scoreboard_widget(", "scoreboard", grade_again)],
    # the instructor's page: the same views in large type
    "instructor.ipynb": [
        SIDE_BY_SIDE,
        View("vocab_browser(qwen2)", "vocab-browser", browse_vocabulary),
        View("byte_inspector(qwen2)", "byte-inspector", inspect_bytes),
        View("rank_lookup_widget(qwen2_merges", "rank-lookup", look_up_rank),
        View("merge_list_widget(qwen2_merges", "merge-list", page_merges),
        View("training_player(CORPUS", "bpe-training", step_training),
        View("pretokenizer_explorer(LESSON_LINE", "pretokenizer-explorer", split_with_pretokenizer),
        View("vocab_split_explorer(LESSON_LINE", "two-vocabulary-split", split_two_vocabularies),
        View("queue_explorer(", "queue-explorer", play_typed_word),
        View("special_playground(", "special-playground", flip_parse_special),
        View("bos_explorer(", "bos-explorer", choose_bos_vocabulary),
        View("stream_player(streamed)", "stream-player", partial(play_stream, notebook="instructor",
                                                                 name="STREAM_TEXT")),
        View("conformance_playground(", "conformance-playground", edit_ids),
        View("cache_explorer(prose)", "cache-explorer", resize_cache),
        View("families_playground(", "families-playground", choose_family),
        View("spm_player(", "spm-step-through", step_sentencepiece),
        View("scoreboard_widget(", "scoreboard", partial(grade_again, regrade=False)),
    ],
}


# The notebooks of each test file, about two minutes of a quiet machine each (the project and the instructor's
# page are the longest). Every notebook is in exactly one group (checked in test_workbook_lessons.py).
GROUPS = {
    "lessons": [nb for nb in NOTEBOOKS if nb[:2].isdigit() and int(nb[:2]) <= 5],
    "later lessons": [nb for nb in NOTEBOOKS if nb[:2].isdigit() and 6 <= int(nb[:2]) <= 11],
    "project": [nb for nb in NOTEBOOKS if not nb[:2].isdigit() or int(nb[:2]) >= 12],
}


# ----------------------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """The server, and this process, with the solutions as the student's package (its kernels inherit it)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(workspace.ENV, str(SOLUTIONS_PACKAGE))
        server = Lab(tmp_path_factory.mktemp("lab"))
        yield server
        server.stop()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def context(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(WAIT_MS)  # clicks and fills wait for their element as long as a view may take
    yield context
    context.close()


@pytest.fixture
def page(context, lab, request):
    """The page the notebooks open in, one after another in the same JupyterLab (see open_notebook). After a
    test that failed, the next gets a new page: nothing a failure left (a dialog, a half-run notebook) carries over."""
    pg = context.pages[0] if context.pages else context.new_page()
    yield pg
    if request.node.stash.get(FAILED, False):
        pg.close()
    else:
        close_notebooks(pg)
    lab.shutdown_kernels()


def _readable(widget, theme: str) -> None:
    report = contrast(widget)
    assert report, "no text found in the view"
    low = [r for r in report if r["ratio"] < MIN_CONTRAST]
    assert not low, (f"{len(low)} of {len(report)} texts below contrast {MIN_CONTRAST} in {theme}, e.g. "
                     + "; ".join(f"{r['text']!r} {r['color']} on {r['background']} ({r['ratio']:.2f})"
                                 for r in low[:5]))


def check_notebook(page, lab, notebook: str) -> None:
    """Open ``notebook`` in the lab, Run All, and check its outputs, its self-checks and every view in it."""
    lesson = notebook[:2].isdigit()  # a numbered lesson, not the instructor's page
    open_notebook(page, lab, notebook)
    collapsed = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-showHiddenCellsButton").count()
    assert collapsed == (1 if lesson else 0), f"{notebook} opens with {collapsed} collapsed parts"
    run_all(page)  # (running a hidden cell shows it: Run All opens Going deeper)
    errors = error_outputs(page)
    assert not errors, f"{notebook}: error output in JupyterLab: {errors[0][:1500]}"
    expand_going_deeper(page)  # every view, figure and theme check sees the whole notebook
    answers = folded_answers(page)
    raw = [a.strip()[:200] for a in answers if "`" in a or "*" in a]
    assert not raw, f"{notebook}: folded answers show raw markdown: {raw}"
    if lesson:
        assert len(answers) >= 3, f"{notebook}: {len(answers)} folded self-check answers rendered"
        assert_every_check_passes(notebook, verdicts(output_texts(page)))
    stem = Path(notebook).stem
    views = VIEWS.get(notebook, [])
    widgets = []
    for view in views:
        widget = widget_of(code_cell(page, view.marker))
        assert widget.count() == 1, f"{view.name}: no interactive view on the page"
        assert "Loading widget" not in widget.inner_text()
        view.interact(page, widget)
        screenshot(widget, f"{stem}-{view.name}-light")
        _readable(widget, LIGHT)
        widgets.append((view, widget))
    for i, figure in enumerate(page.locator(".jp-OutputArea-output img").all()):
        screenshot(figure, f"{stem}-figure{i + 1}")
    if widgets:
        set_theme(page, DARK)
        for view, widget in widgets:
            screenshot(widget, f"{stem}-{view.name}-dark")
            _readable(widget, DARK)
        set_theme(page, LIGHT)  # the theme is a saved setting: the next notebook starts light
    assert not error_outputs(page)
