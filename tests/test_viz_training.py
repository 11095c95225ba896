"""The BPE training step-through (gguftok.viz.training_view): one frame per step of train_bpe plus the start, each
naming the pair train_bpe chose, its count, the new token and the corpus as train_bpe rewrote it; safe HTML."""

from __future__ import annotations

import html
import re

import pytest
from viz_checks import assert_sanitizer_safe

from gguftok.models.bpe_train import corpus_words, pair_counts, train_bpe
from gguftok.viz.render import escape_visible
from gguftok.viz.training_view import CORPUS, training_frames, training_player


def _corpus_line(words) -> str:
    return " | ".join("".join(f"[{escape_visible(s)}]" for s in w) + (f" ×{n}" if n > 1 else "") for w, n in words)


@pytest.mark.parametrize("corpus", [CORPUS, "ab ab abc bc", "a<b> &c <b>a", "aaaa aaa ¡ñ ñ ñ"])
def test_each_frame_is_a_step_of_train_bpe(corpus):
    steps = train_bpe(corpus, 8)
    frames = training_frames(corpus, 8)
    assert len(frames) == len(steps) + 1
    start = frames[0].text.splitlines()
    assert start[0].startswith(f"start: {len(corpus.split())} words ({len(corpus_words(corpus))} distinct)")
    assert start[2] == "corpus: " + _corpus_line(corpus_words(corpus))
    first = pair_counts(corpus_words(corpus))
    assert start[1].startswith("pair counts: " + f"{first[0][0][0]}+{first[0][0][1]} {first[0][1]}")
    for k, (frame, step) in enumerate(zip(frames[1:], steps, strict=True), 1):
        head, counts, corpus_line, learnt = frame.text.splitlines()
        a, b = step.pair
        assert head.startswith(f"step {k} of {len(steps)}: the most frequent pair is {a} + {b} ({step.count} time")
        assert head.endswith(f"new token {step.token!r}")
        assert counts.startswith(f"pair counts: {a}+{b} {step.count} (chosen")
        marked = [(tuple(re.findall(r"\[(.*?)\]", part.split(" ×")[0])), part) for part in
                  corpus_line.removeprefix("corpus: ").split(" | ")]
        assert [w for w, _ in marked] == [w for w, _ in step.words]
        for (word, part), (_, _n) in zip(marked, step.words, strict=True):
            assert part.count("]*") == word.count(step.token)  # every new token, and only it, is marked
        assert learnt == "merges so far: " + " | ".join(f"{x} {y}" for x, y in (s.pair for s in steps[:k]))
        assert_sanitizer_safe(frame.html)
        assert html.escape(step.token) in frame.html


def test_a_tie_is_said_and_goes_to_the_first_pair_in_the_corpus():
    frames = training_frames("zy ab", 1)
    assert "z+y 1 (chosen; tie: the first in the corpus wins) | a+b 1" in frames[1].text


def test_token_text_is_escaped_and_an_empty_corpus_says_what_to_do():
    frames = training_frames("<b> <b>", 3)
    assert "<b>" not in "".join(f.html for f in frames) and "&lt;b&gt;" in frames[-1].html
    assert training_frames("   ", 3)[0].text.startswith("type a corpus")


def test_the_player_recomputes_its_frames_from_its_controls():
    w = pytest.importorskip("ipywidgets")
    box = training_player("low low lower", merges=2)
    controls, play_row, stack = box.children
    corpus, count = controls.children
    play, slider, speed = play_row.children
    assert isinstance(stack, w.Stack)
    assert [c.value for c in stack.children] == [f.html for f in training_frames("low low lower", 2)]
    assert play.max == slider.max == 2 and speed.value == play.interval
    corpus.value = "ab ab abc bc"
    count.value = 5
    _, row, stack = box.children
    play, slider, speed = row.children
    assert [c.value for c in stack.children] == [f.html for f in training_frames("ab ab abc bc", 5)]
    assert play.max == slider.max == len(train_bpe("ab ab abc bc", 5)) and play.value == 0
