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
# `"i n"`. The position of an entry in that list is its **rank**. Rank 0 is the first entry and the most
# urgent: whenever two joinable pairs compete, the one with the lower rank joins first.
#
# Training wrote the list in the order it found the merges, the most frequent pair of its training text
# first. Encoding has to replay merges in that same order, which is why the order is stored with the model.
#
# This notebook reads the real merge lists of Qwen2 and Llama 3, looks ranks up, counts what the merges
# build, and finds the exact rule llama.cpp uses to read one merge string, which you then write yourself.
# Then it goes back to where such a list comes from: you write the training loop, train a small vocabulary
# of your own on a few kilobytes of text, store it as a GGUF file, read it back and encode with it.

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
# That is the whole of reading the list, and you can write it now: open [`mytok/merges.py`](mytok/merges.py)
# and fill in `split_merge` and `merge_ranks` (exercises 03.split_merge and 03.merge_ranks, at the end of
# this notebook, check them). `merge_ranks` is the table your own encoder looks pairs up in from notebook 05 on.
#
# ## Where a merge list comes from: training
#
# Nobody writes a merge list by hand. Byte-pair encoding *learns* it from text, with a loop short enough to
# state in four lines. Start from a table of words and how often each one occurs, every word cut into
# single characters. Then, as many times as the list should be long:
#
# 1. **count** every pair of neighbouring symbols over all the words, each occurrence weighted by its word's
#    count;
# 2. **choose** the most frequent pair;
# 3. **record** it: it is the next line of the merge list, so its rank is the moment training found it;
# 4. **merge** it everywhere: each occurrence becomes one symbol, which can be one side of a later pair.
#
# Here is the first count on the classic toy table of four words, the one Sennrich, Haddow and Birch used
# when they brought byte-pair encoding to machine translation (2016):

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
# `e s` and `s t` both occur 9 times (6 times in `newest`, 3 in `widest`). Ties like this are common, and a
# trainer has to break them by a fixed rule, or two runs on the same text could write different lists. The
# rule here: among equal totals, the smallest pair `(left, right)` in Python's order of tuples of strings, so
# `e s` comes before `s t`. Real trainers each have a rule of their own; what matters is that it is fixed.
#
# Step 4 has one subtlety, which a word like `aaa` shows: joining `a a` from the left gives `aa a`, and the
# `aa` just built does not join again within the same step. An encoder applies one merge the same way.
#
# Now write `train_bpe(words, n_merges)` in [`mytok/merges.py`](mytok/merges.py) (exercise 03.train_bpe states
# the rule in full), and `apply_merges(word, merges)`, which replays a finished list on one word: every line
# in order of rank, each applied to the whole word before the next (exercise 03.apply_merges). The cells below
# use yours as soon as they are written; until then they use the reference versions in
# `gguftok.exercises.lesson03`, and say so.

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
# Ten merges on the toy table. Each line shows the merge of that rank, then every word as it is cut after it,
# one pair of brackets per word:

# %%
toy_merges = train_bpe(toy, 10)
for rank, line in enumerate(toy_merges):
    cut = "  ".join("[" + " ".join(apply_merges(word, toy_merges[:rank + 1])) + "]" for word in toy)
    print(f"rank {rank}: {line:8s} {cut}")

# %% [markdown]
# The counts change as the words do. `w e` had 8 at the start, more than `l o`, yet it never became a merge:
# `e s` took the `e` of `newest` at rank 0, and `lo w` the `w` of `lower` at rank 3, so by the time `w e`
# could have been the most frequent pair it no longer occurred anywhere. Each merge uses only symbols that exist at that moment, so every side of a merge is a
# single character or was built by an earlier rank, the property Qwen2's list has above. And once a word is
# one symbol, as `low` is from rank 3 on, it takes no further part.

# %% [markdown]
# ## A vocabulary of your own
#
# Now on real text: `data/corpus/harbour.txt`, a few kilobytes of English prose about a harbour town,
# written for this workbook, with a line each of French, German, Greek and Japanese at the end. Two
# decisions turn text into the word table that training starts from, and they make the result a byte-level
# vocabulary like the ones above:
#
# - **Words.** The text is first cut into words, by a *pre-tokenizer*: here GPT-2's, a regular expression
#   that notebook 04 takes apart. In short, a word is a run of letters, a run of digits or a run of other
#   signs, each with the one space before it; whitespace that is not such a space stays a word of its own,
#   and a few English endings (`'s`, `'t`, `'re`, ...) are cut off. Training counts pairs only inside words,
#   so no merge, and no token, ever spans two words: ` the harbour` can become ` the` and ` harbour`, never
#   one token.
# - **Bytes.** Each word is spelled in notebook 02's alphabet, one character per UTF-8 byte, so `é` is two
#   symbols (`Ã©`) and a Japanese character three. The alphabet's 256 characters are where training starts,
#   which is why such a vocabulary can encode any text, even characters the corpus never had.

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
# `Ġ` is the space, `Ċ` the newline. Now 300 merges:

# %%
merges = train_bpe(words, 300)
print(len(merges), "merges. The first 24:")
print(merges[:24])
print("The last 8:", merges[-8:])

# %% [markdown]
# The first merges are the most common pieces of English: ` t` and `he`, then ` the` from those two, ` a`,
# `in`, then `ing` from `in` and `g` a little later. The last ones are in alphabetical order, which is the tie
# rule at work: by then many pairs occur equally often (here is how often, at the moment each was chosen):

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
# that, so its late merges are still pieces shared by many words.
#
# ## From merges to a GGUF file
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
# types and the merges. The file goes into a fresh temporary folder, which is removed at the end of this
# notebook; nothing is written beside the notebooks.

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
# ## Reading it back
#
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
# `tokenizer.ggml.merges` in this file is nothing but the output of the training loop, in the order it found
# the merges. gguftok's tokenizer loads the file as it loads Qwen2's, and the views from the top of this
# notebook work on it unchanged:

# %%
harbour = Tokenizer.from_gguf(path)
harbour_merges = MergeIndex.from_tokenizer(harbour)
first_merges(harbour_merges)

# %%
print(format_merge_facts("harbour-bpe", merge_facts(harbour_merges)))

# %% [markdown]
# Every fact that held for Qwen2 holds here: one merge per token, 300 + 256 normal tokens, id = rank + 256,
# and no merge uses a side that only a later merge builds. That is what a list recorded during training looks
# like.
#
# ## Encoding with it
#
# A sentence from the corpus, encoded by gguftok's tokenizer with this vocabulary (no start or end token):

# %%
from gguftok.viz.render import token_chips  # noqa: E402

sentence = "The baker opens the shop before the harbour wakes."
ids = harbour.encode(sentence, add_special=False)
token_chips(harbour, ids, title=f"{len(ids)} tokens for {len(sentence)} characters")

# %% [markdown]
# Frequent words are single tokens, rare ones are cut into pieces that other words share. How often each word
# of the sentence occurs in the corpus:

# %%
print({piece: words.get(bytes_to_text(piece.encode("utf-8")), 0) for piece in regex.findall(GPT2, sentence)})

# %% [markdown]
# The same tokens come out of `apply_merges`, word by word, with the same pre-tokenizer and the list in rank
# order:

# %%
by_hand = [symbol for piece in regex.findall(GPT2, sentence)
           for symbol in apply_merges(bytes_to_text(piece.encode("utf-8")), merges)]
print(by_hand)
print("the same tokens as the tokenizer's:", by_hand == [harbour.vocab.texts[i] for i in ids])

# %% [markdown]
# The tokenizer gets there differently: it does not walk through all 300 merges for every word, but joins
# the lowest-ranked pair the word actually has, again and again, with a priority queue (notebook 05, where
# you write it). On a list that training produced, both orders give the same tokens.
#
# Text the corpus never saw still encodes, because the 256 byte tokens are always there to fall back on:
# an unknown word breaks into small pieces, and the emoji into its four bytes (one frame, since only together
# do they make a character):

# %%
unseen = "Tokenizers meet 🙂 too."
token_chips(harbour, harbour.encode(unseen, add_special=False), title=unseen)

# %%
folder.cleanup()  # the temporary folder and the file in it are gone

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
# - Where the list comes from: training counts neighbouring pairs over a table of words, records the most
#   frequent (ties broken by a fixed rule) as the next rank and merges it everywhere; the pre-tokenizer keeps
#   merges inside words, and the 256 byte characters are the alphabet it starts from.
# - Why a trained list looks like Qwen2's: each merge builds a new token from symbols that already exist.

# %% [markdown]
# ## Exercises
#
# Your own tokenizer lives in `mytok/`, a package of yours beside these notebooks, one module per
# stage. This notebook's stage is [`mytok/merges.py`](mytok/merges.py):
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
# ### Exercise 03.split_merge: split one merge line as llama.cpp does
#
# Write `split_merge(line)` that returns the two sides of one entry of `tokenizer.ggml.merges` as a
# pair `(left, right)`, split exactly where llama.cpp splits it: at the **first space at index 1 or
# later**. Return `None` when there is no such space.
#
# So `"  x"` is `(" ", "x")`, `"a b c"` is `("a", "b c")`, and `"ab"` and `" x"` are `None`.
# The check uses the lesson's lines, 200 random lines of `a`, `b`, `Ġ` and spaces, and 100 real merges
# of Qwen2 and Llama 3, against `gguftok.models.bpe.split_merge`.
#
# Write it in [`mytok/merges.py`](mytok/merges.py).

# %%
check("03.split_merge")

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
# 2. **Choose one.** Take the pair with the highest total. Among pairs with the same total, take the
#    smallest `(left, right)` in Python's order of tuples of strings (the left sides compare first,
#    then the right sides: what `min` of the tied tuples returns).
# 3. **Record it** as the next rank: append the line `left + " " + right`.
# 4. **Merge it** in every word: going from left to right, each `left` directly followed by `right`
#    becomes the one symbol `left + right`, and the symbol just built does not join again in the same
#    step (`a a a` becomes `aa a`).
#
# Stop early when no word has two symbols left, so the list can be shorter than `n_merges`. Return the
# list of merge lines, rank 0 first.
#
# The check compares your list with `gguftok.exercises.lesson03.reference_train_bpe` (a trainer that
# keeps its counts up to date instead of counting again) on small tables written out, 90 seeded random
# tables, and the word table of `data/corpus/harbour.txt` for 300 and 2,000 merges (the second runs
# out first). The first difference is the first rank where the two lists part.
#
# Write it in [`mytok/merges.py`](mytok/merges.py).

# %%
check("03.train_bpe")

# %% [markdown]
# ### Exercise 03.apply_merges: replay a merge list on one word
#
# Write `apply_merges(word, merges)`, the plainest encoder of one word: start from one symbol per
# character of `word`, then take the merge lines in the order of the list (rank 0 first) and apply each
# one to the whole word before the next, exactly as step 4 of `train_bpe` does: from left to right,
# each `left` directly followed by `right` becomes `left + right`, and a symbol just built does not
# join again in the same step. Split each line with your `split_merge`. Return the list of symbols.
#
# So `apply_merges("abc", ["a b", "b c"])` is `["ab", "c"]` (once `a b` has joined, no `b` is
# left for `c`), and with the two lines the other way round it is `["a", "bc"]`.
#
# The check compares your symbols with `gguftok.exercises.lesson03.reference_apply_merges` on the
# examples above, merges trained on 40 random tables, 40 random lists of lines in any order, and words
# through the 300 merges trained on `data/corpus/harbour.txt`.
#
# Write it in [`mytok/merges.py`](mytok/merges.py).

# %%
check("03.apply_merges")
