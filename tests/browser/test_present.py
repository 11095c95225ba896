"""Instructor mode as the class sees it: ``notebooks/instructor.ipynb`` served by voila (as ``make present`` serves
it), in headless Chromium, every control of the live demos used as a presenter would.

Each interaction types a word, a corpus or a text, changes a vocabulary and steps, and waits until the view shows
what gguftok's pure view renders for that input (computed here, never hard-coded). The page must show every
widget view of the notebook, a folded set of speaker notes for each, no error output, no "Error displaying
widget", and no output that is not a view (no debug line, no stray printed text).
"""

from __future__ import annotations

import json
import os

import pytest
from labdriver import CHROMIUM, CHROMIUM_ARGS, REPO, WAIT_MS, Voila, error_outputs, missing_browser, screenshot
from workbook import VIEWS, play_typed_word, split_two_vocabularies, step_sentencepiece, step_training

WHY_NOT = missing_browser()
if WHY_NOT and os.environ.get("CI"):
    pytest.fail(f"the browser layer must run in CI: {WHY_NOT}", pytrace=False)
pytestmark = [pytest.mark.skipif(WHY_NOT is not None, reason=f"browser layer skipped: {WHY_NOT}"),
              pytest.mark.timeout(420)]

NOTEBOOK = REPO / "notebooks" / "instructor.ipynb"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
# every widget view on the page, in page order: the outermost box of each widget output
VIEWS_JS = ".jp-OutputArea-output > .widget-vbox"
LIVE_DEMOS = {"queue-explorer": play_typed_word, "bpe-training": step_training,
              "spm-step-through": step_sentencepiece, "two-vocabulary-split": split_two_vocabularies}


def _widget_cells() -> int:
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    return sum(WIDGET_MIME in o.get("data", {}) for c in nb["cells"] if c["cell_type"] == "code"
               for o in c.get("outputs", []))


@pytest.fixture(scope="module")
def voila(tmp_path_factory):
    server = Voila(tmp_path_factory.mktemp("voila"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def page(voila):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.set_default_timeout(WAIT_MS)  # clicks and fills wait for their element as long as a view may take
        pg = context.new_page()
        pg.goto(voila.url, timeout=240_000)
        n = len(VIEWS["instructor.ipynb"])
        try:
            pg.wait_for_function(
                f"""() => {{ const v = [...document.querySelectorAll('{VIEWS_JS}')];
                            return v.length >= {n} && !document.body.textContent.includes('Loading widget'); }}""",
                timeout=300_000, polling=250)
        except Exception as e:
            raise AssertionError(f"voila never showed the {n} views: {voila.log_tail()}") from e
        yield pg
        browser.close()


def test_every_view_is_shown_with_its_speaker_notes_and_nothing_else(page):
    views = VIEWS["instructor.ipynb"]
    assert page.locator(VIEWS_JS).count() == len(views) == _widget_cells()
    assert not error_outputs(page), error_outputs(page)[:1]
    # the only outputs: the widget views, the one style block that enlarges them, and the grade's progress line,
    # empty once the grade is done (gguftok.viz.progress); no printed text
    kinds = page.evaluate("""() => [...document.querySelectorAll('.jp-OutputArea-output')].map(o =>
        o.querySelector('.jupyter-widgets') ? 'widget' : (o.querySelector('style')
                                                         || /^\\s*:root/.test(o.textContent)) ? 'style'
                                                       : o.textContent.trim() === '' ? 'empty'
                                                       : 'text:' + o.textContent.slice(0, 80))""")
    assert [k for k in kinds if k not in ("widget", "style", "empty")] == [], kinds
    assert kinds.count("empty") <= 1, kinds
    assert kinds.count("style") == 1
    text = page.evaluate("() => document.body.innerText")
    assert "frames for" not in text and "Traceback" not in text
    notes = page.locator("details > summary", has_text="Speaker notes")
    assert notes.count() == len(views)
    assert page.evaluate("() => [...document.querySelectorAll('details')].filter(d => d.open).length") == 0


@pytest.mark.parametrize("name", list(LIVE_DEMOS))
def test_a_live_demo(page, name):
    index = [v.name for v in VIEWS["instructor.ipynb"]].index(name)
    widget = page.locator(VIEWS_JS).nth(index)
    widget.scroll_into_view_if_needed()
    LIVE_DEMOS[name](page, widget)
    screenshot(widget, f"present-{name}")
    assert not error_outputs(page), error_outputs(page)[:1]
