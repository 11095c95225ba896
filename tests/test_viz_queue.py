"""The merge-queue frames: safe HTML, escaped text, stale entries labelled, one frame per pop plus the start,
and the last frame agreeing with merge_word."""

from __future__ import annotations

import heapq
import random
import re

import pytest
from viz_checks import assert_sanitizer_safe

from gguftok import Tokenizer
from gguftok.models.bpe import MergeStep, merge_ranks, merge_word
from gguftok.viz.queue_view import (
    frames_text,
    initial_queue,
    merge_log,
    naive_lookups,
    queue_cost,
    queue_frame,
    queue_frames,
    queue_player,
    split_pair,
    stale_counts,
    trace_frames,
    trace_table,
    whole_word_view,
)

TOY = merge_ranks(["e r", "l o", "lo w", "low er", "e s", "es t", "low est", "n e", "w er"])



def symbols_line(frame) -> list[str]:
    line = next(x for x in frame.text.splitlines() if x.startswith("symbols: "))
    return re.findall(r"\[(.*?)\]\*?(?= |$)", line.removeprefix("symbols: "))


@pytest.fixture(scope="module")
def qwen2(vocab_path):
    return Tokenizer.from_gguf(vocab_path("qwen2"))


@pytest.fixture(scope="module")
def llama3(vocab_path):
    return Tokenizer.from_gguf(vocab_path("llama-bpe"))


def test_the_lessons_toy_table_gives_the_lessons_log():
    assert merge_log(["lower", "lowest", "newer"], TOY).text == """\
lower: queue starts with 2 candidate pairs
  merge rank 0 -> [l][o][w][er]
  merge rank 1 -> [lo][w][er]
  merge rank 2 -> [low][er]
  merge rank 3 -> [lower]
  skip stale rank 8 "wer"
lowest: queue starts with 2 candidate pairs
  merge rank 1 -> [lo][w][e][s][t]
  merge rank 2 -> [low][e][s][t]
  merge rank 4 -> [low][es][t]
  merge rank 5 -> [low][est]
  merge rank 6 -> [lowest]
newer: queue starts with 2 candidate pairs
  merge rank 0 -> [n][e][w][er]
  merge rank 7 -> [ne][w][er]
  merge rank 8 -> [ne][wer]"""


@pytest.mark.parametrize("word", ["lower", "lowest", "newer", "l", "", "xyz"])
def test_one_frame_per_pop_plus_the_start(word):
    steps: list[MergeStep] = []
    result = merge_word(word, TOY, steps)
    frames = queue_frames(word, TOY)
    assert len(frames) == len(steps) + 1
    assert symbols_line(frames[-1]) == result
    assert symbols_line(frames[0]) == list(word)
    assert queue_frame(word, TOY, -1) == frames[-1]
    for f in frames:
        assert_sanitizer_safe(f.html)


def test_stale_entries_are_struck_through_and_labelled():
    frames = queue_frames("lower", TOY)
    # after "lo w" merges, the queued "w er" describes a pair that is gone
    assert frames[3].text.endswith("r8 w+er (stale)") and frames[2].text.endswith("r8 w+er")
    stale_chip = re.search(r'<span title="rank 8: wer" style="([^"]*)">', frames[3].html)
    assert "line-through" in stale_chip.group(1) and ">stale</span>" in frames[3].html
    last = frames[-1]
    assert "skipped (stale: its left side was merged into its neighbour)" in last.text
    assert ">skipped</span>" in last.html and "line-through" in last.html


def test_text_is_escaped_and_whitespace_visible():
    ranks = merge_ranks(["< s", "<s >", "& \t"])
    frames = queue_frames("<s>&\t", ranks)
    for f in frames:
        assert_sanitizer_safe(f.html)
        assert "<s>" not in f.html and "<s" not in f.html.replace("<span", "").replace("<sup", "")
    assert "&lt;s&gt;" in frames[-1].html and "&amp;→" in frames[-1].html
    assert symbols_line(frames[-1]) == ["<s>", "&→"]
    assert "\t" not in frames[-1].text


def _reference_stale(word: str, ranks: dict[str, int]) -> list[int]:
    """An independent queue that keeps positions: how many entries are stale after each pop."""
    syms = list(word)
    heap = [(ranks[syms[i] + " " + syms[i + 1]], i, i + 1, syms[i] + syms[i + 1]) for i in range(len(syms) - 1)
            if syms[i] + " " + syms[i + 1] in ranks]
    heapq.heapify(heap)

    def is_stale(e):
        return not syms[e[1]] or not syms[e[2]] or syms[e[1]] + syms[e[2]] != e[3]

    out = []
    while heap:
        e = heapq.heappop(heap)
        if not is_stale(e):
            left, right = e[1], e[2]
            syms[left], syms[right] = e[3], ""
            live = [i for i, s in enumerate(syms) if s]
            k = live.index(left)
            for a, b in ((live[k - 1] if k else None, left), (left, live[k + 1] if k + 1 < len(live) else None)):
                if a is not None and b is not None and syms[a] + " " + syms[b] in ranks:
                    heapq.heappush(heap, (ranks[syms[a] + " " + syms[b]], a, b, syms[a] + syms[b]))
        out.append(sum(map(is_stale, heap)))
    return out


def test_stale_counts_agree_with_a_queue_that_keeps_positions():
    rng = random.Random(7)
    for _ in range(300):
        alphabet = "ab" if rng.random() < 0.5 else "abc"
        word = "".join(rng.choice(alphabet) for _ in range(rng.randint(2, 14)))
        pieces = sorted({"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3))) for _ in range(12)})
        merges = [f"{a} {b}" for a in pieces for b in pieces if rng.random() < 0.3]
        rng.shuffle(merges)
        ranks = merge_ranks(merges)
        steps: list[MergeStep] = []
        merge_word(word, ranks, steps)
        expected = _reference_stale(word, ranks)
        assert len(expected) == len(steps)
        got = [sum(stale_counts(s.symbols, s.queue, ranks).values()) for s in steps]
        assert got == expected, (word, merges)
        frames = queue_frames(word, ranks, steps)
        assert symbols_line(frames[-1]) == merge_word(word, ranks)
        for k, frame in enumerate(frames[:-1]):  # a lone stale head is the next pop, and it is skipped
            head = frame.text.splitlines()[-1].removeprefix("queue: ").split(" | ")[0]
            if "×" not in head:
                assert head.endswith("(stale)") == (not steps[k].merged)


def test_helpers():
    assert initial_queue("lower", TOY) == [(0, "er"), (1, "lo")]
    assert split_pair("lowest", 6, TOY) == ("low", "est")
    assert naive_lookups(5, 4) == 4 + 3 + 2 + 1 + 0 and naive_lookups(1, 0) == 0
    view = frames_text(queue_frames("newer", TOY), [0, -1])
    assert view.text.count("symbols: ") == 2 and view.text.startswith("start: 5 symbols, 2 candidate pairs")


def test_real_words_and_the_whole_word_rule(qwen2, llama3):
    text = " Insecta tokenization"
    for tok in (qwen2, llama3):
        for wt in tok.trace(text):
            frames = trace_frames(tok, wt)
            assert len(frames) == len(wt.steps) + 1
            assert symbols_line(frames[-1]) == wt.symbols
            for f in frames:
                assert_sanitizer_safe(f.html)
        table = trace_table(tok, tok.trace(text))
        assert_sanitizer_safe(table.html)
    insecta = llama3.trace(" Insecta")[0]
    assert insecta.steps == [] and insecta.symbols == ["ĠInsecta"]
    assert "ignore_merges" in trace_frames(llama3, insecta)[0].text
    assert qwen2.trace(" Insecta")[0].symbols == ["ĠIn", "sect", "a"]
    view = whole_word_view(llama3, "ĠInsecta")
    assert "id 114843" in view.text and "[ĠIn] [sect] [a]" in view.text
    assert_sanitizer_safe(view.html)


def test_cost_table_counts_without_timing(qwen2):
    view = queue_cost(qwen2.model.ranks, (10, 100))
    assert view.text.splitlines()[1].split()[:5] == ["'a'*n", "10", "8", "18", "10"]
    assert_sanitizer_safe(view.html)


def test_player_links_in_the_browser():
    w = pytest.importorskip("ipywidgets")
    frames = queue_frames("lower", TOY)
    box = queue_player(frames)
    controls, stack = box.children
    play, slider = controls.children
    assert isinstance(stack, w.Stack) and len(stack.children) == len(frames) and stack.selected_index == 0
    assert play.max == slider.max == len(frames) - 1
    assert [c.value for c in stack.children] == [f.html for f in frames]
