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
# The pre-tokenizer (notebook 04) cuts a text into words, and BPE encodes each word on its own (notebook 05):
# a word's ids depend on the word and the vocabulary, not on its neighbours nor on where it sits. So once a
# word has been encoded, its ids can be written down and reused when the word comes back. That table is the
# word cache, and it pays because **words repeat**: a handful of words (*the*, *and*, commas, full stops)
# make up a large share of any text, and the frequency of the word of rank *r* falls roughly like 1/*r*
# (Zipf's law). Every figure here is a count (queue pops, hits, misses, comparisons), never a time, so it
# comes out the same on every machine.
#
# **After this notebook you can**
#
# - explain why a word's ids can be cached, and what gguftok's cache keeps and drops;
# - write a least-recently-used (LRU) cache whose every call is one dictionary step, and put it in front of
#   an encoder, in your own `mytok/cache.py`;
# - count what a cache saves on a text, in merge-queue pops and in hits and misses;
# - read a hit-rate curve, and name the ceiling that no cache size can pass.

# %%
from collections import OrderedDict

from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.exercises import workspace
from gguftok.models.bpe import DEFAULT_CACHE_SIZE, merge_word
from gguftok.viz.cache_view import (
    LESSON_LINE,
    LESSON_WORDS,
    cache_explorer,
    cache_states,
    frequency_view,
    hit_rate_figure,
    hit_rate_view,
    lesson_text,
    lesson_tokenizer,
    plain_words,
    pops,
    simulate_lru,
    step_counts,
    step_counts_view,
    workbook_text,
)

qwen2 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf")

# %% [markdown]
# ## The cache in gguftok
#
# The BPE model (`BPEModel` in `gguftok/models/bpe.py`) keeps an `OrderedDict` from each word, as written in
# the text, to its ids. A hit moves the word to the recent end and returns the stored ids; a miss runs the
# merge queue, stores the result and, once the dictionary holds more than `cache_size` entries, drops the
# word used **least recently** (an LRU cache). The size bounds the memory however long the document:
# `Tokenizer.from_gguf(path, cache_size=N)` chooses it, 0 turns the cache off, and the default is printed
# below. Here is a cache of four words after one sentence:

# %%
print(f"default cache_size: {DEFAULT_CACHE_SIZE:,} words")
small = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf", cache_size=4)
print("after loading:", list(small.model._cache))
sentence = "the cat sat on the mat, and the cat slept"
small.encode(sentence)
print("words:", plain_words(small, sentence))
for word, ids in small.model._cache.items():
    print(f"{word!r:>10} -> {ids}")
run = simulate_lru(["Ċ", *plain_words(small, sentence)], 4)
print(f"{run.hits} hit, {run.misses} misses")

# %% [markdown]
# Four entries, oldest first: the four words used most recently. The one hit is the second ` the`, three
# words after the first; the second ` cat` missed, because newer words had pushed it out, and was encoded
# again. The `'\n'` before the sentence is there because loading encodes a newline once, to find its
# token, as llama.cpp does.
#
# ## Least recently used, one call at a time
#
# A cache with a capacity answers two calls:
#
# - **get(word)**: if the word is there (a *hit*), return its ids and mark it as the most recently used;
#   if not (a *miss*), say so (`None`).
# - **put(word, ids)**: store the ids as the most recently used entry; if that makes one entry too many,
#   drop the least recently used one.
#
# A tokenizer calls `get` for every word and, on a miss, encodes the word and calls `put`. Keeping the
# entries *in order of use* is all the bookkeeping there is, and `collections.OrderedDict` does it:
# `move_to_end(key)` makes a key the newest and `popitem(last=False)` removes the oldest. Five words, capacity
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
# The second `the` is a hit and moves to the newest end, so when `sat` comes in it is `cat` that goes, and the
# last `cat` misses. With first-in-first-out, `the` would have gone instead, although it had just been used.
#
# ### Why a dictionary, and not a list
#
# A list in order of use would follow the same rule, but Python finds a word in a list by comparing it with
# the entries one by one, from the start. A dictionary computes the word's hash and goes straight to its slot:
# about one comparison, however many entries there are. Keys that count the comparisons made on them show it:

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
# 9,001 comparisons against one, for a single lookup; a tokenizer makes one per word of every text. The check
# of your cache makes the same measurement and fails a cache that searches its entries one by one.
#
# ## Now write it: `mytok/cache.py`
#
# Open [`mytok/cache.py`](mytok/cache.py), your package's module for this stage. It has two things to write,
# each with its check in the exercises below: the class `LRUCache(capacity)` (`get`, `put`, `keys()` least
# recently used first, `len()`, and the counters `hits` and `misses` of the `get` calls), and
# `encode_words(words, encode, cache)`, the tokenizer's loop around it. Notebook 12's tokenizer puts your
# `LRUCache` in front of your merge queue. The cell below runs the sentence above through your class beside
# `simulate_lru` (which replays gguftok's policy on a list of words); it reads your file afresh each time.

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
# ## One line of code, fifty times
#
# A text made to repeat: one line of code 50 times, and a vocabulary whose merges spell eight snippets of code
# letter by letter (`Ġ r`, `Ġr e`, `Ġre t`, ...), written to a small GGUF file by `lesson_tokenizer` (with
# `gguftok.synthetic.byte_level_vocab`). A word's cost is the number of pops of its merge queue
# (`merge_word(word, ranks, trace=steps)`, then `len(steps)`); the table counts them encoding every word
# afresh, then with a cache:

# %%
print(LESSON_WORDS)
print(repr(LESSON_LINE), "x 50")
lesson = lesson_tokenizer(pre="gpt-2")
print("pops per distinct word:", ", ".join(f"{w} {pops(w, lesson.model.ranks)}"
                                           for w in dict.fromkeys(plain_words(lesson, LESSON_LINE))))
step_counts_view([("eight-word vocabulary", step_counts(lesson, lesson_text()))])

# %% [markdown]
# 851 words cost **1,747 pops without a cache and 19 with one**: 841 of them are hits, and only the first
# occurrence of each of the 10 distinct words runs the queue (3 for `Ġint`, 5 for `Ġvalue`, 6 for
# `Ġreturn`, 2 for `Ġ+=`, 1 each for `Ġi`, `Ġ=`, `Ġ0`), about 92 times less work. Each word becomes one token
# except the very first, `int`: with no space in front it is not `Ġint`, the only form the merges build, so
# it stays three one-letter tokens (853 tokens in all).
#
# Your `encode_words` can make the same count: give it an `encode` that runs the merge queue and adds up its
# pops, and your cache; the ids must be those of the whole tokenizer.

# %%
spent = [0]


def encode_counting(word):
    """The eight-word vocabulary's ids for one (spelled) word, adding its queue pops to ``spent``."""
    steps = []
    symbols = merge_word(word, lesson.model.ranks, trace=steps)
    spent[0] += len(steps)
    return lesson.model.symbol_ids(symbols)


try:
    mine = workspace.load("cache")
    cache = mine.LRUCache(DEFAULT_CACHE_SIZE)
    ids = mine.encode_words(plain_words(lesson, lesson_text()), encode_counting, cache)
    print(f"{spent[0]:,} pops, {cache.hits:,} hits, {cache.misses:,} misses, {len(ids):,} ids; "
          f"the same ids as the tokenizer: {ids == lesson.encode(lesson_text(), add_special=False)}")
except NotImplementedError:
    print("encode_words or LRUCache is not written yet in mytok/cache.py")

# %% [markdown]
# ## Real text: how often does a word come back?
#
# A repeated line is the best case. For real prose, take this workbook's own: the markdown of notebooks 01
# to 06 (up to their exercises, as a copy kept in `data/corpus`), cut into words by Qwen2. Its most
# frequent words, and the hit rate of an LRU cache of each size replayed through `simulate_lru`:

# %%
prose = plain_words(qwen2, workbook_text("markdown"))
code = plain_words(qwen2, workbook_text("code"))
frequency_view(prose, top=10)

# %%
hit_rate_view(prose)

# %% tags=["nbval-ignore-output"]
hit_rate_figure({"notebook prose": prose, "notebook code": code});

# %% [markdown]
# Zipf's law in miniature: the top few words are each a few percent of all words, and many distinct words
# occur exactly once (the line under the first table counts them). A cache can never help a word the first
# time it appears, so the curves flatten against the dashed line, the unbounded cache, whose misses are
# exactly the first occurrences: that is the ceiling on what any cache can save. A cache of a few hundred
# words already catches most of what can be caught here. The code cells (the figure's second line) repeat
# even sooner: the same names and punctuation within a few lines.
#
# ## Explore: cache size, hit rate, and who stays
#
# Drag the slider to choose a cache size (the label maps slider positions to sizes). Each view shows the hit
# rate on the notebook prose and its most frequent words, each marked **cached** (green) if it is still in the
# cache after the last word, or **evicted** (orange) if the least-recently-used rule pushed it out. Every view
# is drawn before the widget appears, so moving the slider needs no running kernel.

# %% tags=["nbval-ignore-output"]
cache_explorer(prose)

# %% [markdown]
# The same views for three sizes, as they stand without a kernel:

# %%
cache_states(prose, (4, 64, 1024))

# %% [markdown]
# The marks are a snapshot after the last word. With 4 entries nearly every word has been pushed out, even
# the most frequent, which come back every few dozen words; with 64 most of the common words stay, though a
# word last used more than 64 distinct words back is out at that moment; with 1,024 they all stay.

# %% [markdown]
# ## Exercises
#
# This notebook's stage is [`mytok/cache.py`](mytok/cache.py): write the body of each function named below there, save, and
# run its check (notebook 00, *How the exercises work*, says what a check does).

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
# The check replays 4 short scripts, 150 random ones and Qwen2's own lookups for two
# sentences through your class and an independent `OrderedDict` cache, comparing after every call
# what it returned, `hits`, `misses`, `len` and `keys()` (`case_args("10.LRUCache", n)` gives the
# calls of case `n`). Then it fills a cache with 512 words and makes 1,500 gets and puts with keys
# that count each `==` and `hash()` done on them: more than 20 per call on average means the entries
# are being searched one by one.
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
# characters' code points) and a cache of its own (not your class, so this check does not depend on
# the one above), and compares `(ids, words encoded, hits, misses, keys at the end)`: a first
# difference at index 1 is about the words your function encoded. Cases: 3 small ones, 120
# random word lists and Qwen2's words for three copies of the line of code in this notebook.
#
# Write it in [`mytok/cache.py`](mytok/cache.py).

# %%
check("10.encode_words")

# %% [markdown]
# ## Recap
#
# - BPE encodes each word on its own, so a word's ids can be stored and reused: that is the word cache.
# - It pays because words repeat (Zipf's law). The first occurrence of every word is a miss whatever the
#   size, which puts a ceiling on the hit rate; on this workbook's prose a cache of about a thousand words
#   comes close to it.
# - An LRU cache keeps its entries in order of use: a hit moves the word to the newest end, a new word goes
#   in there, and past the capacity the oldest goes. An `OrderedDict` does each step in one dictionary
#   operation; a list compares the word with every entry before it.
# - gguftok's `BPEModel` keeps word -> ids for 32,768 words by default (`cache_size=N`, 0 for none).
# - On one line of code repeated 50 times, the cache cuts 1,747 merge-queue pops to 19.

# %% [markdown]
# ## Self-check
#
# 1. Why may a word's ids be stored once and reused wherever the word turns up again?
#
#    <details><summary>Answer</summary>BPE encodes each word the pre-tokenizer cuts on its own: merges never
#    cross a word's border, so the ids depend only on the word and the vocabulary, never on its neighbours or
#    its place in the text.</details>
#
# 2. An LRU cache of capacity 2 sees the words `a b a c b`. Which lookups hit, and what does it hold at the
#    end?
#
#    <details><summary>Answer</summary>Only the second <code>a</code> hits (1 hit, 4 misses). <code>c</code> evicts <code>b</code> (the least
#    recently used, since <code>a</code> was just used), and the last <code>b</code> then evicts <code>a</code>: the cache ends holding <code>c</code>,
#    <code>b</code>, oldest first.</details>
#
# 3. Why does no cache size push the hit rate above the dashed line of the figure?
#
#    <details><summary>Answer</summary>The dashed line is an unbounded cache, which misses only the first
#    occurrence of each word. Every cache misses those too, whatever its size; a bounded one also misses words
#    it has evicted.</details>
#
# 4. Your `LRUCache` gives the right answer on every case, but its check says each call costs hundreds of
#    key comparisons. What is it doing, and what is the fix?
#
#    <details><summary>Answer</summary>It looks keys up in a list (or in a list made from the keys), which
#    compares the key with the entries one by one. Keep the entries in an <code>OrderedDict</code>: <code>in</code> and <code>[]</code> hash the
#    key, <code>move_to_end</code> marks a hit, <code>popitem(last=False)</code> drops the oldest.</details>

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# ## Going deeper
#
# The engine side of the cache: why it keeps words as written, why its default is 32,768 words, the three
# details that decide the count of pops above, the code cells' own words, where the time saved is measured,
# and what may be kept on disk between two runs.

# %% [markdown]
# ### Words as written, not spelled
#
# `BPEModel` looks words up as written in the text (` cat`), not as the merges spell them (`Ġcat`, notebook
# 02): a miss is rare once the cache is warm, and spelling every word (byte-level encoding, then cutting into
# words again) cost a quarter to a third of the time of a warm encode of English prose or C++, where
# spelling only the misses costs next to nothing. `simulate_lru` replays the spelled words instead; the
# spelling is one-to-one (`BPEModel.unspell` undoes it), so the hits and misses are the same, and it ends
# with the same cache contents as `BPEModel` itself:

# %%
print(list(run.cache) == [small.model.spell(w) for w in small.model._cache])
for word in small.model._cache:
    print(f"{word!r:>10} spelled {small.model.spell(word)!r}")

# %% [markdown]
# ### Why 32,768 words by default
#
# A word costs about three hundred bytes in the cache (measured on Qwen2), so the default bounds it at about
# 10 MB. A smaller size, 10,000 words, is what Hugging Face tokenizers use, and it is too few for a page of
# many scripts. The benchmark's multilingual text (`bench/texts.py`: a megabyte from the fuzzer's seeded
# generator) has more distinct words than that, so a second pass over it, which an unbounded cache would
# answer from memory, still misses nearly every word. (For a text the size of this workbook's prose, 10,000
# words is as good as unbounded: its distinct words all fit. A cache starts to evict only on long documents
# with many words of their own, which is when the bound on memory matters.) Even 32,768 can be too few for a
# text read twice: so the default cache doubles, up to four times its size, when the words it evicted come
# back, while a `cache_size` you choose stays a fixed bound.

# %%
import random  # noqa: E402

from gguftok.conformance.generate import Generators  # noqa: E402

many_scripts = plain_words(qwen2, Generators([], []).long_text(random.Random(7), 1_000_000))
print(f"{len(many_scripts):,} words, {len(set(many_scripts)):,} distinct")
for size in (10_000, DEFAULT_CACHE_SIZE):
    first, both = simulate_lru(many_scripts, size), simulate_lru(many_scripts * 2, size)
    print(f"cache of {size:>6,}: first pass {first.misses:,} misses, second pass {both.misses - first.misses:,}")

# %% [markdown]
# ### What decides the count of pops
#
# Three details decide the count above (1,747 pops without a cache, 19 with one): the split, the merge
# table, and what counts as a pop. Here are the merge table, two variations of the count, and a real word's
# pops against its merges:

# %%
print(lesson.model.ranks)
steps = []
merge_word("Ġtokenization", qwen2.model.ranks, trace=steps)
print(f"Qwen2's ' tokenization': {len(steps)} pops, {sum(s.merged for s in steps)} merges")
step_counts_view([("eight-word vocabulary, Qwen2 split", step_counts(lesson_tokenizer(pre="qwen2"), lesson_text())),
                  ("byte-level-286.gguf", step_counts(Tokenizer.from_gguf("../data/synthetic/byte-level-286.gguf"),
                                                      lesson_text()))])

# %% [markdown]
# - **The split.** The example cuts words with the pattern `` ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)``,
#   GPT-2's pre-tokenizer without its contractions and its final `\s+`; on this text neither can match, so
#   `pre="gpt-2"` gives the same words. Qwen2's pre-tokenizer (the `pre` that `byte_level_vocab` writes by
#   default) makes a digit a word of its own, with no leading space, so ` 0` becomes the two words ` ` and
#   `0`: 2 more words per line (951 in all), and the merge `Ġ 0` never gets a pair to act on, 2 pops fewer per
#   line: **1,647** without the cache, **18** with it.
# - **The merge table.** `byte-level-286.gguf` spells `Hello`, ` world`, ` cat`, ` the`, `user` and
#   `assistant`, none of which occur in the text, so no merge ever applies: 0 pops either way, and every
#   character is its own token (2,600 tokens). Its split is Qwen2's, hence 951 words.
# - **What a pop is.** A loop that rebuilds its queue after every merge pops only merges. `merge_word` keeps
#   its queue and skips stale entries (notebook 05), which also count as pops. This table builds each word
#   strictly left to right, so no entry ever goes stale and the two counts agree; on real vocabularies they
#   do not (` tokenization` in Qwen2 takes 21 pops for 11 merges).

# %% [markdown]
# ### The code cells' words
#
# The second line of the hit-rate figure: the code cells of the same notebooks. Names, quotes, commas and
# indentation lead; the sample is much shorter than the prose, which leaves less room for repeats.

# %%
frequency_view(code, top=10)

# %% [markdown]
# ### A hit rate is not a speed-up
#
# A hit still costs a dictionary lookup, and a miss costs a merge queue whose length depends on the word. How
# much time the cache saves is measured in `bench/bench_encode.py`, which encodes the same text cold (empty
# cache) and warm and compares both with llama.cpp. Timings belong there, not in a notebook cell: they change
# from run to run and from machine to machine.

# %% [markdown]
# ### What may outlive the process, and what may not
#
# The cache starts empty with every new tokenizer, so the first prompt a program encodes pays a merge loop for
# each of its words. Many of those words are whole tokens, and for almost every token, merging its own text
# gives that token back: in Qwen2 all but 293 of 151,936. That is a fact about the vocabulary alone, so it can
# be found once and kept on disk: `Tokenizer.prepare()` merges every token's text (a few seconds), keeps the ids
# of the few that come apart, and every later load of the same vocabulary reads them back. A new word that is
# a token, and not one of those few, then costs one lookup instead of a merge loop, with the same ids.
#
# The word cache itself is never written to disk, and should not be: it holds the words of every text the
# tokenizer has seen, which are the user's prompts. The prepared table holds only token ids of the vocabulary.
