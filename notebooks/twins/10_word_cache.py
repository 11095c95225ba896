# ---
# jupyter:
#   jupytext:
#     formats: ipynb,twins//py:percent
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
# This notebook looks at gguftok's cache, explains the rule it follows (keep the words used most recently),
# has you write that cache in your own package, `mytok/cache.py`, and then counts the work it saves, on the
# lesson's made-up example first and on real text after. Every figure here is a count (queue pops, hits,
# misses, comparisons), never a time, so it comes out the same on every machine.

# %%
from collections import OrderedDict
from pathlib import Path

from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.exercises import workspace
from gguftok.models.bpe import merge_word
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
# the dictionary has grown past `cache_size` entries, drops the entry at the old end: the word used
# **least recently** (an LRU cache). The size bounds the memory however long the document; the default is
# 32,768 words (about 10 MB), and `Tokenizer(metadata, cache_size=N)` (or `Tokenizer.from_gguf(path,
# cache_size=N)`) chooses another; 0 turns the cache off.
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
# first word of the text) and the others were evicted as newer words came in.
#
# `simulate_lru` in `gguftok/viz/cache_view.py` replays the same policy on a list of words without encoding
# anything, which is how the rest of this notebook counts hits and misses; it ends with the same cache
# contents as `BPEModel` itself. It replays the spelled words; the spelling is one-to-one
# (`BPEModel.unspell` undoes it), so the hits and misses are the same. Why the cache keeps words as
# written: a miss is rare once the cache is warm, and spelling every word of the text (byte-level encoding,
# then cutting into words again) cost about a third of the time of encoding warm English prose, where
# spelling only the misses costs next to nothing.

# %%
run = simulate_lru(["Ċ", *plain_words(small, sentence)], 4)
print(list(run.cache) == [small.model.spell(w) for w in small.model._cache], run.hits, "hits,", run.misses, "misses")

# %% [markdown]
# ## Least recently used, one call at a time
#
# A cache with a capacity answers two calls:
#
# - **get(word)**: if the word is there (a *hit*), return its ids and mark it as the most recently used;
#   if not (a *miss*), say so (`None`).
# - **put(word, ids)**: store the ids as the most recently used entry; if that makes one entry too many,
#   drop the least recently used one.
#
# A tokenizer calls them in a fixed pattern: `get` every word; on a miss, encode the word and `put` the
# result. Keeping the entries *in order of use* is all the bookkeeping there is. `collections.OrderedDict`
# does it: it remembers the order in which keys went in, `move_to_end(key)` makes a key the newest, and
# `popitem(last=False)` removes the oldest. Here are five words through such a dictionary by hand, capacity
# 2, one line per call:

# %%
entries = OrderedDict()  # least recently used first
capacity = 2
for word in ["the", "cat", "the", "sat", "cat"]:
    if word in entries:
        entries.move_to_end(word)
        print(f"get {word!r:6} hit   {list(entries)}")
        continue
    print(f"get {word!r:6} miss  {list(entries)}")
    entries[word] = [len(word)]  # stand-in ids
    if len(entries) > capacity:
        entries.popitem(last=False)
    print(f"put {word!r:6}       {list(entries)}")

# %% [markdown]
# The second `the` is a hit and moves to the newest end, so when `sat` comes in it is `cat` that goes, and
# the last `cat` misses. With a plain first-in-first-out rule, `the` would have gone instead, although it
# had just been used.
#
# ### Why a dictionary, and not a list
#
# A list in order of use would follow the same rule, but to find a word in a list Python compares it with
# the entries one by one, from the start. A dictionary computes the word's hash and goes straight to its
# slot: about one comparison, however many entries there are. A tokenizer looks up every word of every text,
# with tens of thousands of words in its cache, so this is the difference between a cache that saves work
# and one that costs more than it saves. To see it, give the keys a way to count the comparisons made on
# them:

# %%
compared = [0]


class Counted(str):
    """A string that counts every == done on it."""

    def __eq__(self, other):
        compared[0] += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


words = [Counted(f"word{k}") for k in range(10_000)]
as_list, as_dict = list(words), dict.fromkeys(words)
for name, table in [("list", as_list), ("dictionary", as_dict)]:
    compared[0] = 0
    found = Counted("word9000") in table  # an equal string, not the same object
    print(f"{name:>10}: found={found}, {compared[0]:,} comparison{'' if compared[0] == 1 else 's'}")

# %% [markdown]
# Nine thousand and one comparisons against one. The check of your cache makes the same measurement: it fills
# a cache with 512 words, then makes 1,500 gets and puts with keys that count their comparisons and hashes,
# and a cache that needs more than 20 per call on average does not pass.
#
# ## Now write it: `mytok/cache.py`
#
# Open [`mytok/cache.py`](mytok/cache.py), your package's module for this stage. It has two things to
# write, each with its check at the end of this notebook:
#
# - the class `LRUCache(capacity)`, with `get`, `put`, `keys()` (least recently used first), `len()`, and the
#   counters `hits` and `misses` of the `get` calls;
# - `encode_words(words, encode, cache)`: the tokenizer's loop around it, `get` each word and, on a miss,
#   `encode` it and `put` the ids.
#
# Notebook 12's tokenizer puts your `LRUCache` in front of your merge queue. The cell below runs this
# notebook's sentence through your class beside `simulate_lru`; it reads your file afresh each time it runs.

# %%
def replay(cls, words, capacity):
    """Get each word from ``cls(capacity)``, put it on a miss: (hits, misses, keys at the end)."""
    cache = cls(capacity)
    for w in words:
        if cache.get(w) is None:
            cache.put(w, [len(w)])
    return cache.hits, cache.misses, cache.keys()


words = plain_words(qwen2, sentence)
reference = simulate_lru(words, 4)
print("simulate_lru:", (reference.hits, reference.misses, list(reference.cache)))
try:
    print("yours:       ", replay(workspace.load("cache").LRUCache, words, 4))
except NotImplementedError:
    print("yours:        LRUCache is not written yet in mytok/cache.py")

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
# Your `encode_words` can make the same count. Give it an `encode` that runs the merge queue and adds up its
# pops, and a cache of 10,000 words (the lesson's size); the ids must be those of the whole tokenizer:

# %%
spent = [0]


def encode_counting(word):
    """The lesson vocabulary's ids for one (spelled) word, adding its queue pops to ``spent``."""
    steps = []
    symbols = merge_word(word, lesson.model.ranks, trace=steps)
    spent[0] += len(steps)
    return lesson.model.symbol_ids(symbols)


try:
    mine = workspace.load("cache")
    cache = mine.LRUCache(10_000)
    ids = mine.encode_words(plain_words(lesson, lesson_text()), encode_counting, cache)
    print(f"{spent[0]:,} pops, {cache.hits:,} hits, {cache.misses:,} misses, {len(ids):,} ids; "
          f"the same ids as the tokenizer: {ids == lesson.encode(lesson_text(), add_special=False)}")
except NotImplementedError:
    print("encode_words or LRUCache is not written yet in mytok/cache.py")

# %% [markdown]
# Three details decide whether the count matches, and the other two rows of the table show what happens when
# one of them changes:
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
# Zipf's law in miniature: the top few words, articles, commas, newlines, are each a few percent of all
# words, and a large share of the distinct words occur exactly once (the line under the table counts them).
# A cache can never help a word the first time it appears, so the share of first occurrences is the ceiling
# on what any cache can save; the frequent words are what it does save.

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
# exactly the first occurrences. The code's repeats come close together (the same names and punctuation
# within a few lines), so a small cache already catches them; its sample is much shorter than the prose
# (both counts are in the legend), which leaves less room for repeats. A cache of a few hundred words
# already catches most of what can be caught in these texts, and at 10,000 words (the lesson's size) the
# cache is effectively unbounded for any single prompt of this size: it only starts to evict on long
# documents with a large vocabulary of their own, which is when the bound on memory matters. gguftok's
# default is 32,768 words because of one such document: the benchmark's megabyte of many scripts
# (`bench/texts.py`) has 19,198 distinct words, and with 10,000 a second pass over it still missed 18,424
# times (`simulate_lru` counts it; the first pass: 19,538).
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
# nearly every word has been pushed out, even the most frequent ones, which come back every few dozen words.
# With 64 most of the common words stay, though a word whose last use lies more than 64 distinct words back
# is out at the moment of the snapshot; with 1,024 the common words all stay.

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
# - An LRU cache keeps its entries in order of use: a hit moves the word to the newest end, a new word goes
#   in there, and past the capacity the oldest goes. An `OrderedDict` does each step in one dictionary
#   operation; a list would compare a word with every entry before it.
# - gguftok's `BPEModel` keeps such a cache of word -> ids, `cache_size` entries (32,768 by default,
#   `Tokenizer(..., cache_size=N)`, 0 for none). Loading a tokenizer already puts `Ċ` in it.
# - On the lesson's repeated line of code, counted with `merge_word`'s trace, the cache cuts 1,747 queue
#   pops to 19 (841 hits out of 851 words), exactly as in the lesson when the words are split as the
#   lesson splits them; Qwen2's digit rule gives 1,647 and 18 instead.
# - On this workbook's own prose, a cache of a few hundred words already comes close to the unbounded
#   ceiling (the table above). Hit rates are counts; the time saved is measured in `bench/bench_encode.py`.

# %% [markdown]
# ## Exercises
#
# Your own tokenizer lives in `mytok/`, a package of yours beside these notebooks, one module per
# stage. This notebook's stage is [`mytok/cache.py`](mytok/cache.py):
# open it in JupyterLab (click the link, or double-click the file in the file browser), write the
# body of each function named below, save the file, and run its check. The check reads your file
# again every time, so there is no need to restart the kernel, and nothing in this notebook ever
# writes to it. It calls your function on this notebook's examples and on many generated inputs
# (seeded, so the same every time), compares each answer with the reference, and shows the first
# input where they differ, with a call you can copy to run that input again, whole. Until you
# write a body it says *not attempted*. If you are stuck, the reference solutions are in
# `solutions/mytok/` at the top of the repository.

# %%
from gguftok.exercises import check, rerun  # noqa: E402

# %% [markdown]
# ### Exercise 10.LRUCache: a least-recently-used cache
#
# Write the class `LRUCache`: `LRUCache(capacity)` starts empty with `hits` and `misses` at 0;
# `get(key)` returns the stored value and makes the entry the most recently used (a hit), or returns
# `None` (a miss); `put(key, value)` stores the value as the most recently used entry, replacing an
# older value of the same key, and then, if the cache holds more than `capacity` entries, drops the
# least recently used one; `keys()` lists the keys least recently used first; `len(cache)` counts
# the entries. Capacity 0 stores nothing.
#
# The check replays 4 short scripts, 150 random ones (up to 9 words, capacities 0 to 8) and Qwen2's
# own lookups for two sentences (capacities 1, 4 and 16) through your class and through an
# independent `OrderedDict` cache, comparing after every call what it returned, `hits`, `misses`,
# `len` and `keys()`. `case_args("10.LRUCache", n)` (from `gguftok.exercises`) gives the capacity
# and the calls of case `n`.
# Then it measures the cost: a cache of 512 words, 1,500 gets and puts, with
# keys that count each `==` and `hash()` done on them; more than 20 per call on average
# means the entries are being searched one by one.
#
# Write it in [`mytok/cache.py`](mytok/cache.py).

# %%
check("10.LRUCache")

# %% [markdown]
# ### Exercise 10.encode_words: the cache in front of an encoder
#
# Write `encode_words(words, encode, cache)`: the ids of all the words, one word after the other. Look
# each word up once with `cache.get`; on a miss, call `encode(word)` for its ids and `cache.put` them,
# so that `encode` runs only when the cache does not have the word.
#
# The check hands your function an `encode` that records the words it is called with (its ids are the
# characters' code points) and a cache of its own (an `OrderedDict` LRU, not your class, so this check
# does not depend on the one above). What it compares is the tuple `(ids, words encoded, hits,
# misses, keys at the end)`, so a first difference at index 1 is about the words your function
# encoded. Cases: 3 of this notebook, 120 random word lists (capacities 0 to 8) and Qwen2's words for
# the lesson's line of code.
#
# Write it in [`mytok/cache.py`](mytok/cache.py).

# %%
check("10.encode_words")
