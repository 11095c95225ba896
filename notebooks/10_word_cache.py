# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 10 · Remembering words: the word cache
#
# Notebook 05 followed one word through the merge queue. The pre-tokenizer (notebook 04) cuts a text into
# words and BPE encodes each word on its own: what comes out for a word depends on the word and the
# vocabulary, on nothing else, not on its neighbours nor on where it sits in the text. So once a word has
# been encoded, its ids can be written down and reused the next time the same word turns up. That table is
# the word cache.
#
# Whether the cache pays off depends on one property of text: **words repeat**. In English a handful of
# words (*the*, *and*, *a*, commas, full stops) make up a large share of everything written, and most
# other words are rare; the frequency of the word of rank *r* falls roughly like 1/*r* (Zipf's law). Code
# and chat prompts repeat even more: the same keywords, the same indentation, the same punctuation.
#
# This notebook counts the work the cache saves, on the lesson's made-up example first and on real text
# after. Every figure here is a count (queue pops, hits, misses), never a time, so it comes out the same on
# every machine.

# %%
from pathlib import Path

from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.viz.cache_view import (
    LESSON_LINE,
    LESSON_WORDS,
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

qwen2 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf")

# %% [markdown]
# ## The cache in gguftok
#
# The BPE models keep their cache in `BPEModel` (`gguftok/models/bpe.py`): an `OrderedDict` from word, as
# written in the text, to its list of ids. Encoding looks each word up first; on a hit it moves the word
# to the recent end of the dictionary and returns the stored ids. On a miss it spells the word as the
# merges do (byte-level, `Ġ` for a space, notebook 02), runs the merge queue, stores the result, and, if
# the dictionary has grown past `cache_size`
# entries, drops the entry at the old end: the word used **least recently** (an LRU cache). The size bounds
# the memory however long the document; the default is 32,768 words (about 10 MB), and `Tokenizer(metadata,
# cache_size=N)` (or `Tokenizer.from_gguf(path, cache_size=N)`) chooses another; 0 turns the cache off.
#
# Here is a cache of four words after encoding a short sentence. It already held one word before the
# sentence: loading the tokenizer encodes `"\n"` once to find the newline token (`Ċ`), as llama.cpp does,
# and that goes through the cache like any other word.

# %%
small = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf", cache_size=4)
print("after loading:", list(small.model._cache))
sentence = "the cat sat on the mat, and the cat slept"
small.encode(sentence)
print("words:", plain_words(small, sentence))
for word, ids in small.model._cache.items():
    print(f"{word!r:>10} spelled {small.model.spell(word)!r:>8} -> {ids}")

# %% [markdown]
# Four entries, oldest first: the four words used most recently. The sentence made 1 hit, the second
# `Ġthe` after the first (three other words in between, so it was still there); the second `Ġcat` missed,
# because by then five newer words had pushed it out, and it was encoded again. `Ċ`, `the` (no space: the
# first word of the text) and the others were evicted as newer words came
# in. `simulate_lru` in `gguftok/viz/cache_view.py` replays the same policy on a list of words without
# encoding anything, which is how the rest of this notebook counts hits and misses;
# `tests/test_viz_cache.py` checks that it ends with the same cache contents as `BPEModel` itself. It
# replays the spelled words; the spelling is one-to-one (`BPEModel.unspell` undoes it), so the hits and
# misses are the same. Why the cache keeps words as written: a miss is rare once the cache is warm, and
# spelling every word of the text (byte-level encoding, then cutting into words again) cost about a third
# of the time of encoding warm English prose, where spelling only the misses costs next to nothing.

# %%
run = simulate_lru(["Ċ", *plain_words(small, sentence)], 4)
print(list(run.cache) == [small.model.spell(w) for w in small.model._cache], run.hits, "hits,", run.misses, "misses")

# %% [markdown]
# ## The lesson's example: one line of code, fifty times
#
# The lesson builds a merge table that spells eight pieces of code letter by letter (`Ġ r`, `Ġr e`,
# `Ġre t`, ...), and encodes one line of code repeated 50 times, counting merge steps with and without a
# cache. `gguftok.synthetic.byte_level_vocab` builds exactly such a table for any list of words (it is how
# `data/synthetic/byte-level-286.gguf` is made, from a different list), so `lesson_tokenizer` asks it for
# the lesson's eight and writes a small GGUF file from the result:

# %%
print(LESSON_WORDS)
print(repr(LESSON_LINE), "x 50")
lesson = lesson_tokenizer(pre="gpt-2")
print(lesson.model.ranks)

# %% [markdown]
# Each word's cost is the number of pops of its merge queue (`merge_word(word, ranks, trace=steps)`, then
# `len(steps)`). On one copy of the line:

# %%
for word in plain_words(lesson, LESSON_LINE):
    print(f"{word!r:>10}: {pops(word, lesson.model.ranks)} pops")

# %% [markdown]
# Now the whole text, first encoding every word afresh, then with a cache (unbounded here, as in the
# lesson; ten distinct words fit in any cache anyway):

# %%
lesson_runs = [("lesson vocabulary, GPT-2 split", step_counts(lesson, lesson_text())),
               ("lesson vocabulary, Qwen2 split", step_counts(lesson_tokenizer(pre="qwen2"), lesson_text())),
               ("byte-level-286.gguf", step_counts(Tokenizer.from_gguf("../data/synthetic/byte-level-286.gguf"),
                                                   lesson_text()))]
step_counts_view(lesson_runs)

# %% [markdown]
# The first row is the lesson's figure exactly: 851 words, 853 tokens, **1,747 pops without a cache and 19
# with one**, 10 distinct words and 841 hits, a saving of about 92 times. Each word becomes one token
# except the very first, `int`: it has no space in front, the table only builds `Ġint`, so it stays three
# one-letter tokens. With the cache only the first occurrence of each distinct word runs the queue: 3
# (`Ġint`) + 5 (`Ġvalue`) + 6 (`Ġreturn`) + 2 (`Ġ+=`) + 1 each for `Ġi`, `Ġ=`, `Ġ0` = 19.
#
# Three details decide whether the count matches, and the other two rows show what happens when one of them
# changes:
#
# - **The split.** The lesson cuts words with the pattern `` ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)``,
#   GPT-2's pre-tokenizer without its contractions and its final `\s+`; on this text neither of those can
#   match, so `pre="gpt-2"` gives the same words. Qwen2's pre-tokenizer (the `pre` that `byte_level_vocab`
#   writes by default) differs in one place that matters here: a digit is a word of its own, with no
#   leading space, so ` 0` becomes the two words ` ` and `0`. That is 2 more words per line (951 in all),
#   and the merge `Ġ 0` never gets a pair to act on: 2 pops fewer per line, **1,647** without the cache,
#   **18** with it.
# - **The merge table.** `byte-level-286.gguf` spells `Hello`, ` world`, ` cat`, ` the`, `user` and
#   `assistant`, none of which occur in the text, so no merge ever applies: 0 pops either way, and every
#   character is its own token (2,600 tokens). Its split is Qwen2's, hence 951 words.
# - **What a pop is.** The lesson's loop rebuilds its queue after every merge, so each pop is a merge.
#   `merge_word` keeps its queue and skips stale entries (notebook 05), which also count as pops. The
#   lesson's table builds each word strictly left to right, so no entry ever goes stale here and the two
#   counts agree; on real vocabularies they do not (` tokenization` in Qwen2 takes 21 pops for 11 merges).

# %% [markdown]
# ## Real text: how often does a word come back?
#
# The lesson's text repeats one line and so is the best case. For something less artificial, take this
# workbook's own prose: the markdown cells of notebooks 01 to 06, read as plain text, and separately their
# code cells. (These numbers change when those notebooks are edited.) The words are Qwen2's.

# %%
sources = [Path(f"{name}.py") for name in ("01_gguf_metadata", "02_byte_map", "03_merge_ranks",
                                          "04_pretokenizers", "05_merge_queue", "06_special_tokens")]
prose = plain_words(qwen2, notebook_text(sources, "markdown"))
code = plain_words(qwen2, notebook_text(sources, "code"))
frequency_view(prose, top=15)

# %% [markdown]
# Zipf's law in miniature: the top few words, `Ġthe`, the comma, the newline, `Ġa`, `Ġand`, are each a few
# percent of all words, and about half of the distinct words occur exactly once. A cache can never help a
# word the first time it appears, so the share of first occurrences is the ceiling on what any cache can
# save; the frequent words are what it does save.

# %%
frequency_view(code, top=15)

# %% [markdown]
# Now the hit rate of an LRU cache of each size, replaying the word sequence through `simulate_lru`:

# %%
hit_rate_view(prose)

# %% tags=["nbval-ignore-output"]
hit_rate_figure({"notebook prose": prose, "notebook code": code});

# %% [markdown]
# The curves climb quickly and then flatten against the dashed line, the unbounded cache, whose misses are
# exactly the first occurrences. The code climbs earlier: its repeats come close together (the same
# names and punctuation within a few lines), so a small cache already catches them. It flattens lower only
# because the sample is short: about a fifth of the prose's words (both counts are under the tables above)
# leave less room for repeats, so a larger share of its words are first occurrences. A cache of a few hundred words already catches most of what can be caught
# in these texts, and at 10,000 words (the lesson's size) the cache is effectively unbounded for any single
# prompt of this size: it only starts to evict on long documents with a large vocabulary of their own, which
# is when the bound on memory matters. gguftok's default is 32,768 words because of one such document: the
# benchmark's megabyte of many scripts (`bench/texts.py`) has 19,198 distinct words, and with 10,000 a second
# pass over it still missed 18,424 times (`simulate_lru` counts it; the first pass: 19,538).
#
# A hit rate is not a speed-up: a hit still costs a dictionary lookup and a miss costs a merge queue whose
# length depends on the word. How much time the cache saves is measured in `bench/bench_encode.py`, which
# encodes the same text cold (empty cache) and warm and compares both with llama.cpp. Timings belong there,
# not in a notebook cell: they change from run to run and machine to machine.

# %% [markdown]
# ## Explore: cache size, hit rate, and who stays
#
# Drag the slider to choose a cache size (the label maps slider positions to sizes). Each view shows the
# hit rate on the notebook prose and its most frequent words, each marked **cached** (green) if it is still
# in the cache after the last word, or **evicted** (orange) if the least-recently-used rule pushed it out.
# Every view is drawn before the widget appears, so moving the slider needs no running kernel.

# %% tags=["nbval-ignore-output"]
cache_explorer(prose)

# %% [markdown]
# The same views as text, for three sizes. The marks are a snapshot after the last word: with 4 entries
# nearly every word has been pushed out, even `Ġthe` and the comma, which come back every few dozen words.
# With 64 the common words mostly stay (the snapshot happens to catch `Ġthe` out: the last stretch of
# prose went through more than 64 other distinct words since its last use); with 1,024 all of them do.

# %%
for size in (4, 64, 1024):
    print(cache_state(prose, size, top=8))
    print()

# %% [markdown]
# ## Summary
#
# - BPE encodes each word independently, so a word's ids can be stored and reused: that is the word cache.
# - It works because words repeat: a few words make up much of any text (Zipf's law), and in code the
#   repeats come close together, so even a small cache catches them.
# - gguftok's `BPEModel` keeps an LRU `OrderedDict` of word -> ids, `cache_size` entries (10,000 by default,
#   `Tokenizer(..., cache_size=N)`, 0 for none). Loading a tokenizer already puts `Ċ` in it.
# - On the lesson's repeated line of code, counted with `merge_word`'s trace, the cache cuts 1,747 queue
#   pops to 19 (841 hits out of 851 words), exactly as in the lesson when the words are split as the
#   lesson splits them; Qwen2's digit rule gives 1,647 and 18 instead.
# - On this workbook's own prose, Qwen2's words hit an LRU cache about two times in three at 256 entries
#   and reach the unbounded ceiling well before 10,000. Hit rates are counts; the time saved is measured in
#   `bench/bench_encode.py`.

# %% [markdown]
# ## Exercises
#
# Write each function in the code cell under its statement, run that cell, then run the check below it.
# The check calls your function on this lesson's examples and on many generated inputs (seeded, so the
# same every time), compares each answer with gguftok's own, and shows the first input where they
# differ: the input, the expected answer, yours, and for a list the first index that differs. Until you
# write the body it says *not attempted*. `gguftok.exercises.show("NN.name")` prints a task again.
# The solutions are in `solutions/lesson10.py` at the top of the repository.

# %%
from gguftok.exercises import check  # noqa: E402


# %% [markdown]
# ### Exercise 10.lru_replay: replay a least-recently-used cache
#
# Write `lru_replay(words, size)` that replays word lookups through an LRU cache of at most `size` words
# and returns `(hits, misses, cached)`, `cached` being the words left in the cache, least recently used
# first. A hit moves the word to the recent end; a miss adds it there and, when the cache then holds more
# than `size` words, drops the least recently used one. `size=0` caches nothing; `size=None` never
# drops anything. (`collections.OrderedDict` has `move_to_end` and `popitem(last=False)`.)
#
# The check uses the notebook's sentence with a cache of 4, 150 random word sequences with sizes None, 0
# to 8, and Qwen2's words for two sentences, against `gguftok.viz.cache_view.simulate_lru`, which replays
# `BPEModel.word_ids`'s own policy.

# %%
def lru_replay(words: list[str], size: int | None) -> tuple[int, int, list[str]]:
    """``(hits, misses, cached words oldest first)`` after looking ``words`` up in an LRU cache of ``size``.

    >>> lru_replay(["a", "b", "a", "c", "b"], 2)
    (1, 4, ['c', 'b'])
    """
    raise NotImplementedError


# %%
check("10.lru_replay", lru_replay)

# %% [markdown]
# ### Exercise 10.cached: a word cache around an encoder
#
# Now the cache itself. Write `cached(encode, size)` that returns a new function: called with a word, it
# returns `encode(word)`, but it calls `encode` only on a miss and remembers at most `size` words, least
# recently used out first (`size=0`: remember nothing, `size=None`: no limit), like `BPEModel.word_ids`.
#
# The check wraps a small encoder that counts its calls and, for each word, records the ids returned
# and whether `encode` was called (a miss) or not (a hit). It uses the same word sequences as the
# exercise above; the expected hits and misses come from `gguftok.viz.cache_view.simulate_lru`.

# %%
from collections.abc import Callable  # noqa: E402


def cached(encode: Callable[[str], list[int]], size: int | None) -> Callable[[str], list[int]]:
    """``encode`` with an LRU cache of at most ``size`` words (None: unbounded, 0: none).

    >>> fast = cached(lambda w: [len(w)], 2)
    >>> fast("hello"), fast("hello")
    ([5], [5])
    """
    raise NotImplementedError


# %%
check("10.cached", cached)
