"""Progress for long checks: nothing before the delay, then a line that moves, and nothing left at the end."""

from __future__ import annotations

import time

import pytest

from gguftok.exercises import exercise
from gguftok.viz import progress as progress_module
from gguftok.viz.progress import Progress


class Recorder:
    """Stands for the notebook's display: every (html, text) it was updated with, in order."""

    def __init__(self):
        self.shown: list[tuple[str, str]] = []

    def __call__(self, markup: str, text: str) -> None:
        self.shown.append((markup, text))


@pytest.fixture
def display(monkeypatch):
    recorder = Recorder()
    monkeypatch.setattr(progress_module, "_kernel_display", lambda: recorder)
    monkeypatch.setattr(progress_module, "EVERY", 0.02)
    return recorder


def test_the_line_says_what_how_far_and_for_how_long():
    p = Progress("grading", total=13, unit="vocabulary").at(2, "qwen2")
    assert p.line(1.0) == "grading: vocabulary 2 of 13 (qwen2)"
    assert p.line(7.6) == "grading: vocabulary 2 of 13 (qwen2) · 8 s"
    assert Progress("checking 01.read_metadata").at(0, "preparing the cases").line(3) == \
        "checking 01.read_metadata: preparing the cases · 3 s"


def test_a_quick_job_shows_nothing_but_the_empty_display_it_ends_with(display):
    with Progress("checking", total=3, delay=5.0) as p:
        p.at(3)
    assert display.shown == [("", "")]


def test_a_long_job_shows_its_progress_then_clears_it(display):
    with Progress("checking", total=4, unit="case", delay=0.05) as p:
        for k in range(4):
            p.at(k + 1, "slow")
            time.sleep(0.06)
    *lines, last = display.shown
    assert last == ("", ""), "the display must end empty: a cell keeps the same output however long it ran"
    assert lines, "a job past the delay must show its progress"
    texts = [text for _, text in lines]
    assert all(t.startswith("checking: case ") and " of 4 (slow) · " in t for t in texts), texts
    assert texts[-1].startswith("checking: case 4 of 4"), texts
    assert all("<script" not in m and "width:" in m for m, _ in lines)


def test_a_check_past_the_delay_shows_its_cases_moving(display, monkeypatch):
    from gguftok.exercises import _core

    class Slow(Progress):
        def __init__(self, what, total=None, *, unit="", delay=0.05, clock=time.monotonic):
            super().__init__(what, total, unit=unit, delay=delay, clock=clock)

    monkeypatch.setattr(_core, "Progress", Slow)
    ex = exercise("03.split_merge")
    reference = ex.reference

    def slow(*args):
        time.sleep(0.002)
        return reference(*args)

    assert ex.check(slow).ok
    texts = [text for _, text in display.shown[:-1]]
    assert texts and all(t.startswith("checking 03.split_merge: ") for t in texts), texts
    assert any(" of " in t for t in texts)
    assert display.shown[-1] == ("", "")


def test_outside_a_notebook_nothing_is_written_when_stderr_is_not_a_terminal(capsys):
    with Progress("checking", total=2, delay=0.0) as p:
        p.at(1)
        time.sleep(0.05)
    assert capsys.readouterr().err == ""
