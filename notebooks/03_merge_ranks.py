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
# # 03 · Merge ranks
#
# A byte-level BPE tokenizer grows tokens by joining two neighbouring symbols at a time. Which pair joins
# first is not decided by the text: it is decided by `tokenizer.ggml.merges`, a list of strings such as
# `"i n"`. The position of an entry in that list is its **rank**. Rank 0 is the first entry and the most
# urgent: whenever two joinable pairs compete, the one with the lower rank joins first.
#
# Training wrote the list in the order it found the merges, the most frequent pair of its training text
# first. Encoding has to replay merges in that same order, which is why the order is stored with the model.
#
# This notebook reads the real merge lists of Qwen2 and Llama 3, looks ranks up, counts what the merges
# build, and ends with the exact rule llama.cpp uses to read one merge string.

# %%
from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.viz.merges_view import (
    MergeIndex,
    first_merges,
    format_merge_facts,
    format_merge_scan,
    merge_facts,
    parse_merge_lines,
    rank_lookup,
    rank_lookups,
    scan_merge_lines,
)

qwen2 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf")
llama3 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-llama-bpe.gguf")
qwen2_merges = MergeIndex.from_tokenizer(qwen2)
llama3_merges = MergeIndex.from_tokenizer(llama3)

# %% [markdown]
# ## The first merges of Qwen2
#
# Each entry is two vocabulary texts separated by one space. In these texts every byte is one character
# (notebook 02), so `Ġ` is a space: the column *reads as* shows the merged text as bytes, with `␣` for a
# space. The last column is the id of the token the merge builds.

# %%
first_merges(qwen2_merges)

# %% [markdown]
# These eight lines are the lesson's eight, computed here from `ggml-vocab-qwen2.gguf` itself. Four of the
# eight build runs of spaces (two, four, eight, three): indentation is everywhere in source code, so these
# pairs were among the most frequent in Qwen2's training text. Then come `i`+`n` and `Ġ`+`t`, the openings
# of very common English words.
#
# **A rank is not an id.** `ĠĠ` has rank 0 but id 256, `in` has rank 2 but id 258. In Qwen2 the gap is
# always 256, because the vocabulary starts with the 256 single-byte tokens and then lists one token per
# merge, in merge order (checked for all merges below). That is a property of this file, not a rule:
# Llama 3 breaks it from rank 2 on, where three merges in a row build the same token.

# %%
first_merges(llama3_merges)

# %% [markdown]
# ## Looking ranks up
#
# The tokenizer keeps the list as a table from pair to rank: `gguftok.models.bpe.merge_ranks`, which the
# encoder itself uses. A pair either has a rank or it never joins. Here are the lesson's look-ups against
# the full Qwen2 list (the lesson's program only held eight merges, so it answered "no merge" for `t h`;
# the full list has it at rank 83).

# %%
rank_lookups(qwen2_merges, ["i n", "o n", "Ġ t", "t h", "ĠĠ Ġ"])

# %% [markdown]
# A merge is a pair of particular symbols, not a resulting string. Four spaces come from `ĠĠ`+`ĠĠ`
# (rank 1), but `Ġ`+`ĠĠĠ` has no rank in Qwen2, so that pair never joins directly, even though it would spell
# the same four spaces. Llama 3 does list it (rank 1):

# %%
rank_lookups(qwen2_merges, ["ĠĠ ĠĠ", "Ġ ĠĠĠ"])

# %%
rank_lookup(llama3_merges, "Ġ ĠĠĠ")

# %% [markdown]
# Try it yourself. Type a pair the way the merge list writes it (`Ġ t`, `ĠĠ Ġ`), or a merged text (`Ġthe`)
# to see every merge that builds it. Plain text with real spaces works too: ` the` is read as its bytes,
# `Ġthe`.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.merges_view import rank_lookup_widget  # noqa: E402

rank_lookup_widget(qwen2_merges, "Ġ t")

# %% [markdown]
# The same view with a fixed question (this is what the tests check):

# %%
rank_lookup(qwen2_merges, " the")

# %% [markdown]
# And a page through the list from any rank. Late ranks join rarer pairs: near the end of Qwen2's list,
# many merges only complete one rare character (a Hangul syllable, a mathematical letter), whose two to four
# bytes are not worth a merge any earlier.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.merges_view import merge_list_widget  # noqa: E402

merge_list_widget(qwen2_merges)

# %% [markdown]
# Its static twin, from rank 150,000:

# %%
first_merges(qwen2_merges, start=150_000, count=6)

# %% [markdown]
# ## Two kinds of merge list
#
# The lesson states two facts about the real files. Qwen2: every merge builds a different token, and the
# 151,387 merges plus the 256 single-byte tokens are exactly its 151,643 normal tokens. Stated precisely,
# that is three checks: the merged texts are all distinct, every one is a normal token, and the normal
# tokens left over are exactly the 256 characters of the byte map. `merge_facts` makes all three from the
# file:

# %%
print(format_merge_facts("qwen2", merge_facts(qwen2_merges)))

# %% [markdown]
# All three hold, and the numbers are the lesson's. Two more facts fall out of the same count: every Qwen2
# token id is its merge's rank plus 256, and no merge uses a side that only a later merge builds. Both are
# what a list recorded during training looks like: a merge can only join symbols that already exist.
#
# Llama 3 (`ggml-vocab-llama-bpe.gguf`) is different: 280,147 merges for 128,256 tokens.

# %%
print(format_merge_facts("llama-bpe", merge_facts(llama3_merges)))

# %% [markdown]
# Again the lesson's numbers: the 280,147 merges build only 127,744 distinct tokens, and up to 80 merges
# build the same token. Those 127,744 plus the 256 byte characters are again exactly the normal tokens; what
# differs is the number of **paths** to each token. Only 37,105 tokens have a single merge; most have two
# or three. Nearly 50,000 merges even use a side that only a later merge builds (rank 1 joins `Ġ` and `ĠĠĠ`,
# but `ĠĠĠ` is first built at rank 3), so this list is not a plain record of training steps.
#
# The two tokens with 80 paths are runs of 81 and 83 spaces. A text of *n* characters can be cut into two
# non-empty sides in only *n* − 1 ways, so *n* − 1 is a ceiling on its paths, and long runs of spaces,
# whose every cut is itself a token, sit right on it. The figure shows both views: on the left, how many
# tokens have 1, 2, 3, ... paths (Qwen2 has a single point: every token, one path); on the right, Llama 3's
# paths against token length, with the ceiling dashed (marker area grows with the number of tokens).

# %% tags=["nbval-ignore-output"]
from gguftok.viz.merges_view import paths_figure  # noqa: E402

paths_figure({"qwen2": qwen2_merges, "llama-bpe": llama3_merges});

# %% [markdown]
# Several paths do not make encoding ambiguous: the queue still pops the lowest rank available, so each
# word has one result. llama.cpp adds one more rule for this family, `ignore_merges`: when a whole
# pre-tokenized piece is already a token, it is taken as it is and no merge runs. The loaded vocabularies
# carry that flag (notebook 05 runs the merge loop itself):

# %%
print(f"ignore_merges: qwen2 {qwen2.vocab.ignore_merges}, llama-bpe {llama3.vocab.ignore_merges}")

# %% [markdown]
# ## How llama.cpp reads one merge string
#
# `llama_vocab::impl::load` splits each entry at the first space found **from index 1** (`word.find(' ', 1)`)
# and inserts the pair into a map with `emplace`, which keeps the first value stored for a key. So:
#
# - a left side may itself be a space: `"  x"` is `" "` + `"x"` (a search from index 0 would give an empty
#   left side);
# - only the first space counts: `"a b c"` is `"a"` + `"b c"`, a pair no look-up can ask for, because the
#   symbols of a word never contain a space;
# - an entry without such a space registers the empty pair, which nothing reaches either;
# - when a pair appears twice, **the first one wins** and keeps its rank; the later line changes nothing.
#
# `merge_ranks` follows those rules. The table below runs a made-up list through it (`␣` marks each real
# space):

# %%
parse_merge_lines(["Ġ t", "  x", "a b c", "ab", "Ġ t", "i n", "cd"])

# %% [markdown]
# In the byte-level vocabularies none of these corner cases occurs, since a space inside a token is written
# `Ġ`. Every merge line of the 14 reference vocabularies that have a merge list is a clean pair:

# %%
print(format_merge_scan(scan_merge_lines()))

# %% [markdown]
# ## What you can now explain
#
# - What a merge rank is (the position in `tokenizer.ggml.merges`), why lower ranks join first, and why a
#   rank is not a token id (in Qwen2 the id is always rank + 256; in Llama 3 there is no such rule).
# - Why a merge is a pair of symbols and not a result: `ĠĠ`+`ĠĠ` joins in Qwen2, `Ġ`+`ĠĠĠ` never does.
# - Qwen2's list: one merge per token, 151,387 merges + 256 byte characters = 151,643 normal tokens.
# - Llama 3's list: 280,147 merges for 127,744 tokens, up to 80 paths to one token, bounded by length − 1,
#   and the `ignore_merges` rule that llama.cpp applies to this family.
# - How llama.cpp parses a merge line: split at the first space from index 1; the first copy of a pair wins.

# %% [markdown]
# ## Exercises
#
# Write each function in the code cell under its statement, run that cell, then run the check below it.
# The check calls your function on this lesson's examples and on many generated inputs (seeded, so the
# same every time), compares each answer with gguftok's own, and shows the first input where they
# differ: the input, the expected answer, yours, and for a list the first index that differs. Until you
# write the body it says *not attempted*. `gguftok.exercises.show("NN.name")` prints a task again.
# The solutions are in `solutions/lesson03.py` at the top of the repository.

# %%
from gguftok.exercises import check  # noqa: E402


# %% [markdown]
# ### Exercise 03.split_merge: split one merge line as llama.cpp does
#
# Write `split_merge(line)` that returns the two sides of one entry of `tokenizer.ggml.merges` as a
# pair `(left, right)`, split exactly where llama.cpp splits it: at the **first space at index 1 or
# later**. Return `None` when there is no such space.
#
# So `"  x"` is `(" ", "x")`, `"a b c"` is `("a", "b c")`, and `"ab"` and `" x"` are `None`.
# The check uses the lesson's lines, 200 random lines of `a`, `b`, `Ġ` and spaces, and 100 real merges
# of Qwen2 and Llama 3, against `gguftok.models.bpe.split_merge`.

# %%
def split_merge(line: str) -> tuple[str, str] | None:
    """The two sides of a merge line, split at the first space from index 1 on; None without one.

    >>> split_merge("Ġ t")
    ('Ġ', 't')
    """
    raise NotImplementedError


# %%
check("03.split_merge", split_merge)


# %% [markdown]
# ### Exercise 03.merge_ranks: the rank table
#
# Write `merge_ranks(merges)` that turns the list `tokenizer.ggml.merges` into a dictionary from a pair,
# written `left + " " + right`, to its rank (its position in the list), the way llama.cpp reads it:
# split each line with your `split_merge`, and when a pair appears twice, **the first one wins**. Lines
# without a space from index 1 on can be skipped.
#
# The check builds your table and looks up, for each case, every pair that the lines name plus a few
# that none does (`table.get(pair)`, so a missing pair is `None`). It compares the answers with
# `gguftok.models.bpe.merge_ranks` on the toy list of notebook 05, the lesson's made-up lines, random
# lists with repeated pairs, and the full lists of Qwen2 and Llama 3.

# %%
def merge_ranks(merges: list[str]) -> dict[str, int]:
    """``"left right"`` -> rank (position in ``merges``); the first occurrence of a pair wins.

    >>> merge_ranks(["a b", "ab c", "a b"])
    {'a b': 0, 'ab c': 1}
    """
    raise NotImplementedError


# %%
check("03.merge_ranks", merge_ranks)
