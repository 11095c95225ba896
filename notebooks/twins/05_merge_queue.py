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
# After the pre-tokenizer (notebook 04) has cut the text into words, BPE encodes each word on its own: one
# symbol per character (for byte-level BPE, one per byte, notebook 02), then keep joining the pair of
# neighbours whose merge comes earliest in `tokenizer.ggml.merges`, until no pair of neighbours is in the
# list. Done literally, that rescans every pair before every merge. llama.cpp keeps the pairs in a **priority
# queue** (a heap, which hands out its smallest entry first), and a merge touches only its neighbours. The
# price is one subtlety, the subject of this notebook: an entry can go stale while it waits.
#
# After this notebook you can:
#
# - run the merge loop on a word by hand, lowest rank first;
# - say why queue entries go stale, and why llama.cpp skips them instead of removing them;
# - explain Llama 3's `ignore_merges`, and what becomes of a symbol that is not a token;
# - write the queue in `mytok/merge_queue.py`, at a cost of about `n log n` where rescanning costs `n²`.

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
# `TOY` is a merge table of nine lines in priority order: `e r` has rank 0, `l o` rank 1, ..., `w er` rank 8
# (`merge_ranks` maps each line to its rank, as llama.cpp does when it loads a file). Each word below starts
# with the queue of its neighbouring pairs that have a rank; each line after it is one pop, from the trace
# that `gguftok.models.bpe.merge_word` records.

# %%
merge_log(["lower", "lowest", "newer"], TOY)

# %% [markdown]
# - **Rank order, not reading order.** In `lower` the last two letters join first (`e r`, rank 0).
# - **A merge makes new candidates.** Merging `e r` puts `w er` (rank 8) in the queue, as `w` and `er` are now
#   neighbours; merging `lo w` later puts `low er` (rank 3) in.
# - **Stale entries.** When `w er` comes out of `lower`'s queue, `w` has been swallowed by `low`: the symbols
#   at its positions no longer spell `wer`, so the entry is skipped. In `newer` it is still valid and merges;
#   there is no `ne wer`, so the word ends as `ne` and `wer`.

# %% [markdown]
# ## Step by step
#
# Press play, or drag the slider. Each frame shows the entry just popped (green if it merged, struck through
# and *skipped* if stale), the symbols after it (the new one marked *new*), and the queue in pop order, each
# entry as `r<rank> left+right`.

# %% tags=["nbval-ignore-output"]
queue_player(queue_frames("lower", TOY))

# %% [markdown]
# The same frames without the widget: the start, the first merge, the merge that leaves `w er` stale, and the
# skip.

# %%
frames_text(queue_frames("lower", TOY), [0, 1, 3, 5])

# %% [markdown]
# Why not delete `w er` the moment `w` disappears? A heap hands out its smallest entry cheaply, but finding any
# other entry means searching all of it. Checking the entry on its way out costs one string comparison.

# %% [markdown]
# ## The queue in Python: `heapq`
#
# `heapq` keeps a plain list as a heap: `heappush` adds an entry, `heappop` takes out the smallest. Tuples
# compare item by item, so entries `(rank, position, left, right)` come out lowest rank first and, on equal
# ranks, leftmost first, as the rule asks:

# %%
import heapq  # noqa: E402

queue: list[tuple[int, int, str, str]] = []
for entry in [(8, 2, "w", "er"), (1, 5, "l", "o"), (0, 3, "e", "r"), (1, 0, "l", "o")]:
    heapq.heappush(queue, entry)
print([heapq.heappop(queue) for _ in range(len(queue))])

# %% [markdown]
# The whole loop, in words:
#
# 1. push `(rank, position, left, right)` for every neighbouring pair with a rank;
# 2. keep the symbols in a list where a merged-away symbol becomes `""`, and find each symbol's live
#    neighbours (an index of them, or a search for the next non-empty entry);
# 3. pop; if the two symbols now at the entry's position are not its `left` and `right`, skip it (stale);
# 4. otherwise merge them, and push the pairs the merged symbol makes with its new neighbours;
# 5. repeat until the queue is empty.
#
# `lower` again, one row per pop: the check of step 3 is the *stale* row.

# %%
merge_log(["lower"], TOY)

# %% [markdown]
# ## A real word: ` tokenization` in Qwen2
#
# Qwen2's merge table is rather longer than `TOY`:

# %%
print(f"Qwen2: {len(qwen2.model.ranks):,} merges")

# %% [markdown]
# ` tokenization` reaches the merge step as `Ġtokenization`, 13 characters. `Tokenizer.trace` runs the same
# code as `encode` and keeps each word's pops: 21, of which 10 were stale, to make 11 merges. The word is not
# a token, so it ends as two.

# %%
trace_table(qwen2, qwen2.trace(" tokenization"))

# %% tags=["nbval-ignore-output"]
tokenization = trace_frames(qwen2, qwen2.trace(" tokenization")[0])
queue_player(tokenization)

# %% [markdown]
# Five of its 22 frames without the widget: the start, the first two pops, a stale pop, and the end.

# %%
frames_text(tokenization, [0, 1, 2, 10, 21])

# %% [markdown]
# Almost half of the pops were stale, which is normal: every merge can leave behind up to two entries that
# described the old symbols, and skipping one costs almost nothing.

# %% [markdown]
# ## Llama 3: a word that is a token skips the queue
#
# Some pre-tokenizers, Llama 3's among them, set llama.cpp's `ignore_merges`: before any merging the whole
# word is looked up in the vocabulary, and if it is there it becomes that one token, with no queue at all.
# The same four words through both vocabularies:

# %%
trace_table(qwen2, qwen2.trace(" Insecta and Arthropoda tokenization"))

# %%
trace_table(llama3, llama3.trace(" Insecta and Arthropoda tokenization"))

# %% [markdown]
# Qwen2 sends every word through the queue (`ĠInsecta`: 11 pops, three tokens). In Llama 3, `ĠInsecta`,
# `Ġand` and `ĠArthropoda` are tokens, one id each after zero pops; `Ġtokenization` is not, so it is merged.
# This is not only a shortcut: Llama 3's own merges stop at three tokens for `ĠInsecta`, so a tokenizer that
# forgets the rule gives three ids where llama.cpp gives one:

# %%
whole_word_view(llama3, "ĠInsecta")

# %% [markdown]
# In the step-through view, such a word has a single frame:

# %%
frames_text(trace_frames(llama3, llama3.trace(" Insecta")[0]))

# %% [markdown]
# ## From symbols to ids, and a symbol that is not a token
#
# When the queue is empty, each symbol left is looked up in the vocabulary. In a real byte-level vocabulary
# that practically always succeeds (every merge's result is a token, and so is every byte-level character),
# but nothing in the file guarantees it. For a symbol that is not a token, llama.cpp looks up each of its
# UTF-8 bytes as a **one-byte string**, and a byte that has no such token is **dropped**, without an error.
#
# Two toy vocabularies show both outcomes: `TOY_IDS` lacks `ne`, which `TOY` makes; `CAFE` spells ` café` in
# the byte-level alphabet (`ĠcafÃ©`, notebook 02) and merges `Ã©`, which `CAFE_IDS` lacks. `symbol_ids` is
# this last step in gguftok's BPE model.

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
# The bytes of `ne` are `n` and `e`, which are tokens: `newer` gives the ids of `n`, `e` and `wer`. The four
# bytes of `Ã©` are all 0x80 or above, not characters on their own, so no byte-level token is such a
# one-byte string, and the `é` disappears: ` café` gives the single id of `Ġcaf`. (`Ã`, the byte-level
# character for 0xC3, is a token here, but llama.cpp does not look for it.)
#
# Put together, a word's ids are: the whole word's id if the vocabulary sets `ignore_merges` and the word is
# a token; otherwise the merges, then each symbol's id, or its bytes' one-byte tokens.

# %% [markdown]
# ## Why the queue is worth it
#
# Count the work. A word of `n` characters has at most `n - 1` merges. The queue starts with at most `n - 1`
# entries and each merge adds at most two, so there are at most `3n` pops, each costing about `log n`:
# `n log n` for the word. The rescanning loop looks at every pair before each merge, about `n²/2` lookups
# when most characters merge. Below, Qwen2's merges on `'a'*n` (Qwen2 has tokens for runs of `a`, so almost
# everything merges) and on `n` random letters; the last column is what rescanning would look up for the
# same merges.

# %%
queue_cost(qwen2.model.ranks)

# %% [markdown]
# The pops grow in step with `n` (2.25 per character for the run of `a` at `n = 1000`, 1.05 for random
# letters); rescanning grows a hundredfold for each tenfold longer word: 491,874 lookups against 2,246 pops.

# %% [markdown]
# ## Now write it: `mytok/merge_queue.py`
#
# Open [`mytok/merge_queue.py`](mytok/merge_queue.py): its three functions, stated under **Exercises**, are
# one step of the rule (`lowest_pair`), the queue (`merge_word`) and a word's ids (`word_ids`).
#
# `merge_word` also takes an optional keyword, `trace`. When it is a list, append one tuple
# `(rank, position, left, right, merged)` for each entry you pop (`position` is where `left` starts in the
# word; `merged` is `False` for a stale entry skipped). The cells below then replay your pops beside gguftok's
# and mark the first where they part, reading your file afresh each time.

# %%
beside_table("lower", TOY)

# %% tags=["nbval-ignore-output"]
queue_player(beside_frames("Ġtokenization", qwen2.model.ranks))

# %% [markdown]
# The player's first frame, without the widget:

# %%
beside_frames("Ġtokenization", qwen2.model.ranks)[0]

# %% [markdown]
# ## Exercises
#
# This notebook's stage is [`mytok/merge_queue.py`](mytok/merge_queue.py): write the body of each function named below there, save, and
# run its check (notebook 00, *How the exercises work*, says what a check does).

# %%
from gguftok.exercises import check, rerun  # noqa: E402

# %% [markdown]
# ### Exercise 05.lowest_pair: which pair merges next
#
# One step of BPE: among the pairs of neighbouring symbols that have a rank, the one with the **lowest
# rank** merges next, and on equal ranks (the same pair twice, `a a a`) the **leftmost**. Write
# `lowest_pair(symbols, ranks)`: the position `k` of that pair (it joins `symbols[k]` and
# `symbols[k + 1]`), or `None` when no pair has a rank. `ranks` maps `"left right"` to its rank, as
# `merge_ranks` makes it. The check uses `TOY` and random symbol lists with random tables, against a
# plain scan over all pairs (`gguftok.exercises.lesson05`).
#
# Write it in [`mytok/merge_queue.py`](mytok/merge_queue.py).

# %%
check("05.lowest_pair")

# %% [markdown]
# ### Exercise 05.merge_word: merge a word with a priority queue
#
# Write `merge_word(word, ranks)`: start from one symbol per character, merge the lowest rank first (the
# leftmost on ties) until no neighbouring pair has a rank, and return the symbols left. Calling your
# `lowest_pair` in a loop gives the right answer but scans the whole word again after every merge; use
# `heapq` as this notebook shows:
#
# - push `(rank, position, left, right)` for every neighbouring pair with a rank;
# - keep the symbols in a list where a merged-away symbol becomes `""`, with the index of each
#   symbol's live neighbours (or search for the next non-empty entry);
# - pop; skip the entry if the two symbols now at its positions are not its `left` and `right` (stale);
#   otherwise merge them and push the new pairs the merged symbol makes with its neighbours.
#
# The answers are checked against `gguftok.models.bpe.merge_word` on this notebook's words, random words
# and tables, and Qwen2's ranks on real words. Then the cost: on words of 500 and 2,000
# characters the check counts your lookups of pairs in `ranks` and comparisons of ranks; the longer
# word may take at most **6 times** the work of the shorter. A queue takes 4 to 5 times as much
# (`n log n`), rescanning 16 times (`n²`). The check never passes the optional `trace`.
#
# Write it in [`mytok/merge_queue.py`](mytok/merge_queue.py).

# %%
check("05.merge_word")

# %% [markdown]
# ### Exercise 05.word_ids: the token ids of one word
#
# Write `word_ids(word, ranks, token_ids, ignore_merges)`: what llama.cpp's BPE does with one word of the
# pre-tokenizer, already in the byte-level alphabet (`"ĠInsecta"`):
#
# 1. if `ignore_merges` is true and the whole word is a token, its id is the answer, with no merging;
# 2. otherwise merge the word with your `merge_word`;
# 3. each symbol left that is a token gives its id. A symbol that is **not** a token gives one id per
#    byte of its UTF-8 text, each byte `b` looked up as the one-byte string `bytes([b])` (as text,
#    `chr(b)` for ASCII; a byte of 0x80 or more alone is not UTF-8, and no byte-level token is that
#    string), and a byte with no such token is **dropped**, without an error.
#
# The check uses `TOY`/`TOY_IDS` and `CAFE`/`CAFE_IDS` from this notebook, random tables whose
# vocabularies miss about a quarter of the symbols, and real words with Llama 3 (`ignore_merges` true)
# and Qwen2 (false), against gguftok's BPE model.
#
# Write it in [`mytok/merge_queue.py`](mytok/merge_queue.py).

# %%
check("05.word_ids")

# %% [markdown]
# ## Recap
#
# - BPE merges the lowest-ranked pair of neighbours (the leftmost on equal ranks) until no pair has a rank,
#   then looks each symbol up as a token.
# - llama.cpp keeps the candidate pairs in a heap; a merge pushes the new pairs its symbol makes with its
#   neighbours.
# - An entry goes stale when one of its symbols is merged away, and is skipped when popped: a heap cannot find
#   it cheaply, and one string comparison tells.
# - With `ignore_merges` (Llama 3) a word that is a token is one id, which can differ from what the merges give.
# - A symbol that is not a token becomes its bytes' one-byte tokens; a byte without one is dropped.
# - At most `3n` pops: about `n log n` per word, against `n²` for rescanning.

# %% [markdown]
# ## Self-check
#
# 1. With `TOY`, why does `w er` merge in `newer` but go stale in `lower`?
#    <details><summary>Answer</summary>In <code>lower</code>, <code>lo w</code> (rank 2) comes out first and
#    swallows the <code>w</code>, so the popped entry no longer matches its symbols. In <code>newer</code> no
#    earlier merge takes the <code>w</code>.</details>
# 2. Why is a stale entry left in the heap rather than deleted when its pair disappears?
#    <details><summary>Answer</summary>A heap only hands out its smallest entry cheaply; finding any other
#    means searching all of it. Checking on the way out costs one string comparison.</details>
# 3. A Llama 3 tokenizer forgets `ignore_merges`. Is it only slower?
#    <details><summary>Answer</summary>No, it gives other ids: <code>ĠInsecta</code> is token 114843, but the
#    merges alone give 763 9885 64.</details>
# 4. The merges leave a symbol `Ã©` that the vocabulary lacks. What ids does llama.cpp give for it?
#    <details><summary>Answer</summary>None: each of its four bytes is 0x80 or above, and a byte-level
#    vocabulary has no such one-byte token, so all four are dropped.</details>
# 5. Why at most about `3n` pops for a word of `n` characters?
#    <details><summary>Answer</summary>At most <code>n - 1</code> pairs to start, at most two more per merge
#    for at most <code>n - 1</code> merges, and each entry is popped once.</details>

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# ## Going deeper

# %% [markdown]
# ### The same loop in llama.cpp's source
#
# In llama.cpp's `src/llama-vocab.cpp` (the copy in the pinned llama-cpp-python 0.3.36 sources) the queue's
# order is `llm_bigram_bpe::comparator`: rank, then left position. The stale check is the line that compares
# `left_token + right_token` with the entry's text. The rule for a symbol that is not a token, each byte
# looked up as a one-byte string and dropped without one, is in `llm_tokenizer_bpe_session::tokenize`.
# `gguftok.models.bpe.merge_word` and `BPEModel.symbol_ids` do the same three things.
#
# ### Timing the queue
#
# The figure measures what the table above counted. On the left, the counts up to 1,024 characters (a traced
# run keeps a copy of the queue at every pop, so longer words are only timed); on the right, the time of one
# untraced `merge_word` up to 4,096 characters, with an `n log n` curve for comparison. The times depend on
# the machine and change from run to run; the slope is the point.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.queue_view import queue_cost_figure  # noqa: E402

queue_cost_figure(qwen2.model.ranks);
