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
# # 05 · Encoding one word: the merge queue
#
# After the pre-tokenizer (notebook 04) has cut the text into words, each word is encoded on its own. The
# rule is short: write the word as one symbol per character (for byte-level BPE, one character per byte,
# notebook 02), then keep joining the pair of neighbours whose merge comes earliest in
# `tokenizer.ggml.merges`, until no pair of neighbours is in the list. Each symbol left over is then
# looked up as a token.
#
# Written literally, that rule scans every pair of neighbours before every merge: for a word of `n`
# characters, up to `n` merges times up to `n` pairs. llama.cpp does less work. It puts every pair that
# has a rank into a **priority queue** (a heap, which hands out its smallest entry first), ordered by rank
# and, on equal ranks, by position, leftmost first. The symbols sit in a linked list, so a merge touches
# only its two neighbours. Popping an entry merges its pair, and the two new pairs that the merged symbol
# forms with its neighbours go into the queue.
#
# There is one catch, and it is the subject of this notebook: an entry can wait in the queue while its pair
# disappears under it. Rather than hunting such entries down, llama.cpp checks each entry when it comes
# out and skips it if its pair is gone. `gguftok.models.bpe.merge_word` is that loop; given a list, it also
# records every pop as a `MergeStep`. The views below are drawn from those records, so they show exactly
# what the tokenizer did. After them you write the same loop in your own package, `mytok/merge_queue.py`,
# with the lookup that turns a word's symbols into token ids, and watch your queue beside this one.

# %%
from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.models.bpe import BPEModel, merge_ranks, merge_word
from gguftok.viz.queue_view import (
    beside_frames,
    beside_table,
    frames_text,
    merge_log,
    queue_cost,
    queue_frames,
    queue_player,
    trace_frames,
    trace_table,
    whole_word_view,
)

TOY = merge_ranks(["e r", "l o", "lo w", "low er", "e s", "es t", "low est", "n e", "w er"])
qwen2 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf")
llama3 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-llama-bpe.gguf")

# %% [markdown]
# ## Nine merges and three words
#
# `TOY` is a merge table of nine lines, in priority order: `e r` has rank 0, `l o` rank 1, and so on up
# to `w er` with rank 8. `merge_ranks` turns the list into a dictionary from the merge line to its rank,
# as llama.cpp does when it loads the file. Below, each word starts with the pairs of neighbouring letters
# that have a rank, and each line after it is one pop of the queue.
#
# These lines come from `merge_word`'s own trace: each is one thing the loop did.

# %%
merge_log(["lower", "lowest", "newer"], TOY)

# %% [markdown]
# Three things to read in it:
#
# - **Rank order, not reading order.** In `lower` the last two letters join first (`e r`, rank 0), then
#   the first two. Where the word is does not matter, only where the merge sits in the list.
# - **A merge makes new candidates.** Merging `e r` puts `w er` (rank 8) in the queue, because `w` and
#   `er` are now neighbours. Merging `lo w` later puts `low er` (rank 3) in.
# - **Stale entries.** By the time `w er` comes out, `w` has been swallowed by `low`: the pair it describes
#   is gone. The loop notices because the two symbols now at those positions no longer spell `wer`, and
#   it skips the entry. In `newer` the same entry is still valid and does merge, and since the table has no
#   `ne wer`, the word ends as two symbols, `ne` and `wer`.

# %% [markdown]
# ## Step by step
#
# Press play, or drag the slider. Frame 0 is the word before the first pop; every later frame shows the
# entry just popped (green if it merged, grey, struck through and marked *skipped* if it was stale), the
# symbols after it (the one just made has a thicker border and the mark *new*), and the queue in the order
# it will be popped, each entry as `r<rank> left+right`. An entry whose pair is already gone is struck
# through and labelled *stale* while it is still waiting. All frames are drawn before the widget appears,
# and the buttons are linked in the browser, so stepping needs no running kernel.

# %% tags=["nbval-ignore-output"]
queue_player(queue_frames("lower", TOY))

# %% [markdown]
# The same frames as text. A `*` marks the symbol just made.

# %%
frames_text(queue_frames("lower", TOY))

# %% [markdown]
# Why not delete `w er` from the queue the moment `w` disappears? A heap can only hand out its smallest
# entry cheaply; finding an arbitrary entry means searching all of it. Leaving the entry where it is and
# checking it on the way out costs one string comparison. In llama.cpp's `src/llama-vocab.cpp` (the copy
# in the pinned llama-cpp-python 0.3.36 sources) that check is the line that compares `left_token +
# right_token` with the entry's text, and the queue's order is `llm_bigram_bpe::comparator`: rank, then
# left position. `merge_word` does the same two things.

# %% [markdown]
# ## A real word: ` tokenization` in Qwen2
#
# Qwen2's table has 151,387 merges. The word ` tokenization` reaches the merge step as `Ġtokenization`
# (the space is the byte-level character `Ġ`), 13 characters. `Tokenizer.trace` runs the same code as
# `encode` and keeps each word's steps: 21 pops, of which 10 were stale, to make 11 merges. The word is
# not a token of its own, so it ends as two tokens.

# %%
trace_table(qwen2, qwen2.trace(" tokenization"))

# %% tags=["nbval-ignore-output"]
tokenization = trace_frames(qwen2, qwen2.trace(" tokenization")[0])
queue_player(tokenization)

# %% [markdown]
# Five of its 22 frames as text: the start, the first two pops, a stale pop in the middle, and the end.
# The queue shows its first six ranks; identical entries would be shown once with a count.

# %%
frames_text(tokenization, [0, 1, 2, 10, 21])

# %% [markdown]
# Almost half of the pops were stale. That is normal: every merge can leave behind up to two entries that
# described the old symbols, and skipping each one costs almost nothing.

# %% [markdown]
# ## Llama 3: a word that is a token skips the queue
#
# Some pre-tokenizers, Llama 3's among them, set llama.cpp's `ignore_merges`: before any merging, the whole
# word is looked up in the vocabulary, and if it is there it becomes that one token, with no queue at all.
# This is not only a shortcut. Here are the same four words through both vocabularies:

# %%
trace_table(qwen2, qwen2.trace(" Insecta and Arthropoda tokenization"))

# %%
trace_table(llama3, llama3.trace(" Insecta and Arthropoda tokenization"))

# %% [markdown]
# Qwen2 has no such rule, so every word goes through the queue: 11 pops for `ĠInsecta`, which ends as
# three tokens. In Llama 3, `ĠInsecta`, `Ġand` and `ĠArthropoda` are tokens of their own, so each is one
# id and zero pops. `Ġtokenization` is not a token in Llama 3 either, so it goes through the queue
# (22 pops with Llama 3's table, 11 of them stale).
#
# Llama 3's own merges would not have rebuilt `ĠInsecta`: they stop at three pieces. So the whole-word
# rule changes the ids, and a tokenizer that forgets it gives three ids where llama.cpp gives one:

# %%
whole_word_view(llama3, "ĠInsecta")

# %% [markdown]
# For such a word, the step-through view has a single frame:

# %%
frames_text(trace_frames(llama3, llama3.trace(" Insecta")[0]))

# %% [markdown]
# ## From symbols to ids, and a symbol that is not a token
#
# When the queue is empty, each symbol left is looked up in the vocabulary and gives its id. In a real
# byte-level vocabulary the lookup practically always succeeds: every merge's result is a token, and so is
# every single character of the byte-level alphabet. But nothing in the file guarantees it, and llama.cpp
# (`llm_tokenizer_bpe_session::tokenize` in `src/llama-vocab.cpp`) has a rule for a symbol that is not a
# token: it takes the symbol's UTF-8 bytes one by one and looks each up as a **one-byte string**. A byte
# that has no such token is **dropped**, without an error.
#
# Two toy vocabularies show both outcomes. `TOY_IDS` has every letter and most of what `TOY` merges
# make, but not `ne`; `CAFE` spells ` café` in the byte-level alphabet (`ĠcafÃ©`, notebook 02), and its
# merges make `Ã©`, which `CAFE_IDS` lacks. `BPEModel` is gguftok's BPE model; `symbol_ids` is this last
# step.

# %%
TOY_IDS = {s: i for i, s in enumerate(["e", "l", "n", "o", "r", "s", "t", "w", "er", "lo", "low", "lower", "es",
                                       "est", "lowest", "wer"])}
CAFE = merge_ranks(["c a", "ca f", "Ġ caf", "Ã ©"])
CAFE_IDS = {s: i for i, s in enumerate(["Ġ", "a", "c", "f", "Ã", "©", "ca", "caf", "Ġcaf"])}

for word, ranks, ids in (("newer", TOY, TOY_IDS), ("ĠcafÃ©", CAFE, CAFE_IDS)):
    symbols = merge_word(word, ranks)
    missing = [s for s in symbols if s not in ids]
    print(f"{word}: symbols {symbols}, not tokens {missing} (bytes {[s.encode() for s in missing]}), "
          f"ids {BPEModel(ids, list(ranks)).symbol_ids(symbols)}")

# %% [markdown]
# `ne` is not a token, but its bytes are the ASCII letters `n` and `e`, one-byte strings that are tokens:
# `newer` gives the ids of `n`, `e` and `wer`. `Ã©` is not a token either, and its four bytes are all
# 0x80 or above; a byte like that is not a character on its own, so no token of a byte-level vocabulary
# is that one-byte string, and the `é` disappears: ` café` gives the single id of `Ġcaf`. (The byte-level
# character for the byte, `Ã` for 0xC3, is a token here, but llama.cpp does not look for it.)
#
# Put together, one word's ids are: the whole word's id if the vocabulary sets `ignore_merges` and the
# word is a token; otherwise the merges, then each symbol's id, or its bytes' one-byte tokens.

# %% [markdown]
# ## Why the queue is worth it
#
# Count the work rather than time it. Each merge removes one symbol, so a word of `n` characters has at
# most `n - 1` merges. The queue starts with at most `n - 1` entries and each merge adds at most two, so
# there are at most `3n` pops in all, stale ones included, and each push or pop of a heap of that size
# costs about `log n`. That is `n log n` for the word. The rescanning loop looks at every pair of
# neighbours before each merge, about `n²/2` lookups when most characters merge.
#
# The table uses Qwen2's merges on two kinds of long word: `'a'*n`, where almost everything merges (Qwen2
# has tokens for runs of `a`), and `n` random lowercase letters (fixed seed). The last column is what the
# rescanning loop would have looked up to make the same merges.

# %%
queue_cost(qwen2.model.ranks)

# %% [markdown]
# The pops grow in step with `n` (about 2.2 per character for the run of `a`, 1.05 for random letters),
# while the rescanning loop's lookups grow a hundredfold for each tenfold longer word: 491,874 lookups
# against 2,246 pops at `n = 1000`.
#
# The figure measures it. On the left, the same counts up to 1,024 characters (a traced run keeps a copy of
# the queue at every pop, so longer words are only timed); on the right, the time of one untraced
# `merge_word` up to 4,096 characters, with an `n log n` curve for comparison. The times depend on the
# machine and change from run to run; the slope is the point.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.queue_view import queue_cost_figure  # noqa: E402

queue_cost_figure(qwen2.model.ranks);

# %% [markdown]
# ## Now write it: `mytok/merge_queue.py`
#
# Open [`mytok/merge_queue.py`](mytok/merge_queue.py), your package's module for this stage. It has three
# functions to write, each with its check at the end of this notebook:
#
# - `lowest_pair(symbols, ranks)`: one step of the rule as first stated, the position of the pair that
#   merges next;
# - `merge_word(word, ranks)`: the queue, with `heapq`, skipping stale entries. Its check does not only
#   compare answers: it counts your lookups in `ranks` and your comparisons of ranks on long words, so a
#   loop that scans every pair again after each merge gives the right symbols and still does not pass;
# - `word_ids(word, ranks, token_ids, ignore_merges)`: the word's ids, put together as the section on
#   symbols and ids above says, with your `merge_word` doing the merges.
#
# `merge_word` also takes an optional keyword, `trace`. When it is a list, append one tuple
# `(rank, position, left, right, merged)` for each entry you pop: the entry itself (`position` is where
# `left` starts in the word) and `False` for `merged` if it was stale and skipped. The two cells below then
# replay your pops beside gguftok's and mark the first pop where they part. They read your file afresh
# each time they run; until your `merge_word` runs, they say what is missing.

# %%
beside_table("lower", TOY)

# %% tags=["nbval-ignore-output"]
queue_player(beside_frames("Ġtokenization", qwen2.model.ranks))

# %% [markdown]
# ## What you can now explain
#
# - The merge loop: lowest rank first, leftmost first on equal ranks, until no pair of neighbours has a
#   rank; then each symbol is looked up as a token.
# - Why a merge puts new pairs in the queue, and why old entries can go stale: the toy table's `w er` is
#   skipped in `lower` and merged in `newer`.
# - Why stale entries are skipped on the way out instead of removed: a heap cannot find them cheaply, and
#   a string comparison tells whether the pair still exists.
# - `ignore_merges`: in Llama 3 a word that is a token is one id without any merging, and that can give
#   different ids from merging (`ĠInsecta`: one id, not three).
# - What a symbol that is not a token becomes: one token per byte, each byte looked up as a one-byte
#   string, and a byte without one dropped (`ĠcafÃ©` loses its `é`).
# - Why the queue makes a word cost about `n log n`: at most `3n` pops of a heap of at most `3n` entries,
#   against the `n²` of rescanning.

# %% [markdown]
# ## Exercises
#
# Your own tokenizer lives in `mytok/`, a package of yours beside these notebooks, one module per
# stage. This notebook's stage is [`mytok/merge_queue.py`](mytok/merge_queue.py):
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
# ### Exercise 05.lowest_pair: which pair merges next
#
# One step of BPE: among all pairs of neighbouring symbols that have a rank, the one with the **lowest
# rank** merges next, and on equal ranks the **leftmost**. Write `lowest_pair(symbols, ranks)` that returns
# the position `k` of that pair (it joins `symbols[k]` and `symbols[k + 1]`), or `None` when no pair
# has a rank. `ranks` is a table like `merge_ranks` makes: `"left right"` -> rank.
#
# Equal ranks happen when the same pair occurs twice (`a a a`). The check uses the toy table `TOY` of
# this notebook and 200 random symbol lists with random tables; the expected answers come from a
# plain scan over all pairs written in `gguftok.exercises.lesson05`.
#
# Write it in [`mytok/merge_queue.py`](mytok/merge_queue.py).

# %%
check("05.lowest_pair")

# %% [markdown]
# ### Exercise 05.merge_word: merge a word with a priority queue
#
# Write `merge_word(word, ranks)`: start from one symbol per character and merge until no neighbouring
# pair has a rank, always the lowest rank first and the leftmost on ties, and return the symbols left.
# Calling your `lowest_pair` in a loop gives the right answer but scans the whole word again after every
# merge; do it the way this notebook shows instead, with `heapq`:
#
# - push `(rank, position, left, right)` for every neighbouring pair with a rank;
# - keep the symbols in a list where a merged-away symbol becomes `""`, with the index of each
#   symbol's live neighbours (or search for the next non-empty entry);
# - pop; skip the entry if the two symbols now at its positions are not its `left` and `right` (stale);
#   otherwise merge them and push the new pairs the merged symbol makes with its neighbours.
#
# The answers are checked on this notebook's three words, 200 random words with random tables, Qwen2's
# ranks on the words of a real sentence, and `'a' * 300`, against `gguftok.models.bpe.merge_word`.
# Then the cost: on words of 500 and 2,000 characters (`'a' * n` and random letters with
# Qwen2's ranks, and two made-up tables), the check counts every lookup of a pair in `ranks` and every
# comparison of two ranks. The longer word may take at most **6 times** the work of the shorter:
# a queue takes about 4 to 4.5 times (`n log n`), a loop that scans every pair again after each merge
# 16 times (`n²`).
#
# The keyword `trace` is optional: when it is a list, append `(rank, position, left, right, merged)`
# for each pop (`position` is where `left` starts in the word, `merged` is `False` for a stale entry
# skipped), and the player in this notebook shows your pops beside gguftok's. The check never passes it.
#
# Write it in [`mytok/merge_queue.py`](mytok/merge_queue.py).

# %%
check("05.merge_word")

# %% [markdown]
# ### Exercise 05.word_ids: the token ids of one word
#
# Write `word_ids(word, ranks, token_ids, ignore_merges)`, the whole of what llama.cpp's BPE does with
# one word of the pre-tokenizer (already in the byte-level alphabet, `"ĠInsecta"`):
#
# 1. if `ignore_merges` is true and the whole word is a token, its id is the answer, with no merging
#    (Llama 3 sets it);
# 2. otherwise merge the word with your `merge_word`;
# 3. each symbol left that is a token gives its id. A symbol that is **not** a token gives one id per
#    byte of its UTF-8 text, looking each byte `b` up as the one-byte string `bytes([b])`, and a byte
#    with no such token is **dropped**, without an error. As text that string is `chr(b)` for ASCII; a
#    byte of 0x80 or more alone is not UTF-8 (as text, `bytes([b]).decode("utf-8",
#    "surrogateescape")`), and a byte-level vocabulary has no such token, so those bytes are lost.
#
# Real byte-level vocabularies rarely get to step 3, but a table whose merges make a symbol it does not
# list does: this notebook's `CAFE` makes `Ã©`, which `CAFE_IDS` lacks, and `TOY` makes `ne`, which
# `TOY_IDS` lacks. The check uses those toy tables, 200 random tables over `a`, `b`, `Ġ`, `Ã` and `©`
# whose vocabularies miss about a quarter of the symbols, and the words of a real sentence with Llama 3
# (`ignore_merges` true) and with Qwen2 (false), against gguftok's BPE model.
#
# Write it in [`mytok/merge_queue.py`](mytok/merge_queue.py).

# %%
check("05.word_ids")
