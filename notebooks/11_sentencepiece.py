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
# Most of this notebook is about SentencePiece (SPM). It is the family of Llama 1 and 2, Mistral and Phi-3.
# At the end there is a short look at the others. Every id and every count printed here comes from `gguftok`
# running on the vocabulary files. The same Llama 2 example was checked against llama.cpp itself (the pinned
# llama-cpp-python 0.3.36 build), and the ids agree.

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
#   leftmost on ties, so merges do not run left to right.
# - Spaces are `▁`, one `▁` goes in front of the text and in front of every raw fragment after a special
#   token, and decoding removes only the first one (and not after `<s>`).
# - A character with no token becomes its UTF-8 bytes as `<0xXX>` tokens; in Llama 2, byte *b* is id *b* + 3.
# - WordPiece lower-cases, strips accents, splits punctuation, then matches the longest token greedily and
#   adds `[CLS]`/`[SEP]`.
# - Unigram normalises with the file's character map, then picks the best-scoring split.
# - RWKV matches the longest byte string greedily; PLaMo-2 picks the best-scoring split with byte fallback.

# %% [markdown]
# ## Exercises
#
# Write each function in the code cell under its statement, run that cell, then run the check below it.
# The check calls your function on this lesson's examples and on many generated inputs (seeded, so the
# same every time), compares each answer with gguftok's own, and shows the first input where they
# differ: the input, the expected answer, yours, and for a list the first index that differs. Until you
# write the body it says *not attempted*. `gguftok.exercises.show("NN.name")` prints a task again.
# The solutions are in `solutions/lesson11.py` at the top of the repository.

# %%
from gguftok.exercises import check  # noqa: E402


# %% [markdown]
# ### Exercise 11.spm_merge: merge by score
#
# Write `spm_merge(text, scores)`, SentencePiece's merge loop: start with one symbol per character of
# `text` (spaces are already `▁`); as long as some pair of neighbours together spells a token of `scores`
# (a dictionary token text -> score), merge the pair whose token has the **highest score**, the
# **leftmost** on ties; return the symbols left.
#
# The check uses this notebook's toy vocabulary (`TOY_SCORES`, its 18 scored tokens) on the lesson's
# words and 100 random ones, 150 random vocabularies with many equal scores, and the real Llama 2 scores,
# against `gguftok.models.spm.spm_merge` (a priority queue; a plain loop that rescans every pair gives
# the same answers).

# %%
def spm_merge(text: str, scores: dict[str, float]) -> list[str]:
    """Characters of ``text`` merged pair by pair, highest-scoring token first (ties: leftmost).

    >>> spm_merge("▁Hello", {"▁H": -9.0, "▁He": -7.0, "lo": -5.0, "▁Hel": -6.8, "▁Hello": -3.0})
    ['▁Hello']
    """
    raise NotImplementedError


# %%
check("11.spm_merge", spm_merge)


# %% [markdown]
# ### Exercise 11.spm_encode: the toy SentencePiece encoder
#
# Put SentencePiece together on the toy vocabulary. `texts` and `scores` are parallel lists
# (`TOY_TEXTS, TOY_SCORES = toy_spm_vocab()`: 18 scored tokens, then the 256 byte tokens `<0x00>`..
# `<0xFF>`). Write `spm_encode(text, texts, scores)` that returns the token texts:
#
# 1. replace every space with `▁` and put one `▁` in front;
# 2. merge with your `spm_merge`, using only the tokens that are not byte tokens;
# 3. a symbol that is a token stays; any other symbol becomes one `<0xXX>` token per UTF-8 byte
#    (upper-case hex).
#
# The check uses the lesson's two texts, an emoji, and 150 random texts, against gguftok's
# `SPMModel` (`gguftok.viz.families_view.toy_spm_encode`).

# %%
def spm_encode(text: str, texts: list[str], scores: list[float]) -> list[str]:
    """SentencePiece on a toy vocabulary: ``▁`` for spaces and in front, merge by score, byte fallback.

    >>> spm_encode("Hello wörld", TOY_TEXTS, TOY_SCORES)
    ['▁Hello', '▁w', '<0xC3>', '<0xB6>', 'r', 'ld']
    """
    raise NotImplementedError


# %%
check("11.spm_encode", spm_encode)
