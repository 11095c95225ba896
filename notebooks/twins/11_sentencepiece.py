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
# # 11 · SentencePiece, and the other tokenizer families
#
# Notebooks 02 to 06 followed byte-level BPE: a byte map, a merge list, a pre-tokenizer regex. Not every
# vocabulary works that way. The key `tokenizer.ggml.model` names the family, and llama.cpp runs a different
# algorithm for each one:
#
# | `tokenizer.ggml.model` | llama.cpp name | idea |
# |---|---|---|
# | `gpt2` | BPE | byte map + ranked merge list (notebooks 02–06) |
# | `llama` | SPM | spaces become `▁`, merges chosen by **score**, unknown characters fall back to `<0xXX>` bytes |
# | `bert` | WPM | lower-case, split on punctuation, greedy longest match per word |
# | `t5` | UGM | normalise with a compiled character map, then the best-scoring split (Viterbi) |
# | `rwkv` | RWKV | greedy longest match on raw bytes |
# | `plamo2` | PLaMo-2 | best-scoring split over a byte-fallback vocabulary |
#
# Most of this notebook is about SentencePiece (SPM). It is the family of Llama 1 and 2, Mistral and Phi-3,
# and the second family your own tokenizer handles: in the middle of the notebook you write it in
# `mytok/sentencepiece.py`. At the end there is a short look at the others. Every id and every count printed
# here comes from `gguftok` running on the vocabulary files. The same Llama 2 example was checked against
# llama.cpp itself (the pinned llama-cpp-python 0.3.36 build), and the ids agree.

# %%
from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.viz.families_view import (
    compare_families,
    counts_figure,
    family_view,
    format_counts,
    load_all,
    normalize_view,
    pieces_table,
    spm_steps_view,
    token_counts,
    toy_spm_encode,
    toy_spm_vocab,
    wordpiece_view,
)


def load(name):
    return Tokenizer.from_gguf(vocab_dir() / f"ggml-vocab-{name}.gguf")


llama_spm = load("llama-spm")

# %% [markdown]
# ## SentencePiece merging on a toy vocabulary
#
# A SentencePiece vocabulary has no merge list. Each token has a **score** instead (`tokenizer.ggml.scores`,
# roughly a log-probability). The merge rule is:
#
# 1. replace every space with `▁` (U+2581) and put one `▁` in front of the text;
# 2. cut the text into characters;
# 3. look at every pair of neighbours; if the two together form a token, that pair may merge. Merge the pair
#    whose token has the **highest score**; on a tie, the leftmost pair;
# 4. repeat until no pair forms a token.
#
# Whatever symbol is left that is not a token is written as its UTF-8 bytes, one `<0xXX>` token per byte.
#
# The toy vocabulary below has 18 scored tokens plus the 256 byte tokens. `toy_spm_encode` runs it through
# the same `SPMModel` the real tokenizer uses.

# %%
TOY_TEXTS, TOY_SCORES = toy_spm_vocab()
for t, s in zip(TOY_TEXTS[:18], TOY_SCORES[:18], strict=True):
    print(f"{t:<8s}{s:6.1f}")

# %%
print(toy_spm_encode("Hello world", TOY_TEXTS, TOY_SCORES))
print(toy_spm_encode("Hello wörld", TOY_TEXTS, TOY_SCORES))

# %% [markdown]
# `Hello world` becomes two tokens. `Hello wörld` cannot: `ö` is not in the vocabulary, and no pair that
# contains it is a token. So `ö` stays alone and falls back to its two UTF-8 bytes, `<0xC3>` and `<0xB6>`. Its
# neighbour `r` never gets a partner, and only `ld` merges on that side.
#
# The order of the merges shows the score rule at work. `spm_steps_view` repeats the merging one step at a
# time with the plain rule (the library uses a priority queue; both end in the same tokens). The merged
# symbol of each step is drawn in blue.

# %%
spm_steps_view("Hello world", TOY_TEXTS, TOY_SCORES)

# %% [markdown]
# The order is not left to right. `ld` (−4.5) comes first, then `lo`, `or`, `▁w`. Once `▁w` and `or`
# exist, `▁wor` (−4.0) can form, and then `▁world` (−2.0). Only after that do the low-scoring `▁H`, `▁He`,
# `▁Hel` build up to `▁Hello`. A pair can merge only when both halves are already symbols. So a high score
# does not help `▁Hello` until `▁Hel` and `lo` exist.

# %% [markdown]
# ## The real Llama 2 vocabulary
#
# `ggml-vocab-llama-spm.gguf` is the 32,000-token Llama 2 vocabulary. It also adds a BOS token, `<s>` (id 1).

# %%
ids = llama_spm.encode("Hello wörld 😀")
print(ids)
pieces_table(llama_spm, ids)

# %% [markdown]
# These are the ids `llama-tokenize` prints for the same text at our pinned llama.cpp: 1, 15043, 281, 1340,
# 430, 29871, 243, 162, 155, 131. Unlike the toy, the real vocabulary has `ör` as a token, so `wörld` needs
# no byte fallback. The emoji has no token, and no pair of its bytes makes one. So it comes out as four byte
# tokens, `<0xF0> <0x9F> <0x98> <0x80>`. In this vocabulary the byte tokens start at id 3, so byte *b* has
# id *b* + 3. The space before the emoji is a token of its own, `▁` (29871).
#
# A byte token alone is not text, so the chips frame the four ids together with the character they spell:

# %%
family_view(llama_spm, "Hello wörld 😀", title="llama-spm")

# %% [markdown]
# ### A `▁` after every special token
#
# The leading `▁` is not only put at the start of the text. With `parse_special=True`, a special token such
# as `<s>` cuts the text into fragments (notebook 06). llama.cpp puts a `▁` in front of **every** raw fragment
# that follows a special token. So `Hi` becomes `▁Hi` (6324) here, and ` there` becomes `▁▁there`: a lone `▁`
# (29871), then `▁there` (727).

# %%
ids = llama_spm.encode("<s>Hi<s> there", parse_special=True)
print(ids, [llama_spm.token_text(i) for i in ids])

# %% [markdown]
# ### Decoding
#
# Decoding turns every `▁` back into a space and every byte token back into its byte. llama.cpp also removes
# the one space that the prefix `▁` put at the front, but only from the **first** token it decodes. If that
# first token is `<s>`, whose piece is empty, the space stays:

# %%
ids = llama_spm.encode("Hello wörld 😀")
print(repr(llama_spm.decode(ids)))       # starts with <s>: the space stays
print(repr(llama_spm.decode(ids[1:])))   # starts with ▁Hello: the space is removed
print(repr(llama_spm.decode(ids, remove_special=True)))

# %% [markdown]
# The third line may be surprising: `remove_special=True` drops the `<s>`, but llama.cpp then also turns the
# space removal off, so the space stays. We copy that rule as the pinned llama.cpp has it.

# %% [markdown]
# ### Phi-3 and Baichuan
#
# Phi-3 reuses the Llama 2 vocabulary (plus chat tokens), so it gives the same ids on ordinary text.
# Baichuan is a SentencePiece vocabulary of 125,696 tokens with many Chinese words, so Chinese text needs
# far fewer tokens:

# %%
phi3, baichuan = load("phi-3"), load("baichuan")
for text in ["Hello wörld 😀", "我们今天去公园散步。"]:
    for name, tok in [("llama-spm", llama_spm), ("phi-3", phi3), ("baichuan", baichuan)]:
        print(family_view(tok, text, title=name).text)
    print()

# %% [markdown]
# ## What the merge is given: escaped text
#
# The merge never sees the text as typed. Before it, the tokenizer does two things to every piece of raw
# text that the special-token partition leaves (notebook 06):
#
# 1. **The prefix.** If the piece comes first, or right after a special token, it gets one space in front.
#    The key `tokenizer.ggml.add_space_prefix` turns this off when it is `false`; when the file does not
#    have the key (Llama 2's has not, the cell below shows), it is on.
# 2. **The escape.** Every space becomes `▁` (U+2581, "lower one eighth block"). Nothing else changes: a
#    tab, a newline, an accent stay as they are.
#
# `gguftok.viz.families_view.spm_escape` does both, for a piece that gets the prefix:

# %%
from gguftok.viz.families_view import spm_escape  # noqa: E402

print("add_space_prefix in the file:", "tokenizer.ggml.add_space_prefix" in llama_spm.vocab.md)
for text in ["Hello world", "  Hi", "a\tb\nc", ""]:
    print(f"{text!r:>15} -> {spm_escape(text)!r}")

# %% [markdown]
# Your tokenizer in notebook 12 does the same, and hands each escaped piece to the function you write below,
# `spm_encode`, with the vocabulary in two tables read from the file: `token_ids`, each token's text to its
# id (from `tokenizer.ggml.tokens`), and `scores`, each id's score (`tokenizer.ggml.scores`), plus the id of
# the unknown token (`tokenizer.ggml.unknown_token_id`). The ids of the escaped pieces, one after the other,
# are the tokenizer's ids. For `<s>Hi<s> there` (with `parse_special=True`) the pieces are `Hi` and
# ` there`, both after a special token:

# %%
md = llama_spm.vocab.md
token_ids = {text: i for i, text in enumerate(md["tokenizer.ggml.tokens"])}
scores = [float(s) for s in md["tokenizer.ggml.scores"]]  # gguftok reads this array as NumPy
unk_id = md["tokenizer.ggml.unknown_token_id"]
print(len(token_ids), "tokens; unknown token:", unk_id, repr(md["tokenizer.ggml.tokens"][unk_id]))
for piece in ["Hi", " there"]:
    escaped = spm_escape(piece)
    print(f"{piece!r:>8} -> {escaped!r:>10} -> {llama_spm.model.encode(escaped.encode())}")
print("the whole text:", llama_spm.encode("<s>Hi<s> there", add_special=False, parse_special=True))

# %% [markdown]
# ## llama.cpp's SentencePiece session
#
# `spm_steps_view` above scans every pair again before each merge. llama.cpp (`llm_tokenizer_spm_session` in
# `llama-vocab.cpp`) makes the same merges with a queue, like notebook 05's, with three differences:
#
# - **The order.** The pair whose token has the highest **score** comes out first (notebook 05: the lowest
#   rank); on equal scores, the leftmost pair.
# - **What may merge.** Any two neighbours whose concatenation is a token, of any type. There is no merge
#   list: the vocabulary itself says what can join.
# - **What goes in.** At the start, every pair of neighbouring characters that together spell a token; after
#   each merge, the two pairs the new symbol forms with its neighbours, again only if they spell a token.
#   An entry whose symbols have changed since it went in is stale and skipped when it comes out, exactly as
#   in notebook 05.
#
# When the queue is empty, each symbol left is emitted in order: a symbol that is a token gives its id.
# Every merge made a token, so a symbol that is not one is a single character that never merged. (llama.cpp's
# emitting function, `resegment`, has a branch that would split such a symbol back into the two it was made
# from, using a table of merges it calls `rev_merge`; since a merge only ever makes a token, that branch is
# never taken.) Such a character is written as its UTF-8 bytes, each byte the token `<0xNN>`, `NN` its
# value in upper-case hex. If a vocabulary has no `<0xNN>` token for a byte, llama.cpp tries the byte alone
# as a one-character token and, failing that, stops with an error; your `spm_encode` gives the unknown token
# there instead, so that it always has an answer.
#
# Here are the symbols the merge leaves for the earlier example on the real vocabulary, and what each becomes:

# %%
from gguftok.models.spm import spm_merge  # noqa: E402

symbols = spm_merge(spm_escape("Hello wörld 😀").encode(), llama_spm.model.bytes_to_id, scores)
for sym in symbols:
    tid = token_ids.get(sym.decode())
    if tid is not None:
        print(f"{sym.decode()!r:>9}: token {tid}")
    else:
        fallback = [f"<0x{b:02X}>" for b in sym]
        print(f"{sym.decode()!r:>9}: no token; its bytes {fallback} -> {[token_ids[t] for t in fallback]}")

# %% [markdown]
# `ör` is a token of Llama 2, so `ö` merged; the emoji has no token and no pair around it is one, so its
# four bytes come out as four byte tokens, each id the byte plus 3.
#
# ## Now write it: `mytok/sentencepiece.py`
#
# Open [`mytok/sentencepiece.py`](mytok/sentencepiece.py), your package's module for this stage. It has two
# functions to write, each with its check at the end of this notebook:
#
# - `spm_merge(text, token_ids, scores)`: the merge, highest score first and leftmost on ties, returning the
#   symbols left. A plain loop that scans every pair again gives the same symbols; the queue is how llama.cpp
#   does it, and `heapq` with `(-score, position, ...)` entries gives you the highest score first;
# - `spm_encode(text, token_ids, scores, unk_id)`: your merge, then the ids, with the byte fallback.
#
# The checks use the toy vocabulary with an unknown token added after the byte tokens (id 274), as these
# three names:

# %%
from gguftok.exercises.lesson11 import toy_ids  # noqa: E402

TOY_IDS, TOY_SCORES, TOY_UNK = toy_ids()
print(len(TOY_IDS), "tokens;", "<unk> is", TOY_UNK)

# %% [markdown]
# The cell below runs your `spm_encode` beside gguftok's tokenizer on a few texts of the real Llama 2
# vocabulary, escaped as above. It reads your file afresh each time it runs.

# %%
from gguftok.exercises import workspace  # noqa: E402

for text in ["Hello world", "Hello wörld 😀", "  Hi", "Tokenizers are unbelievable."]:
    expected = llama_spm.encode(text, add_special=False)
    try:
        yours = workspace.load("sentencepiece").spm_encode(spm_escape(text), token_ids, scores, unk_id)
    except NotImplementedError:
        yours = "not written yet in mytok/sentencepiece.py"
    same = "" if isinstance(yours, str) else ("  same" if yours == expected else "  DIFFERENT")
    print(f"{text!r:>32}: gguftok {expected}\n{'':>32}  yours   {yours}{same}")

# %% [markdown]
# ## WordPiece: BERT (`bert-bge`)
#
# WordPiece works word by word. First the text is cut into words: lower-cased, accents removed, and every
# punctuation mark made a word of its own (`gguftok.models.wpm.preprocess`). Then each word is matched
# greedily: take the longest token that starts the word, then the longest token that continues it, and so
# on. In the GGUF file, a token that starts a word begins with `▁`, and a continuation has no marker (BERT's
# own files write it the other way round, with `##`). A BERT vocabulary adds `[CLS]` in front and `[SEP]` at
# the end.

# %%
bert = load("bert-bge")
wordpiece_view(bert, "Hello, wörld! Tokenizers are unbelievable.")

# %%
family_view(bert, "Hello, wörld! Tokenizers are unbelievable.", title="bert-bge")

# %% [markdown]
# ## Unigram: `nomic-bert-moe`
#
# A Unigram vocabulary first **normalises** the text with a precompiled character map stored in the file
# (`tokenizer.ggml.precompiled_charsmap`): a trie that maps character sequences to replacements, in the
# style of Unicode NFKC. Full-width letters become ASCII, a circled digit becomes a digit, and spaces become
# `▁`. Then it picks, among all ways to split the normalised text into tokens, the one with the highest
# total score (the Viterbi algorithm).

# %%
nomic = load("nomic-bert-moe")
normalize_view(nomic, ["ｈｅｌｌｏ", "①②", "Ｈｅｌｌｏ　ｗｏｒｌｄ", "ﬁne", "hello  world"])

# %%
print(family_view(nomic, "ｈｅｌｌｏ ① world", title="nomic-bert-moe").text)
print(family_view(nomic, "hello 1 world", title="nomic-bert-moe").text)

# %% [markdown]
# After normalisation the full-width text and the plain text are the same string, so they get the same ids.
# This vocabulary lower-cases nothing: upper-case full-width letters become upper-case ASCII.

# %% [markdown]
# ## RWKV and PLaMo-2 (synthetic vocabularies)
#
# llama.cpp's test set has no RWKV or PLaMo-2 vocabulary, so this project builds small synthetic ones
# (`data/synthetic/`). RWKV matches the longest token in raw bytes, greedily, with no `▁` and no
# normalisation. PLaMo-2 finds the best-scoring split and falls back to `<0xXX>` byte tokens.

# %%
rwkv = Tokenizer.from_gguf("../data/synthetic/rwkv.gguf")
plamo2 = Tokenizer.from_gguf("../data/synthetic/plamo2.gguf")
for name, tok in [("rwkv", rwkv), ("plamo2", plamo2)]:
    print(family_view(tok, "Hello wörld", title=name).text)

# %% [markdown]
# ## One sentence, 19 vocabularies
#
# The table runs one sentence through all 19 test vocabularies, with the special tokens each adds. It is
# sorted by family. Llama 2 and Phi-3 spend four byte tokens on the emoji; Baichuan has it as one token.
# WordPiece drops the accent (`wörld` is `world`, 2088) and has no token for the emoji: `[UNK]` (100).

# %%
TOKS = load_all()
compare_families(TOKS, "Hello wörld 😀")

# %% [markdown]
# The same idea for a few languages, without special tokens. The counts come from our tokenizer:

# %%
SENTENCES = {
    "English": "The weather is nice today, so we are going for a walk in the park.",
    "German": "Das Wetter ist heute schön, also gehen wir im Park spazieren.",
    "Chinese": "今天天气很好，所以我们去公园散步。",
    "Russian": "Сегодня хорошая погода, поэтому мы идём гулять в парк.",
}
COUNTS = token_counts(TOKS, SENTENCES)
print(format_counts(COUNTS))

# %% tags=["nbval-ignore-output"]
counts_figure(COUNTS, {n: t.vocab.type for n, t in TOKS.items()});

# %% [markdown]
# ## Try it
#
# Type a text and pick a vocabulary file. Things to try: an emoji with `llama-spm` (byte fallback), full-width
# letters with `nomic-bert-moe` (normalised), accents with `bert-bge` (removed), Chinese with `baichuan`.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.families_view import families_playground  # noqa: E402

families_playground(text="Hello wörld 😀", vocab="ggml-vocab-llama-spm.gguf")

# %% [markdown]
# The same view without the widget (this is what the tests check):

# %%
family_view(TOKS["llama-spm"], "Hello wörld 😀", title="llama-spm")

# %% [markdown]
# ## What you can now explain
#
# - SentencePiece BPE has no merge list: it merges the neighbouring pair whose token scores highest,
#   leftmost on ties, so merges do not run left to right. llama.cpp keeps the candidate pairs in a queue and
#   skips stale entries, as the BPE merge queue does.
# - Spaces are `▁`, one `▁` goes in front of the text and in front of every raw fragment after a special
#   token (unless `tokenizer.ggml.add_space_prefix` is false), and decoding removes only the first one (and
#   not after `<s>`). The merge itself only ever sees escaped text.
# - A character with no token becomes its UTF-8 bytes as `<0xXX>` tokens; in Llama 2, byte *b* is id *b* + 3.
#   Every merge makes a token, so only single characters ever need this.
# - WordPiece lower-cases, strips accents, splits punctuation, then matches the longest token greedily and
#   adds `[CLS]`/`[SEP]`.
# - Unigram normalises with the file's character map, then picks the best-scoring split.
# - RWKV matches the longest byte string greedily; PLaMo-2 picks the best-scoring split with byte fallback.

# %% [markdown]
# ## Exercises
#
# Your own tokenizer lives in `mytok/`, a package of yours beside these notebooks, one module per
# stage. This notebook's stage is [`mytok/sentencepiece.py`](mytok/sentencepiece.py):
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
# ### Exercise 11.spm_merge: merge by score
#
# Write `spm_merge(text, token_ids, scores)`, SentencePiece's merge: start with one symbol per
# character of `text` (its spaces are already `▁`); as long as two neighbouring symbols together spell
# a token (a key of `token_ids`), merge the pair whose token has the **highest score**
# (`scores[token_ids[pair]]`), the **leftmost** on ties; return the symbols left. llama.cpp does it with
# a queue of pairs and skips the entries that have gone stale, as notebook 05 did with ranks.
#
# The check uses the toy vocabulary (`TOY_IDS, TOY_SCORES`) on this notebook's texts and 100 random
# ones, 150 small random vocabularies with many equal scores, and Llama 2's real vocabulary on the
# words and the whole texts of llama.cpp's own test file, against `gguftok.models.spm.spm_merge`.
#
# Write it in [`mytok/sentencepiece.py`](mytok/sentencepiece.py).

# %%
check("11.spm_merge")

# %% [markdown]
# ### Exercise 11.spm_encode: SentencePiece, whole: merge, then ids with byte fallback
#
# Write `spm_encode(text, token_ids, scores, unk_id)`: merge `text` with your `spm_merge`, then give
# each symbol its id. A symbol that is not a token (a character of no token at all, since every merge
# makes a token) becomes its UTF-8 bytes, one `<0xNN>` token per byte with the byte in upper-case hex
# (`é` is `<0xC3>` `<0xA9>`); a byte whose `<0xNN>` token the vocabulary lacks becomes `unk_id`.
#
# The check uses the toy vocabulary (`TOY_IDS, TOY_SCORES`) on this notebook's texts and 100 random
# ones, the toy vocabulary without its non-ASCII byte tokens on 40 more, and the real Llama 2 and Phi-3
# vocabularies: words and whole texts of llama.cpp's own test files, escaped as the tokenizer escapes
# them, and 30 random texts in many scripts each. The expected ids are those of
# `gguftok.models.spm.SPMModel`, which are llama.cpp's.
#
# Write it in [`mytok/sentencepiece.py`](mytok/sentencepiece.py).

# %%
check("11.spm_encode")
