"""The merge-queue frames: safe HTML, escaped text, stale entries labelled, one frame per pop plus the start,
and the last frame agreeing with merge_word."""

from __future__ import annotations

import heapq
import random
import re

import pytest
from conftest import REPO
from solutions_loader import solved
from viz_checks import assert_sanitizer_safe

from gguftok import Tokenizer
from gguftok.exercises import workspace
from gguftok.models.bpe import MergeStep, merge_ranks, merge_word
from gguftok.viz.queue_view import (
    beside_frames,
    beside_table,
    frames_text,
    initial_queue,
    merge_log,
    naive_lookups,
    queue_cost,
    queue_frame,
    queue_frames,
    queue_player,
    replay,
    run_yours,
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


# ------------------------------------------------------------------------ the student's trace beside gguftok's
def _yours(word, ranks, *, trace=None):
    """A correct queue written as a student would, recording its pops."""
    return solved("05.merge_word")(word, ranks, trace=trace)


def _no_stale_check(word, ranks, *, trace=None):
    """Merges whatever sits at an entry's position, stale or not (it only checks that the slot is alive)."""
    syms, heap = list(word), []
    for i in range(len(syms) - 1):
        if syms[i] + " " + syms[i + 1] in ranks:
            heapq.heappush(heap, (ranks[syms[i] + " " + syms[i + 1]], i, syms[i], syms[i + 1]))
    while heap:
        r, i, left, right = heapq.heappop(heap)
        j = next((k for k in range(i + 1, len(syms)) if syms[k]), None)
        ok = j is not None and syms[i] != ""
        if trace is not None:
            trace.append((r, i, left, right, ok))
        if ok:
            syms[i], syms[j] = syms[i] + syms[j], ""
            p = next((k for k in range(i - 1, -1, -1) if syms[k]), None)
            n = next((k for k in range(j + 1, len(syms)) if syms[k]), None)
            for a, b in ((p, i), (i, n)):
                if a is not None and b is not None and syms[a] + " " + syms[b] in ranks:
                    heapq.heappush(heap, (ranks[syms[a] + " " + syms[b]], a, syms[a], syms[b]))
    return [s for s in syms if s]


def test_a_right_queue_plays_the_same_pops_as_gguftoks(qwen2):
    rng = random.Random(11)
    words = [(w, TOY) for w in ("lower", "lowest", "newer", "", "x")] + [("Ġtokenization", qwen2.model.ranks)]
    for _ in range(100):
        ranks = merge_ranks([f"{rng.choice('abc')} {rng.choice('abc')}" for _ in range(6)]
                            + [f"{rng.choice(['ab', 'ba', 'aa'])} {rng.choice('abc')}" for _ in range(4)])
        words.append(("".join(rng.choice("abc") for _ in range(rng.randint(0, 12))), ranks))
    for word, ranks in words:
        steps: list[MergeStep] = []
        symbols = merge_word(word, ranks, steps)
        table = beside_table(word, ranks, _yours)
        assert table.text.startswith(f"merge_word({word!r}) beside gguftok's: "
                                     + (f"the same {len(steps)} pops in the same order" if steps else
                                        "no pops on either side")), table.text
        frames = beside_frames(word, ranks, _yours)
        assert len(frames) == len(steps) + 1
        assert all(f.text.splitlines()[0].endswith(("the same", "the same pops all the way")) for f in frames)
        assert [r.symbols for r in replay(word, run_yours(word, ranks, _yours).pops)] == [s.symbols for s in steps]
        assert symbols_line(frames[-1]) == symbols
    for f in beside_frames("Ġtokenization", qwen2.model.ranks, _yours):
        assert_sanitizer_safe(f.html)


def test_the_first_pop_that_differs_is_marked(qwen2):
    ranks = qwen2.model.ranks
    table = beside_table("Ġtokenization", ranks, _no_stale_check)
    assert table.text.splitlines()[0] == ("merge_word('Ġtokenization') beside gguftok's: gguftok's 21 pops, yours 21: "
                                          "the first difference is pop 8")
    row = table.text.splitlines()[9]
    assert row.split() == ["8", "r184", "k+e", "skipped", "r184", "k+e", "at", "3", "merged", "<-", "first",
                           "difference;", "recorded", "as", "merged,", "but", "these", "symbols", "have", "no",
                           "k+e", "at", "position", "3"]
    assert_sanitizer_safe(table.html)
    frames = beside_frames("Ġtokenization", ranks, _no_stale_check)
    heads = [f.text.splitlines()[0] for f in frames]
    assert heads[0] == "gguftok's 21 pops, yours 21: the first difference is pop 8"
    assert heads[7] == "pop 7: the same" and heads[8] == "pop 8: the first difference"
    assert heads[9] == "pop 9: after the first difference (pop 8)"
    for f in frames:
        assert_sanitizer_safe(f.html)
    # a trace that ends early, and one that goes on
    short = beside_table("lower", TOY, lambda w, r, *, trace=None: (trace.extend([(0, 3, "e", "r", True)]),
                                                                    ["l", "o", "w", "er"])[1])
    assert "gguftok's 5 pops, yours 1: the first difference is pop 2" in short.text
    assert "(no more pops)" in short.text and short.text.endswith("yours [l] [o] [w] [er]")
    frames = beside_frames("lower", TOY, lambda w, r, *, trace=None: (trace.extend([(0, 3, "e", "r", True)]), [])[1])
    assert frames[-1].text.splitlines()[-3] == "yours: (your trace ended after 1 pops)"


def _raises(word, ranks, *, trace=None):
    raise NotImplementedError


@pytest.mark.parametrize(("mine", "says"), [
    (_raises, "your merge_word (mytok/merge_queue.py) is not written yet: it still raises NotImplementedError; "
              "write it, save the file, and run this again"),
    (lambda w, r, *, trace=None: ..., "your merge_word (mytok/merge_queue.py) is not written yet: it returns ...; "
                                      "write it, save the file, and run this again"),
    (lambda w, r: list(w), "your merge_word takes no keyword trace: keep the template's signature, "
                           "merge_word(word, ranks, *, trace=None)"),
    (lambda w, r, *, trace=None: 1 / 0, "your merge_word raised ZeroDivisionError: division by zero"),
    (lambda w, r, *, trace=None: None, "your merge_word returned None, not a list of symbols"),
    (lambda w, r, *, trace=None: (trace.append((0, "e", "r")), [w])[1],
     "entry 0 of your trace is (0, 'e', 'r'), not a tuple (rank, position, left, right, merged)"),
    (lambda w, r, *, trace=None: list(w), "your merge_word returned ['l', 'o', 'w', 'e', 'r'] (gguftok's: "
                                          "['lower']) but recorded no pops: append (rank, position, left, right, "
                                          "merged) to trace at each pop to see them here"),
])
def test_what_cannot_be_played_is_said_in_one_frame(mine, says):
    table = beside_table("lower", TOY, mine)
    assert table.text == f"merge_word('lower'): {says}"
    (frame,) = beside_frames("lower", TOY, mine)
    assert frame == table
    assert_sanitizer_safe(frame.html)


def test_without_a_function_it_reads_the_students_package(monkeypatch):
    monkeypatch.setenv(workspace.ENV, str(REPO / "notebooks" / "mytok"))
    assert "is not written yet" in beside_table("lower", TOY).text
    monkeypatch.setenv(workspace.ENV, str(REPO / "solutions" / "mytok"))
    assert beside_table("lower", TOY).text.startswith("merge_word('lower') beside gguftok's: the same 5 pops")
    w = pytest.importorskip("ipywidgets")
    box = queue_player(beside_frames("lower", TOY))
    assert isinstance(box.children[1], w.Stack) and len(box.children[1].children) == 6


def test_a_package_that_cannot_be_imported_is_said(tmp_path, monkeypatch):
    pkg = tmp_path / "mytok"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    monkeypatch.setenv(workspace.ENV, str(pkg))
    (pkg / "merge_queue.py").write_text("def merge_word(:\n")
    assert "merge_queue.py, line 1" in beside_table("lower", TOY).text
    (pkg / "merge_queue.py").write_text("raise ValueError('oops')\n")
    assert beside_table("lower", TOY).text.endswith("mytok/merge_queue.py raised ValueError when imported: oops")
    (pkg / "merge_queue.py").write_text("x = 1\n")
    assert beside_table("lower", TOY).text.endswith("has no merge_word: keep the name the template gave it")


# ------------------------------------------------------------------------------- any word, any vocabulary
def test_word_frames_are_each_words_trace_frames(qwen2):
    from gguftok.viz.queue_view import word_frames

    traces = qwen2.trace(" tokenization")
    assert len(traces) == 1
    assert word_frames(qwen2, " tokenization") == trace_frames(qwen2, traces[0])
    text = "Hello tokenizers!"
    traces = qwen2.trace(text)
    frames = word_frames(qwen2, text)
    expected = [f for wt in traces for f in trace_frames(qwen2, wt)]
    assert [f.text.split("\n", 1)[1] for f in frames] == [f.text for f in expected]
    assert frames[0].text.startswith(f"word 1 of {len(traces)}: ")
    assert word_frames(TOY, "lower") == queue_frames("lower", TOY)
    assert [f.text.split("\n", 1)[1] for f in word_frames(TOY, "lower newest")] == [
        f.text for w in ("lower", "newest") for f in queue_frames(w, TOY)]
    assert word_frames(TOY, " ")[0].text.startswith("type a word")


def test_byte_level_vocabularies_are_the_gpt2_models(vocab_path):
    from gguftok.metadata import read_metadata
    from gguftok.viz.queue_view import byte_level_vocabs

    found = byte_level_vocabs()
    assert "qwen2" in found and "llama-spm" not in found and "gemma-4" not in found
    assert all(read_metadata(p)["tokenizer.ggml.model"] == "gpt2" for p in found.values())


def test_explorer_plays_the_typed_word_with_the_chosen_merges(qwen2, llama3):
    w = pytest.importorskip("ipywidgets")
    from gguftok.viz.queue_view import TOY_LABEL, queue_explorer, word_frames

    box = queue_explorer("lower", TOY_LABEL, toy=TOY, interval=700)
    controls, play_row, stack = box.children
    word, choice = controls.children
    play, slider, speed = play_row.children
    assert isinstance(stack, w.Stack) and speed.value == play.interval == 700
    assert [c.value for c in stack.children] == [f.html for f in queue_frames("lower", TOY)]
    choice.value = "qwen2"
    word.value = " tokenization"
    _, row, stack = box.children
    play, slider, speed = row.children
    assert [c.value for c in stack.children] == [f.html for f in word_frames(qwen2, " tokenization")]
    assert play.max == slider.max == len(stack.children) - 1
    choice.value = "llama-bpe"
    stack = box.children[-1]
    assert [c.value for c in stack.children] == [f.html for f in word_frames(llama3, " tokenization")]
