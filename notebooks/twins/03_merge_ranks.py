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
# # 03 · Merge ranks
#
# A byte-level BPE tokenizer grows tokens by joining two neighbouring symbols at a time. Which pair joins
# first is not decided by the text: it is decided by `tokenizer.ggml.merges`, a list of strings such as
# `"i n"`. The position of an entry in that list is its **rank**, and whenever two joinable pairs compete,
# the lower rank joins first. Training wrote the list in the order it found the merges, the most frequent
# pair of its training text first, and encoding replays them in that order.
#
# After this notebook you can:
#
# - look a pair's rank up in the real merge lists of Qwen2 and Llama 3, and say why a rank is not a token id;
# - split a merge line exactly as llama.cpp does, and build the rank table from the list;
# - train a small byte-pair encoding yourself and encode with it;
# - find the tokens that encoding their own text never produces, and say why they matter to a model.

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
# Each entry is two vocabulary texts separated by one space. Every byte of them is one character (notebook
# 02), so `Ġ` is a space; *reads* shows the merged text as bytes (`␣` a space), and last comes the id of the
# token the merge builds.

# %%
first_merges(qwen2_merges)

# %% [markdown]
# Four of the first eight build runs of spaces, the indentation of source code; then `in` and ` t` (`Ġt`).
#
# **A rank is not an id.** `ĠĠ` has rank 0 but id 256, `in` rank 2 but id 258. In Qwen2 the gap is always
# 256, because the vocabulary starts with the 256 single-byte tokens and then lists one token per merge, in
# merge order. That is a property of this file, not a rule: Llama 3 breaks it from rank 2 on, where three
# merges in a row build the same token.

# %%
first_merges(llama3_merges)

# %% [markdown]
# ## Looking ranks up
#
# The tokenizer keeps the list as a table from pair to rank (`gguftok.models.bpe.merge_ranks`, which the
# encoder itself uses). A pair either has a rank or it never joins:

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
# Try it: type a pair as the list writes it (`Ġ t`), or a merged text (`Ġthe`, or ` the` with a real
# space) to see every merge that builds it.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.merges_view import rank_lookup_widget  # noqa: E402

rank_lookup_widget(qwen2_merges, "Ġ t")

# %% [markdown]
# The same view for one fixed question, which shows even where no kernel runs the widget:

# %%
rank_lookup(qwen2_merges, " the")

# %% [markdown]
# ## Two kinds of merge list
#
# In Qwen2 every merge builds a different token, and the merges plus the 256 single-byte tokens are exactly
# its normal tokens. `merge_facts` checks that from the file, and a little more:

# %%
print(format_merge_facts("qwen2", merge_facts(qwen2_merges)))

# %% [markdown]
# No merge uses a side that only a later merge builds, as in a list recorded during training: a merge can
# only join symbols that exist. Llama 3's list has several merges for many tokens (*Going deeper*).

# %% [markdown]
# ## How llama.cpp reads one merge string
#
# `llama_vocab::impl::load` splits each entry at the first space found **from index 1**
# (`word.find(' ', 1)`), and when a pair appears twice, **the first one wins** and keeps its rank. So `"  x"`
# is `" "` + `"x"`, `"a b c"` is `"a"` + `"b c"`, and an entry without such a space registers an empty pair
# that nothing reaches. `merge_ranks` follows those rules; here it reads a made-up list (`␣` marks each real
# space):

# %%
parse_merge_lines(["Ġ t", "  x", "a b c", "ab", "Ġ t", "i n", "cd"])

# %% [markdown]
# Write `split_merge` and `merge_ranks` in [`mytok/merges.py`](mytok/merges.py) now (exercises
# 03.split_merge and 03.merge_ranks): your encoder of notebook 05 looks pairs up in that table.
#
# ## Where a merge list comes from: training
#
# Byte-pair encoding *learns* its list from a table of words and their counts, each word cut into single
# characters. Then, again and again: **count** the pairs of neighbouring symbols, weighted by the words'
# counts; **choose** the most frequent; **record** it as the next rank; **merge** it everywhere. The first
# count on the toy table that Sennrich, Haddow and Birch used when they brought BPE to machine translation:

# %%
from collections import Counter  # noqa: E402

toy = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
totals = Counter()
for word, count in toy.items():
    for left, right in zip(word, word[1:]):
        totals[left, right] += count
for (left, right), total in sorted(totals.items(), key=lambda item: (-item[1], item[0])):
    print(f"{left} {right}: {total}")

# %% [markdown]
# `e s` and `s t` both occur 9 times: a trainer breaks ties by a fixed rule (here the smallest pair in
# Python's order), or two runs could write different lists. Now write `train_bpe` and `apply_merges` (which
# replays a finished list on one word) in [`mytok/merges.py`](mytok/merges.py), as exercises 03.train_bpe
# and 03.apply_merges state them. The cells below use yours once written, the reference versions until then.

# %%
from gguftok.exercises import workspace  # noqa: E402
from gguftok.exercises.lesson03 import reference_apply_merges, reference_train_bpe  # noqa: E402


def yours_or_reference(name, reference, probe):
    """Your function of mytok/merges.py once it is written (tried on ``probe``), else the reference."""
    mine = getattr(workspace.load("merges"), name)
    try:
        mine(*probe)
    except NotImplementedError:
        print(f"{name}: not written yet in mytok/merges.py, so the cells below use the reference, "
              f"{reference.__module__}.{reference.__name__}")
        return reference
    print(f"{name}: yours, from mytok/merges.py")
    return mine


train_bpe = yours_or_reference("train_bpe", reference_train_bpe, ({"ab": 1}, 1))
apply_merges = yours_or_reference("apply_merges", reference_apply_merges, ("ab", ["a b"]))

# %% [markdown]
# Ten merges on the toy table; each line is the merge of that rank, then every word as it is cut after it:

# %%
toy_merges = train_bpe(toy, 10)
for rank, line in enumerate(toy_merges):
    cut = "  ".join("[" + " ".join(apply_merges(word, toy_merges[:rank + 1])) + "]" for word in toy)
    print(f"rank {rank}: {line:8s} {cut}")

# %% [markdown]
# `w e` had 8 at the start, yet never became a merge: earlier merges used up its symbols. Every side of a
# merge is a single character or was built by an earlier rank, as in Qwen2's list.
#
# ## A vocabulary of your own
#
# Now on real text: `data/corpus/harbour.txt`, a few kilobytes of prose written for this workbook. It is cut
# into words by GPT-2's pre-tokenizer (notebook 04), so no merge spans two words, and each word is spelled in
# notebook 02's alphabet, one character per byte: the result can encode any text.

# %%
from pathlib import Path  # noqa: E402

import regex  # noqa: E402

from gguftok.bytemap import bytes_to_text  # noqa: E402

GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

text = Path("../data/corpus/harbour.txt").read_text(encoding="utf-8")
pieces = regex.findall(GPT2, text)
words = dict(Counter(bytes_to_text(piece.encode("utf-8")) for piece in pieces))
print(f"{len(text.encode('utf-8')):,} bytes, {len(pieces):,} words, {len(words):,} of them distinct")
print("the first words:", pieces[:10])
print("the most frequent, spelled byte-level:", Counter(words).most_common(8))

# %% [markdown]
# Now 300 merges. The first build the commonest bits of English: ` t`, `he`, then ` the` from those two.

# %%
merges = train_bpe(words, 300)
print(len(merges), "merges. The first 24:")
print(merges[:24])
print("The last 8:", merges[-8:])

# %% [markdown]
# A sentence from the corpus, through `apply_merges` word by word with the same pre-tokenizer. Frequent
# words are single tokens; rarer ones are cut into parts that other words share:

# %%
sentence = "The baker opens the shop before the harbour wakes."
by_hand = [symbol for piece in regex.findall(GPT2, sentence)
           for symbol in apply_merges(bytes_to_text(piece.encode("utf-8")), merges)]
print(by_hand)
print({piece: words.get(bytes_to_text(piece.encode("utf-8")), 0) for piece in regex.findall(GPT2, sentence)})

# %% [markdown]
# ## Tokens no text produces
#
# Every merge builds a token, but not every token comes out of encoding. Encode each normal token's own text
# alone: does that one token come back (`gguftok.reachability.check_reachability`)?

# %%
from gguftok.reachability import check_reachability  # noqa: E402
from gguftok.viz.reachability_view import counts_view, reachability_view, trailing_space_examples  # noqa: E402

real = {name: Tokenizer.from_gguf(vocab_dir() / f"ggml-vocab-{name}.gguf") for name in ("gpt-2", "starcoder")}
real |= {"llama-bpe": llama3, "qwen2": qwen2}
found = {name: check_reachability(tok) for name, tok in real.items()}
counts_view({name: r.summary() for name, r in found.items()})

# %% [markdown]
# Two reasons. A token holding only some bytes of a character (`ðŁ`, notebook 02) stands for no text alone.
# And Qwen2's pre-tokenizer cuts every digit off alone (notebook 04), so no word holds the token `１０`:

# %%
odd = found["qwen2"].ids  # the unreachable ones, in id order
reachability_view(qwen2, [odd[0], *[i for i in odd if qwen2.vocab.texts[i] in ("ï¼ĳï¼Ĳ", "à¸£à¹Į")]])

# %% [markdown]
# Why it matters: a model learns each token's embedding from where the token appears in its training text,
# so a token that encoding never or rarely produces stays untrained, and what the model does with it is
# anyone's guess. Such *glitch tokens* became famous with ` SolidGoldMagikarp` in GPT-2's vocabulary: a user
# name frequent in the text the vocabulary was trained on, and models using that vocabulary were reported
# unable to even repeat it. Yet it is reachable (one token, below): it was rare in the models' training
# text, which a vocabulary file cannot show.

# %%
gpt2 = real["gpt-2"]
print(gpt2.encode(" SolidGoldMagikarp", add_special=False), repr(gpt2.token_text(43453)))

# %% [markdown]
# A prompt that ends in a space meets the same problem by another road: in text a space nearly always starts
# the next word (` world` is one token), so a lone space token at the end is a place the model rarely saw.
# Leave the space off:

# %%
trailing_space_examples(qwen2, ["Hello", "The answer is"])

# %% [markdown]
# ## Exercises
#
# This notebook's stage is [`mytok/merges.py`](mytok/merges.py): write the body of each function named below there, save, and
# run its check (notebook 00, *How the exercises work*, says what a check does).

# %%
from gguftok.exercises import check, rerun  # noqa: E402

# %% [markdown]
# ### Exercise 03.split_merge: split one merge line as llama.cpp does
#
# Write `split_merge(line)` that returns the two sides of one entry of `tokenizer.ggml.merges` as a
# pair `(left, right)`, split exactly where llama.cpp splits it: at the **first space at index 1 or
# later**. Return `None` when there is no such space.
#
# So `"  x"` is `(" ", "x")`, `"a b c"` is `("a", "b c")`, and `"ab"` and `" x"` are `None`.
# The cases: this notebook's made-up lines, 200 random lines of `a`, `b`, `Ġ` and spaces, and 100 real
# merges of Qwen2 and Llama 3, against `gguftok.models.bpe.split_merge`.
#
# Write it in [`mytok/merges.py`](mytok/merges.py).

# %%
check("03.split_merge")

# %% [markdown]
# ### Exercise 03.merge_ranks: the rank table
#
# Write `merge_ranks(merges)` that turns the list `tokenizer.ggml.merges` into a dictionary from a pair,
# written `left + " " + right`, to its rank (its position in the list), the way llama.cpp reads it:
# split each line with your `split_merge` (a line without a space from index 1 on can be skipped), and
# when a pair appears twice, **the first one wins**.
#
# The check looks up in your table every pair the lines name and a few that none does (`table.get(pair)`:
# a missing pair is `None`), on the toy list of notebook 05, this notebook's made-up lines, random lists
# with repeated pairs, and the full lists of Qwen2 and Llama 3, against `gguftok.models.bpe.merge_ranks`.
#
# Write it in [`mytok/merges.py`](mytok/merges.py).

# %%
check("03.merge_ranks")

# %% [markdown]
# ### Exercise 03.train_bpe: train a byte-pair encoding
#
# Write `train_bpe(words, n_merges)`, the training loop that produces a merge list. `words` maps each
# word of a training text to how often it occurs (every count is 1 or more; a word has no space in it,
# since a byte-level word writes its space as `Ġ`). At the start, each character of a word is one
# symbol. Then, `n_merges` times:
#
# 1. **Count the pairs.** For every word, each two neighbouring symbols `(left, right)` add the word's
#    count to that pair's total, once per place they occur (`"aaa"` seen 2 times gives `(a, a)` 4).
# 2. **Choose one.** Take the pair with the highest total; among equal totals, the smallest
#    `(left, right)` tuple (what `min` of the tied tuples returns).
# 3. **Record it** as the next rank: append the line `left + " " + right`.
# 4. **Merge it** in every word: going from left to right, each `left` directly followed by `right`
#    becomes the one symbol `left + right`, and the symbol just built does not join again in the same
#    step (`a a a` becomes `aa a`).
#
# Stop early when no word has two symbols left. Return the list of merge lines, rank 0 first.
#
# The check compares your list with `gguftok.exercises.lesson03.reference_train_bpe` on small tables,
# seeded random tables and the word table of `data/corpus/harbour.txt`, and shows the first rank where
# the two lists part.
#
# Write it in [`mytok/merges.py`](mytok/merges.py).

# %%
check("03.train_bpe")

# %% [markdown]
# ### Exercise 03.apply_merges: replay a merge list on one word
#
# Write `apply_merges(word, merges)`, the plainest encoder of one word: start from one symbol per
# character of `word`, then apply each merge line in the order of the list (rank 0 first) to the whole
# word before the next, exactly as step 4 of `train_bpe` does. Split each line with your `split_merge`.
# Return the list of symbols.
#
# So `apply_merges("abc", ["a b", "b c"])` is `["ab", "c"]` (once `a b` has joined, no `b` is
# left for `c`), and with the two lines the other way round it is `["a", "bc"]`.
#
# The check compares your symbols with `gguftok.exercises.lesson03.reference_apply_merges` on the
# examples above, merges trained on random tables, random lines in any order, and words through 300
# merges trained on `data/corpus/harbour.txt`.
#
# Write it in [`mytok/merges.py`](mytok/merges.py).

# %%
check("03.apply_merges")

# %% [markdown]
# ## Recap
#
# - A merge's rank is its position in `tokenizer.ggml.merges`, and the lower rank joins first. A rank is not
#   a token id (in Qwen2, id = rank + 256).
# - A merge joins two particular symbols: `ĠĠ`+`ĠĠ` joins in Qwen2, `Ġ`+`ĠĠĠ` never does.
# - llama.cpp splits a merge line at the first space from index 1, and the first copy of a pair wins.
# - Training counts neighbouring pairs inside the pre-tokenizer's words, records the most frequent (ties by a
#   fixed rule) as the next rank, and merges it everywhere.
# - Some tokens never come out of encoding their own text, and a model learns little about a token it
#   rarely sees: hence glitch tokens, and the trailing-space pitfall.

# %% [markdown]
# ## Self-check
#
# 1. In Qwen2, `in` has rank 2. What is its id, and why?
#    <details><summary>Answer</summary>258: the 256 single-byte tokens come first, then one token per merge in
#    rank order.</details>
# 2. What does llama.cpp make of the merge line `"  x"` (two spaces, then `x`)?
#    <details><summary>Answer</summary><code>" "</code> + <code>"x"</code>: the split is at the first space
#    from index 1.</details>
# 3. In the toy table, `w e` occurs 8 times at the start. Why does it never become a merge?
#    <details><summary>Answer</summary>Earlier merges use up its symbols: <code>e s</code> takes the
#    <code>e</code> of <code>newest</code>, and <code>lo w</code> the <code>w</code> of <code>lower</code>.
#    </details>
# 4. Why can no text encode to Qwen2's token `１０` alone?
#    <details><summary>Answer</summary>Qwen2's pre-tokenizer cuts every digit off on its own, so the two
#    digits are never in one word, and merges only run inside a word.</details>
# 5. Why end a prompt with `"The answer is"` rather than `"The answer is "`?
#    <details><summary>Answer</summary>The trailing space becomes a lone token, where text nearly always has
#    it at the start of the next word: a place the model rarely saw.</details>

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# ## Going deeper
#
# %% [markdown]
# ### Paging through the list
#
# Late ranks join rarer pairs: near the end of Qwen2's list, many merges only complete one rare character (a
# Hangul syllable, a mathematical letter). Page through it from any rank:

# %% tags=["nbval-ignore-output"]
from gguftok.viz.merges_view import merge_list_widget  # noqa: E402

merge_list_widget(qwen2_merges)

# %% [markdown]
# The same page for one fixed rank, 150,000, which shows even where no kernel runs the widget:

# %%
first_merges(qwen2_merges, start=150_000, count=6)

# %% [markdown]
# ### Llama 3's many paths to one token
#
# `ggml-vocab-llama-bpe.gguf` has 280,147 merges for 128,256 tokens:

# %%
print(format_merge_facts("llama-bpe", merge_facts(llama3_merges)))

# %% [markdown]
# Its 280,147 merges build only 127,744 distinct tokens, up to 80 merges the same one. Those 127,744 plus the 256 byte characters are again exactly its normal tokens; what
# differs from Qwen2 is the number of **paths** to each token. Only 37,105 tokens have a single merge; most
# have two or three. 49,630 merges even use a side that only a later merge builds (rank 1 joins `Ġ`
# and `ĠĠĠ`, but `ĠĠĠ` is first built at rank 14), so this list is not a plain record of training steps.
#
# The two tokens with 80 paths are runs of 81 and 83 spaces. A text of *n* characters can be cut into two
# non-empty sides in only *n* − 1 ways, so *n* − 1 is a ceiling on its paths. The run of 81 spaces, whose
# every cut is itself a token, sits right on its ceiling of 80; the run of 83 stays two below its 82. The figure shows both views: on the left, how many
# tokens have 1, 2, 3, ... paths (Qwen2 has a single point: every token, one path); on the right, Llama 3's
# paths against token length, with the ceiling dashed (marker area grows with the number of tokens).

# %% tags=["nbval-ignore-output"]
from gguftok.viz.merges_view import paths_figure  # noqa: E402

paths_figure({"qwen2": qwen2_merges, "llama-bpe": llama3_merges});

# %% [markdown]
# Several paths do not make encoding ambiguous: the queue still pops the lowest rank available, so each
# word has one result. llama.cpp adds one more rule for this family, `ignore_merges`: when a whole
# pre-tokenized word is already a token, it is taken as it is and no merge runs. The loaded vocabularies
# carry that flag (notebook 05 runs the merge loop itself):

# %%
print(f"ignore_merges: qwen2 {qwen2.vocab.ignore_merges}, llama-bpe {llama3.vocab.ignore_merges}")

# %% [markdown]
# ### The corner cases of a merge line, and the real files
#
# llama.cpp inserts each pair into its map with `emplace`, which keeps the first value stored for a key:
# that is why the first copy of a pair wins and a later line changes nothing. A search from index 1 lets a
# left side be a space itself (a search from index 0 would give `"  x"` an empty left side). A line such as
# `"a b c"` registers `"a"` + `"b c"`, a pair no look-up can ask for, because the symbols of a word never
# contain a space; and every line without a space from index 1 on registers the same empty pair.
#
# In the byte-level vocabularies none of these corner cases occurs, since a space inside a token is written
# `Ġ`. Every merge line of the 14 reference vocabularies that have a merge list is a clean pair:

# %%
print(format_merge_scan(scan_merge_lines()))

# %% [markdown]
# ### Training, more closely
#
# Step 4 of the loop has one subtlety, which a word like `aaa` shows: joining `a a` from the left gives
# `aa a`, and the `aa` just built does not join again within the same step. An encoder applies one merge the
# same way. Real trainers each have a tie rule of their own; what matters is that it is fixed. On the
# harbour text, the last merges of the 300 are in alphabetical order, which is the tie rule at work: by then
# many pairs occur equally often. Here is how often, at the moment each was chosen:

# %%
def total_when_chosen(rank):
    """How often the merge of ``rank`` occurred in the words, cut by the merges before it."""
    left, right = merges[rank].split(" ")
    total = 0
    for word, count in words.items():
        symbols = apply_merges(word, merges[:rank])
        total += count * sum(pair == (left, right) for pair in zip(symbols, symbols[1:]))
    return total


for rank in (0, 1, 2, 100, 200, *range(292, 300)):
    print(f"rank {rank:3d}  {merges[rank]:9s} {total_when_chosen(rank):4d} times")

# %% [markdown]
# How long can a list grow? Until every word is a single symbol; then there is no pair left to count, and
# training stops on its own:

# %%
everything = train_bpe(words, 10_000)
print(len(everything), "merges, and then every one of the", len(words), "distinct words is a single symbol:",
      all(len(apply_merges(word, everything)) == 1 for word in words))

# %% [markdown]
# Such a list has learned the corpus by heart: every word, however rare, is one token. That is why a
# vocabulary's size is chosen, not found. Qwen2 stops at 151,387 merges after training on far more text than
# that, so its late merges still build parts shared by many words.
#
# ### Your merges as a GGUF file
#
# A vocabulary needs a token for every symbol encoding can produce: the 256 single bytes, then, for each merge
# in rank order, the text it builds. That is Qwen2's layout, so the id of a merge's token is its rank + 256
# (as long as every merge builds a new text: checked below). Real vocabularies also have control tokens; one
# is enough here, an end-of-text token. The token types are gguf-py's numbers (`gguf.TokenType`).

# %%
import gguf  # noqa: E402

from gguftok.bytemap import BYTE_TO_CHAR  # noqa: E402

tokens = list(BYTE_TO_CHAR)  # token b is byte b
tokens += [left + right for left, right in (line.split(" ") for line in merges)]
tokens.append("<|endoftext|>")
types = [gguf.TokenType.NORMAL] * (len(tokens) - 1) + [gguf.TokenType.CONTROL]
print(f"{len(tokens)} tokens = 256 bytes + {len(merges)} merges + 1 control token; "
      f"all texts distinct: {len(set(tokens)) == len(tokens)}")

# %% [markdown]
# `gguf.GGUFWriter` (the writer of gguf-py, the Python package that comes with llama.cpp) stores the
# tokenizer under the keys notebook 01 read from real files: the model `gpt2` (llama.cpp's name for
# byte-level BPE, whoever trained it), the pre-tokenizer `gpt-2` (the one trained with), the tokens, their
# types and the merges. The file goes into a fresh temporary folder, which is removed at the end; nothing is
# written beside the notebooks.

# %%
import tempfile  # noqa: E402

folder = tempfile.TemporaryDirectory()
path = Path(folder.name) / "harbour-bpe.gguf"
writer = gguf.GGUFWriter(path, arch="llama")
writer.add_tokenizer_model("gpt2")
writer.add_tokenizer_pre("gpt-2")
writer.add_token_list(tokens)
writer.add_token_types(types)
writer.add_token_merges(merges)
writer.add_eos_token_id(tokens.index("<|endoftext|>"))
writer.write_header_to_file()
writer.write_kv_data_to_file()
writer.write_ti_data_to_file()  # no tensors: a vocabulary-only file, like llama.cpp's ggml-vocab-*.gguf
writer.close()
data = path.read_bytes()
print(f"{path.name}: {len(data):,} bytes")

# %% [markdown]
# These bytes are a GGUF file like any other, so notebook 01's reader opens them: your `read_metadata` from
# `mytok/metadata.py` once it is written, gguftok's own until then.

# %%
try:
    read_metadata = workspace.load("metadata").read_metadata
    md = read_metadata(data)
    print("read with your read_metadata, from mytok/metadata.py")
except (ModuleNotFoundError, NotImplementedError):
    from gguftok import read_metadata

    md = read_metadata(data)
    print("your read_metadata (notebook 01) is not written yet, so this is gguftok.read_metadata")
for key in md:
    value = md[key]
    if isinstance(value, str | int):
        shown = repr(value)
    else:  # an array: its length and first items (numbers as plain ints)
        shown = f"{len(value)} items: {[v if isinstance(v, str) else int(v) for v in value[:4]]} ..."
    print(f"  {key}: {shown}")
print("the merges read back are the list training produced:", list(md["tokenizer.ggml.merges"]) == merges)

# %% [markdown]
# gguftok's tokenizer loads the file as it loads Qwen2's, and the views from the top of this notebook work on
# it unchanged. Every fact that held for Qwen2 holds here: one merge per token, 300 + 256 normal tokens,
# id = rank + 256, and no merge uses a side that only a later merge builds.

# %%
harbour = Tokenizer.from_gguf(path)
harbour_merges = MergeIndex.from_tokenizer(harbour)
first_merges(harbour_merges)

# %%
print(format_merge_facts("harbour-bpe", merge_facts(harbour_merges)))

# %% [markdown]
# The sentence from above, encoded by gguftok's tokenizer with this vocabulary (no start or end token), gives
# the same tokens as `apply_merges` did word by word:

# %%
from gguftok.viz.render import token_chips  # noqa: E402

ids = harbour.encode(sentence, add_special=False)
print("the same tokens as apply_merges gave:", by_hand == [harbour.vocab.texts[i] for i in ids])
token_chips(harbour, ids, title=f"{len(ids)} tokens for {len(sentence)} characters")

# %% [markdown]
# The tokenizer gets there differently: it does not walk through all 300 merges for every word, but joins
# the lowest-ranked pair the word actually has, again and again, with a priority queue (notebook 05, where
# you write it). On a list that training produced, both orders give the same tokens.
#
# Text the corpus never saw still encodes, because the 256 byte tokens are always there to fall back on:
# an unknown word breaks into small tokens, and the emoji into its four bytes (one frame, since only together
# do they make a character):

# %%
unseen = "Tokenizers meet 🙂 too."
token_chips(harbour, harbour.encode(unseen, add_special=False), title=unseen)

# %%
folder.cleanup()  # the temporary folder and the file in it are gone

# %% [markdown]
# ### Which tokens the count considers
#
# `gguftok.reachability.considered` takes every token whose attributes after loading are normal and nothing
# else: control, user-defined, byte and unused tokens are not produced from plain text by design (notebook
# 06). In SentencePiece, WordPiece and Unigram vocabularies it takes only the tokens whose text starts with
# `▁`, a word's first token, since a token without it never starts a text. Each token's text is its piece as
# `token_to_piece` gives it, encoded with `add_special=False`; the reasons are tested in order: not valid
# UTF-8 (part of a character), a stored text that is no byte-level spelling, a special token's text, more
# than one word for the pre-tokenizer, and otherwise "encodes to other tokens", a word that the merges take
# another way.

# %% [markdown]
# ### What an id is to a model, and what a bigger vocabulary costs
#
# A model never sees the text, nor even the token's text: the id picks one row of a matrix, the **embedding**,
# with one row per token and as many columns as the model's width (`embedding_length` in the file), and the
# model's last layer scores every row again to choose the next id. So each token costs two such rows of
# parameters (one when the model ties the two matrices). What a bigger vocabulary buys is fewer tokens for the
# same text, so more text in the same context and fewer steps to generate it. The vocabulary files carry the
# width of the model they come from; the last column counts the tokens of the same sentence in ten languages
# (the sentences of notebook 01):

# %%
from gguftok import read_metadata  # noqa: E402
from gguftok.viz.languages_view import SAMPLES  # noqa: E402

print(f"{'vocabulary':10s} {'tokens':>8s} {'width':>6s} {'one matrix':>12s} {'tokens for the 10 sentences':>28s}")
for name in ("gpt-2", "llama-spm", "llama-bpe", "qwen2", "gemma-4"):
    md = read_metadata(vocab_dir() / f"ggml-vocab-{name}.gguf")
    tok = Tokenizer(md)
    width = md.get(f"{md['general.architecture']}.embedding_length")
    used = sum(len(tok.encode(s, add_special=False)) for s in SAMPLES.values())
    params = f"{tok.n_vocab * width / 1e6:,.0f} M" if width else "-"
    print(f"{name:10s} {tok.n_vocab:8,d} {width or '-':>6} {params:>12s} {used:28,d}")

# %% [markdown]
# ### Why a model cannot spell
#
# The same ids explain a familiar failure. Asked how many `r` are in "strawberry", a model has to answer
# about letters it was never shown. After a space the word is one id in these vocabularies, at the start of a
# text three others, and the two spellings share no id; nothing in an id says which letters its text has. A
# model can only have learned the spelling of each token from text that happened to spell it out.

# %%
for name in ("gpt-2", "llama-bpe", "qwen2"):
    tok = Tokenizer.from_gguf(vocab_dir() / f"ggml-vocab-{name}.gguf")
    for word in (" strawberry", "strawberry"):
        ids = tok.encode(word, add_special=False)
        print(f"{name:10s} {word!r:14s} ids {ids}  pieces {[tok.token_to_piece(i).decode() for i in ids]}")
