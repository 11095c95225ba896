"""The word-cache views: the LRU simulation leaves the same cache as BPEModel, hit counts worked out by hand,
the lesson's step counts, and HTML that escapes what it shows."""

from __future__ import annotations

import random
import re

import pytest

from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.viz.cache_view import (
    cache_explorer,
    cache_state,
    frequency_view,
    hit_rate_figure,
    hit_rate_view,
    lesson_text,
    lesson_tokenizer,
    notebook_text,
    plain_words,
    pops,
    simulate_lru,
    step_counts,
    step_counts_view,
)


@pytest.fixture(scope="module")
def qwen2():
    return Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf")


def test_hits_by_hand():
    # "a b a c b a", size 2. a: miss [a]; b: miss [a b]; a: hit [b a]; c: miss, evict b [a c];
    # b: miss, evict a [c b]; a: miss, evict c [b a]. 1 hit, 5 misses.
    run = simulate_lru(["a", "b", "a", "c", "b", "a"], 2)
    assert (run.hits, run.misses, list(run.cache)) == (1, 5, ["b", "a"])
    # size 3 keeps everything: a b a c b a -> misses a, b, c; hits a, b, a
    run = simulate_lru(["a", "b", "a", "c", "b", "a"], 3)
    assert (run.hits, run.misses, list(run.cache)) == (3, 3, ["c", "b", "a"])
    assert simulate_lru(["a", "a", "a"], 0).hits == 0  # size 0 caches nothing, as BPEModel
    assert simulate_lru(["a", "b", "a", "c", "b", "a"], None).hits == 3
    assert simulate_lru([], 4).hit_rate == 0.0


def test_hits_on_real_words_by_hand(qwen2):
    words = plain_words(qwen2, "the cat the cat the")
    assert words == ["the", "Ġcat", "Ġthe", "Ġcat", "Ġthe"]
    run = simulate_lru(words, 1)
    assert (run.hits, run.misses) == (0, 5)  # alternating words always evict each other
    run = simulate_lru(words, 2)
    assert (run.hits, run.misses) == (2, 3)


@pytest.mark.parametrize("size", [0, 1, 3, 16, 10_000])
def test_simulation_matches_bpe_model(qwen2, size):
    tok = Tokenizer(qwen2.vocab.md, cache_size=size)
    # loading encodes "\n" once (llama.cpp's newline id), which already goes through the cache
    primed = list(tok.model._cache)
    rng = random.Random(size)
    pool = ["the", " cat", " sat", ",", " on", " mat", "\n", " 12", " tokenizer", "é", " 日本"]
    text = "".join(rng.choice(pool) for _ in range(400))
    tok.encode(text, add_special=False)
    # the cache knows each word as written in the text; plain_words spells them as the merges do
    run = simulate_lru([tok.model.spell(w) for w in primed] + plain_words(tok, text), size)
    assert [tok.model.spell(w) for w in tok.model._cache] == list(run.cache)
    assert all(tok.model._cache[tok.model.unspell(w)] == tok.model.word_ids(w) for w in run.cache)


def test_lesson_counts():
    c = step_counts(lesson_tokenizer("gpt-2"), lesson_text())
    assert (c.words, c.tokens, c.pops_without, c.pops_with, c.distinct, c.hits) == (851, 853, 1747, 19, 10, 841)
    # Qwen2's pre-tokenizer splits " 0" into " " and "0" (a digit takes no leading space), so the
    # "Ġ 0" merge never runs: 100 more words, 100 fewer pops.
    c = step_counts(lesson_tokenizer("qwen2"), lesson_text())
    assert (c.words, c.pops_without, c.pops_with, c.distinct, c.hits) == (951, 1647, 18, 10, 941)


def test_pops_counts_stale_entries():
    from gguftok.models.bpe import merge_ranks

    toy = merge_ranks(["e r", "l o", "lo w", "low er", "w er"])
    assert pops("lower", toy) == 5  # four merges and the stale "w er"


BAD = ['<script>alert(1)</script>', '"><img src=x onerror=1>', "a\tb\n", "&amp;"]


def test_views_escape():
    words = BAD * 3 + ["x"]
    for view in (frequency_view(words), cache_state(words, 2), cache_state(words, None), hit_rate_view(words)):
        assert "<script" not in view.html and "<img" not in view.html
        assert not re.search(r"\bclass=|<style", view.html)
        for chip in re.findall(r'<span [^>]*style="([^"]*)"', view.html):
            assert "color:#1A1A1A" in chip and "border:" in chip
    assert "a→b↵" in frequency_view(words).text
    assert "&amp;amp;" in cache_state(words, None).html
    tok = lesson_tokenizer("gpt-2")
    table = step_counts_view([("<b>", step_counts(tok, "int i = 0;"))])
    assert "&lt;b&gt;" in table.html and "<b>" in table.text


def test_cache_state_marks_evictions():
    text = cache_state(["a", "a", "b", "c"], 1).text
    assert "hit rate 25.0%" in text
    assert "[a] x2 evicted" in text and "[c] x1 cached" in text


def test_notebook_text(tmp_path):
    p = tmp_path / "n.py"
    p.write_text("# %% [markdown]\n# Hello *world*\n#\n# %%\nx = 1\n# %% [markdown]\n# bye\n", encoding="utf-8")
    assert notebook_text([p]) == "Hello *world*\n\nbye"
    assert notebook_text([p], "code") == "x = 1"


def test_widget_and_figure():
    pytest.importorskip("ipywidgets")
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    words = ["a", "b", "a", "c", "b", "a"]
    box = cache_explorer(words, (0, 1, 2))
    assert len(box.children[-1].children) == 3
    fig = hit_rate_figure({"toy": words}, (0, 1, 2))
    assert len(fig.axes) == 1
