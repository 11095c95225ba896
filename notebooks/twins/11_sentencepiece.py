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
# # 11 · SentencePiece, WordPiece and Unigram
#
# Notebooks 02 to 06 followed byte-level BPE: a byte map, a merge list, a pre-tokenizer regex. The key
# `tokenizer.ggml.model` names the family, and llama.cpp runs a different algorithm for each:
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
# This notebook teaches SentencePiece (Llama 1 and 2, Mistral, Phi-3), WordPiece (BERT) and Unigram (T5,
# XLM-R); your tokenizer handles all three in notebook 12.
#
# **After this notebook you can**
#
# - run SentencePiece's merge by hand, and explain `▁`, the prefix space and `<0xXX>` byte fallback;
# - match a word the WordPiece way, and say when the whole word becomes `[UNK]`;
# - fill in Viterbi's table for a Unigram vocabulary and walk back to the best split;
# - write all three in your own package, with llama.cpp's ids on Llama 2, BERT and nomic-bert-moe.

# %%
from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.viz.families_view import (
    compare_families,
    counts_figure,
    counts_table,
    family_view,
    load_all,
    normalize_view,
    pieces_table,
    spm_escape,
    spm_steps_view,
    token_counts,
    toy_spm_encode,
    toy_spm_vocab,
    wordpiece_view,
)
from gguftok.viz.languages_view import SAMPLES
from gguftok.exercises.lesson11 import (
    lattice_table,
    toy_unigram,
    toy_wordpiece,
    viterbi_steps,
    wordpiece_steps,
)


def load(name):
    return Tokenizer.from_gguf(vocab_dir() / f"ggml-vocab-{name}.gguf")


llama_spm = load("llama-spm")

# %% [markdown]
# ## SentencePiece merging on a toy vocabulary
#
# A SentencePiece vocabulary has no merge list. Each token has a **score** instead (`tokenizer.ggml.scores`,
# roughly a log-probability), and the rule is:
#
# 1. replace every space with `▁` (U+2581) and put one `▁` in front of the text;
# 2. cut the text into characters;
# 3. among the pairs of neighbours that together form a token, merge the one whose token has the **highest
#    score** (on a tie, the leftmost);
# 4. repeat until no pair forms a token.
#
# Whatever symbol is left that is not a token is written as its UTF-8 bytes, one `<0xXX>` token per byte.
# The toy vocabulary below has a few scored tokens plus a token for every byte; `toy_spm_encode` runs it
# through the same `SPMModel` the real tokenizer uses.

# %%
TOY_TEXTS, TOY_SCORES = toy_spm_vocab()
scored = [(t, s) for t, s in zip(TOY_TEXTS, TOY_SCORES, strict=True) if not t.startswith("<0x")]
print(len(scored), "scored tokens:", ", ".join(f"{t} {s}" for t, s in scored))
print(len(TOY_TEXTS) - len(scored), "byte tokens:", TOY_TEXTS[len(scored)], "...", TOY_TEXTS[-1])
print(toy_spm_encode("Hello world", TOY_TEXTS, TOY_SCORES))
print(toy_spm_encode("Hello wörld", TOY_TEXTS, TOY_SCORES))

# %% [markdown]
# `Hello world` becomes two tokens. `Hello wörld` cannot: `ö` is not in the vocabulary and no pair that
# contains it is a token, so it falls back to its two UTF-8 bytes, `<0xC3>` and `<0xB6>`; its neighbour `r`
# never gets a partner. `spm_steps_view` repeats the merging one step at a time with the plain rule (the merged
# symbol of each step in blue):

# %%
spm_steps_view("Hello world", TOY_TEXTS, TOY_SCORES)

# %% [markdown]
# The order is not left to right. `ld` (−4.5) comes first, then `lo`, `or`, `▁w`; once `▁w` and `or` exist,
# `▁wor` (−4.0) can form, then `▁world` (−2.0). Only after that do the low-scoring `▁H`, `▁He`, `▁Hel` build
# up to `▁Hello`: a pair can merge only when both halves are already symbols.
#
# ## The real Llama 2 vocabulary
#
# `ggml-vocab-llama-spm.gguf` is Llama 2's vocabulary; it adds a BOS token, `<s>` (id 1), in front.

# %%
ids = llama_spm.encode("Hello wörld 😀")
print(llama_spm.n_vocab, "tokens;", ids)
pieces_table(llama_spm, ids)

# %% [markdown]
# These are the ids `llama-tokenize` prints for the same text. The real vocabulary has `ör`, so `wörld` needs
# no fallback; the emoji has no token, nor any pair of its bytes, so it becomes four byte tokens, and the space
# before it is a token of its own, `▁` (29871). Byte *b* is id *b* + 3.
#
# ### A `▁` after every special token
#
# With `parse_special=True` a special token such as `<s>` cuts the text into fragments (notebook 06), and
# llama.cpp puts a `▁` in front of **every** raw fragment that follows a special token: `Hi` becomes `▁Hi`
# (6324), and ` there` becomes `▁▁there`, a lone `▁` (29871) then `▁there` (727).

# %%
ids = llama_spm.encode("<s>Hi<s> there", parse_special=True)
print(ids, [llama_spm.token_text(i) for i in ids])

# %% [markdown]
# ### Decoding
#
# Decoding turns every `▁` back into a space and every byte token back into its byte, and removes the one
# space the prefix `▁` put in front, but only from the **first** token it decodes. If that first token is
# `<s>`, whose piece is empty, the space stays:

# %%
ids = llama_spm.encode("Hello wörld 😀")
print(repr(llama_spm.decode(ids)))       # starts with <s>: the space stays
print(repr(llama_spm.decode(ids[1:])))   # starts with ▁Hello: the space is removed

# %% [markdown]
# ## What the merge is given: escaped text
#
# Each fragment of raw text the special-token partition leaves gets **the prefix**, a space in front if it
# comes first or right after a special token (unless `tokenizer.ggml.add_space_prefix` is `false`), then
# **the escape**: every space becomes `▁`. `spm_escape` does both. Your tokenizer in notebook 12 hands each
# escaped fragment to your `spm_encode` with `token_ids`, `scores` and the unknown token's id, all read from
# the file. For `<s>Hi<s> there` the fragments are `Hi` and ` there`:

# %%
md = llama_spm.vocab.md
print("add_space_prefix in the file:", "tokenizer.ggml.add_space_prefix" in md)
for text in ["Hello world", "  Hi", "a\tb\nc", ""]:
    print(f"{text!r:>15} -> {spm_escape(text)!r}")
token_ids = {text: i for i, text in enumerate(md["tokenizer.ggml.tokens"])}
scores = [float(s) for s in md["tokenizer.ggml.scores"]]  # gguftok reads this array as NumPy
unk_id = md["tokenizer.ggml.unknown_token_id"]
print(len(token_ids), "tokens; unknown token:", unk_id, repr(md["tokenizer.ggml.tokens"][unk_id]))
for piece in ["Hi", " there"]:
    escaped = spm_escape(piece)
    print(f"{piece!r:>8} -> {escaped!r:>10} -> {llama_spm.model.encode(escaped.encode())}")
print("the whole text:", llama_spm.encode("<s>Hi<s> there", add_special=False, parse_special=True))

# %% [markdown]
# ## Now write it: `mytok/sentencepiece.py`
#
# [`mytok/sentencepiece.py`](mytok/sentencepiece.py) has two functions to write: `spm_merge`, the merge, and
# `spm_encode`, the merge then the ids. A loop that scans every pair again before each merge gives the right
# symbols; llama.cpp uses a queue like notebook 05's, highest score first (`heapq` with `(-score, position,
# ...)` entries). Here are the symbols the merge leaves for the example above, and what each becomes:

# %%
from gguftok.models.spm import spm_merge as reference_merge  # noqa: E402

# gguftok's merge works on the UTF-8 bytes (bytes -> id); the one you write takes the text and its token ids
symbols = reference_merge(spm_escape("Hello wörld 😀").encode(), llama_spm.model.bytes_to_id, scores)
for sym in symbols:
    tid = token_ids.get(sym.decode())
    if tid is not None:
        print(f"{sym.decode()!r:>9}: token {tid}")
    else:
        fallback = [f"<0x{b:02X}>" for b in sym]
        print(f"{sym.decode()!r:>9}: no token; its bytes {fallback} -> {[token_ids[t] for t in fallback]}")

# %% [markdown]
# The checks' toy vocabulary, with an unknown token added, under three names; then your `spm_encode` beside
# gguftok's on Llama 2.

# %%
from gguftok.exercises import workspace  # noqa: E402
from gguftok.exercises.lesson11 import toy_ids  # noqa: E402

TOY_IDS, TOY_SCORES, TOY_UNK = toy_ids()
print(len(TOY_IDS), "tokens;", "<unk> is", TOY_UNK)

# %%
for text in ["Hello world", "Hello wörld 😀", "  Hi", "Tokenizers are unbelievable."]:
    expected = llama_spm.encode(text, add_special=False)
    try:
        yours = workspace.load("sentencepiece").spm_encode(spm_escape(text), token_ids, scores, unk_id)
    except NotImplementedError:
        yours = "not written yet in mytok/sentencepiece.py"
    same = "" if isinstance(yours, str) else ("  same" if yours == expected else "  DIFFERENT")
    print(f"{text!r:>32}: gguftok {expected}\n{'':>32}  yours   {yours}{same}")


# %% [markdown]
# ## WordPiece: the longest token first (`bert-bge`)
#
# WordPiece's pre-tokenizer lower-cases the text, strips accents (`é` becomes `e`), cuts at whitespace, and
# makes every punctuation mark and Chinese character a word alone. Each word is matched **greedily**:
#
# 1. put `▁` in front of the word: in the GGUF file a token that starts a word begins with `▁`, and one that
#    continues a word (BERT's `##izer`) has no mark;
# 2. from where you are, take the **longest** token that the rest of the word starts with, and move past it;
# 3. repeat until the word is used up. If at some place no token starts the rest, the whole word becomes one
#    `[UNK]`, and what was matched before is dropped.
#
# A toy vocabulary shows the three outcomes. No token is longer than `WP_MAX` characters, so the search at
# each place starts at that length (llama.cpp's `max_token_len`):

# %%
WP_IDS, WP_UNK, WP_MAX = toy_wordpiece()
print(len(WP_IDS), "tokens:", " ".join(WP_IDS), "| the longest has", WP_MAX, "characters")
for word in ["tokenizers", "unable", "tokenx"]:
    print(wordpiece_steps(word, WP_IDS, WP_UNK, WP_MAX), end="\n\n")

# %% [markdown]
# At place 6 of `▁tokenizers` the rest starts with `iz`, `ize` and `izer`: the longest wins, and greedy never
# looks back. In `tokenx` no token starts with `x`, so the word is `[UNK]` alone. llama.cpp puts no limit on
# the length of a word.
#
# On the real BERT vocabulary (the whole encoding adds `[CLS]` in front and `[SEP]` at the end), `wörld`
# loses its accent before any token is chosen:

# %%
bert = load("bert-bge")
wordpiece_view(bert, "Hello, wörld! Tokenizers are unbelievable.")

# %% [markdown]
# Your `mytok/wordpiece.py` comes with that pre-tokenizer written out (`_words`, on Python's `unicodedata`;
# llama.cpp's own Unicode tables differ only on characters newer than Python's).
#
# ## Unigram: the best-scoring split (`nomic-bert-moe`)
#
# Unigram neither merges nor matches greedily. Each token has a score, a log-probability, and among **all**
# the ways to cut the text into tokens it takes the one whose scores add up to the most.
#
# First the text is **normalised** with a character map stored in the file
# (`tokenizer.ggml.precompiled_charsmap`), in the style of Unicode NFKC; then each run of spaces becomes one
# `▁` in front of the next word. It lower-cases nothing:

# %%
nomic = load("nomic-bert-moe")
normalize_view(nomic, ["ｈｅｌｌｏ", "①②", "Ｈｅｌｌｏ　ｗｏｒｌｄ", "ﬁne", "hello  world"])

# %% [markdown]
# ### The lattice
#
# Take a toy vocabulary and the normalised text `▁hug`. The **lattice** lists, at each position, every token
# that starts there and the position it leads to:

# %%
UG_IDS, UG_SCORES, UG_UNK, UG_UNK_SCORE, UG_MAX = toy_unigram()
print(f"{len(UG_IDS)} tokens, and <unk> (id {UG_UNK}), which scores {UG_UNK_SCORE}")
print(lattice_table("▁hug", UG_IDS, UG_SCORES, UG_MAX))

# %% [markdown]
# ### Viterbi, step by step
#
# Viterbi fills in, for each position *e*, `best[e]`: the highest total score of a split of the text up to
# *e*, the token that ends it and where that token starts. `best[0]` is 0.0, the empty split.
#
# 1. Go through the start positions from left to right; `best[start]` is final when you reach it.
# 2. For each token that starts there, `best[start]` plus its score is a candidate for `best[end]`; keep it
#    only if it is **strictly** higher, so on a tie the earlier start stays.
# 3. If no token of one character starts there, the unknown token may step over that character.
# 4. Walk back from the last position to 0, token by token; reverse what you collected.

# %%
print(viterbi_steps("▁hug", UG_IDS, UG_SCORES, UG_UNK, UG_UNK_SCORE, UG_MAX))

# %% [markdown]
# `▁hug` alone scores −8.0, but `▁` then `hug` scores −7.0: Viterbi takes two tokens where a greedy match
# would take the longest. Keeping only the best split per position makes the work grow with the text's length
# times the longest token's, not with the number of splits.
#
# **Unknown characters.** llama.cpp scores the unknown token at the lowest score of a normal token minus 10
# (here −8.0 − 10 = −18.0), so it is chosen only where no token fits, and unknown tokens next to each other in
# the result become one:

# %%
print(viterbi_steps("▁hxxg", UG_IDS, UG_SCORES, UG_UNK, UG_UNK_SCORE, UG_MAX))

# %% [markdown]
# On the real vocabulary, the full-width text and the plain one get the same ids:

# %%
print(family_view(nomic, "ｈｅｌｌｏ ① world", title="nomic-bert-moe").text)
print(family_view(nomic, "hello 1 world", title="nomic-bert-moe").text)

# %% [markdown]
# Your `mytok/unigram.py` comes with the normaliser written out, `_normalize`, for a vocabulary without
# user-defined tokens such as this one: llama.cpp lets those through unnormalised, scoring 0. It also walks a
# trie instead of trying every length.

# %% [markdown]
# ## Exercises
#
# This notebook's stages are [`mytok/sentencepiece.py`](mytok/sentencepiece.py), [`mytok/wordpiece.py`](mytok/wordpiece.py) and [`mytok/unigram.py`](mytok/unigram.py): write the body of each
# function named below in its file, save, and run its check (notebook 00, *How the exercises work*,
# says what a check does).

# %%
from gguftok.exercises import check, rerun  # noqa: E402

# %% [markdown]
# ### Exercise 11.spm_merge: merge by score
#
# Write `spm_merge(text, token_ids, scores)`: start with one symbol per character of `text`; while
# two neighbours together spell a token (a key of `token_ids`), merge the pair whose token has the
# **highest score** (`scores[token_ids[pair]]`), the **leftmost** on ties; return the symbols left.
#
# The check uses the toy vocabulary (`TOY_IDS, TOY_SCORES`) on this notebook's texts and 100 random
# ones, 150 small random vocabularies with many equal scores, and Llama 2's vocabulary on the words
# and texts of llama.cpp's test file, against `gguftok.models.spm.spm_merge`.
#
# Write it in [`mytok/sentencepiece.py`](mytok/sentencepiece.py).

# %%
check("11.spm_merge")

# %% [markdown]
# ### Exercise 11.spm_encode: SentencePiece, whole: merge, then ids with byte fallback
#
# Write `spm_encode(text, token_ids, scores, unk_id)`: your `spm_merge`, then each symbol's id. A
# symbol that is not a token becomes its UTF-8 bytes, one `<0xNN>` token per byte (upper-case hex:
# `é` is `<0xC3>` `<0xA9>`); a byte without such a token becomes `unk_id`.
#
# The check uses the toy vocabulary on this notebook's texts and 100 random ones, the toy vocabulary
# without its non-ASCII byte tokens on 40 more, and Llama 2's and Phi-3's vocabularies on the words and
# texts of llama.cpp's test files and 30 random texts each, against `gguftok.models.spm.SPMModel`.
#
# Write it in [`mytok/sentencepiece.py`](mytok/sentencepiece.py).

# %%
check("11.spm_encode")

# %% [markdown]
# ### Exercise 11.wordpiece_word: WordPiece: the longest token first
#
# Write `wordpiece_word(word, token_ids, unk_id, max_len)`: put `▁` in front of the word, then from the
# start take the **longest** token (a key of `token_ids`, at most `max_len` characters) that the rest
# starts with, and go on after it; return the ids. If at some place no token fits, return `[unk_id]`.
#
# The check uses the toy vocabulary on this notebook's words and 100 random ones, and bert-bge's
# on the words of llama.cpp's test file, 150 words glued from its tokens and the words of 60
# random texts, against `gguftok.models.wpm.WPMModel`.
#
# Write it in [`mytok/wordpiece.py`](mytok/wordpiece.py).

# %%
check("11.wordpiece_word")

# %% [markdown]
# ### Exercise 11.unigram_encode: Unigram: the best-scoring split, by Viterbi
#
# Write `unigram_encode(text, token_ids, scores, unk_id, unk_score, max_len)`, Viterbi on normalised
# text: a token (a key of `token_ids`, at most `max_len` characters) adds `scores[id]`; where no
# one-character token starts, `unk_id` may step over one character, adding `unk_score`. Keep a candidate
# only if it is **strictly** better, walk back from the end, and make unknowns next to each other one.
#
# The check uses the toy vocabulary on this notebook's texts and 100 random ones, 150 small
# random vocabularies with many equal scores, and nomic-bert-moe's on normalised texts (llama.cpp's
# recorded ones for it, those of its test file for bert-bge, 40 random ones) and their words, against
# `gguftok.models.ugm.UGMModel`.
#
# Write it in [`mytok/unigram.py`](mytok/unigram.py).

# %%
check("11.unigram_encode")

# %% [markdown]
# ## Recap
#
# - SentencePiece merges the neighbouring pair whose token scores highest, leftmost on ties; a pair merges only
#   once both halves exist.
# - Spaces are `▁`; one goes in front of the text and of every fragment after a special token, and decoding
#   removes only the first one.
# - A character with no token becomes its UTF-8 bytes as `<0xXX>` tokens; only single characters need it.
# - WordPiece matches each word greedily, the longest token first after a `▁`; where no token fits, the whole
#   word is `[UNK]`.
# - Unigram normalises with the file's character map; Viterbi keeps the best score ending at each position
#   and walks back. The unknown token scores the lowest score minus 10; unknowns next to each other are one.

# %% [markdown]
# ## Self-check
#
# 1. In the toy vocabulary `▁Hello` scores −3.0 and `ld` only −4.5, yet `ld` merges first and `▁Hello` last.
#    Why?
#
#    <details><summary>Answer</summary>
#
#    A pair merges only when both halves are symbols: `▁Hello` needs `▁Hel`, built by the low-scoring `▁H` and
#    `▁He`; `ld` is a pair from the start.
#    </details>
#
# 2. After the merge a symbol is not a token. Why can it only be one character, and what does `spm_encode`
#    give for it?
#
#    <details><summary>Answer</summary>
#
#    Every merge makes a token, so a longer symbol is a token. A lone character becomes one `<0xNN>` token per
#    UTF-8 byte (`unk_id` for a byte without one): the emoji in Llama 2 is 243 162 155 131.
#    </details>
#
# 3. The toy WordPiece vocabulary has `▁token`. Why is `tokenx` one `[UNK]` and not `▁token` then `[UNK]`?
#
#    <details><summary>Answer</summary>
#
#    When no token starts the rest of a word, WordPiece drops what it matched: the whole word is unknown.
#    </details>
#
# 4. Greedy longest match gives `▁hug` for the toy Unigram text, Viterbi `▁` and `hug`. What makes the
#    difference?
#
#    <details><summary>Answer</summary>
#
#    Viterbi compares whole splits: `▁hug` scores −8.0, `▁` plus `hug` −2.0 − 5.0 = −7.0, which is higher.
#    </details>

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# ## Going deeper
#
# llama.cpp's own SentencePiece session, two of its edge cases, BERT's added tokens, and the other families
# and vocabularies side by side.

# %% [markdown]
# ### llama.cpp's SentencePiece session
#
# `spm_steps_view` scans every pair again before each merge. llama.cpp (`llm_tokenizer_spm_session` in
# `llama-vocab.cpp`) makes the same merges with a queue, like notebook 05's, with three differences:
#
# - **The order.** The pair whose token has the highest **score** comes out first (notebook 05: the lowest
#   rank); on equal scores, the leftmost pair.
# - **What may merge.** Any two neighbours whose concatenation is a token, of any type. There is no merge list:
#   the vocabulary itself says what can join.
# - **What goes in.** At the start, every pair of neighbouring characters that together spell a token; after
#   each merge, the two pairs the new symbol forms with its neighbours, again only if they spell a token. An
#   entry whose symbols have changed since it went in is stale and skipped when it comes out, exactly as in
#   notebook 05.
#
# When the queue is empty, each symbol left is emitted in order. llama.cpp's emitting function, `resegment`,
# has a branch that would split a symbol that is not a token back into the two it was made from, using a table
# of merges it calls `rev_merge`; since a merge only ever makes a token, that branch is never taken. If a
# vocabulary has no `<0xNN>` token for a byte, llama.cpp tries the byte alone as a one-character token and,
# failing that, stops with an error; your `spm_encode` gives the unknown token there instead, so that it always
# has an answer.
#
# ### Decoding with `remove_special=True`
#
# Dropping the `<s>` does not bring the first-space rule back: when llama.cpp drops a leading BOS
# (`remove_special` on, a vocabulary that adds BOS, and BOS first), it also turns the space removal off, so
# the space stays. gguftok copies the rule as the pinned llama.cpp has it:

# %%
print(repr(llama_spm.decode(llama_spm.encode("Hello wörld 😀"), remove_special=True)))

# %% [markdown]
# ### BERT's added tokens
#
# `wordpiece_view` shows the words and their tokens; the whole encoding adds `[CLS]` and `[SEP]` around them:

# %%
family_view(bert, "Hello, wörld! Tokenizers are unbelievable.", title="bert-bge")

# %% [markdown]
# ### Phi-3 and Baichuan
#
# Phi-3 reuses the Llama 2 vocabulary (plus chat tokens), so it gives the same ids on ordinary text. Baichuan
# is a SentencePiece vocabulary with many Chinese words, so Chinese text needs far fewer tokens:

# %%
phi3, baichuan = load("phi-3"), load("baichuan")
for text in ["Hello wörld 😀", "我们今天去公园散步。"]:
    for name, tok in [("llama-spm", llama_spm), ("phi-3", phi3), ("baichuan", baichuan)]:
        print(family_view(tok, text, title=f"{name} (vocabulary of {tok.n_vocab:,})").text)
    print()


# %% [markdown]
# ### RWKV and PLaMo-2 (synthetic vocabularies)
#
# llama.cpp's test set has no RWKV or PLaMo-2 vocabulary, so this project builds small synthetic ones
# (`data/synthetic/`). RWKV matches the longest token in raw bytes, greedily, with no `▁` and no
# normalisation; PLaMo-2 finds the best-scoring split and falls back to `<0xXX>` byte tokens.

# %%
rwkv = Tokenizer.from_gguf("../data/synthetic/rwkv.gguf")
plamo2 = Tokenizer.from_gguf("../data/synthetic/plamo2.gguf")
for name, tok in [("rwkv", rwkv), ("plamo2", plamo2)]:
    print(family_view(tok, "Hello wörld", title=name).text)

# %% [markdown]
# ### One sentence, every test vocabulary
#
# One sentence through all of llama.cpp's test vocabularies, with the special tokens each adds, sorted by
# family. Llama 2 and Phi-3 spend four byte tokens on the emoji; Baichuan has it as one token; WordPiece drops
# the accent (`wörld` is `world`, 2088) and has no token for the emoji: `[UNK]` (100).

# %%
TOKS = load_all()
print(len(TOKS), "vocabularies")
compare_families(TOKS, "Hello wörld 😀")

# %% [markdown]
# The same idea for one sentence in four languages, without special tokens: a few vocabularies that make the
# point, every one in the toggle and in the figure.

# %%
SENTENCES = {lang: SAMPLES[lang] for lang in ("English", "German", "Chinese", "Russian")}  # notebook 01's
COUNTS = token_counts(TOKS, SENTENCES)
counts_table(COUNTS, ["gpt-2", "llama-spm", "baichuan", "qwen2", "gemma-4"])

# %% tags=["nbval-ignore-output"]
counts_figure(COUNTS, {n: t.vocab.type for n, t in TOKS.items()});

# %% [markdown]
# English costs about the same everywhere. GPT-2, trained mostly on English, spends several times as many
# tokens on Chinese and Russian as the vocabularies trained on more languages.
#
# ### Try it
#
# Type a text and pick a vocabulary file. Things to try: an emoji with `llama-spm` (byte fallback), full-width
# letters with `nomic-bert-moe` (normalised), accents with `bert-bge` (removed), Chinese with `baichuan`.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.families_view import families_playground  # noqa: E402

families_playground(text="Hello wörld 😀", vocab="ggml-vocab-llama-spm.gguf")

# %% [markdown]
# The view it shows, for its starting text and vocabulary:

# %%
family_view(TOKS["llama-spm"], "Hello wörld 😀", title="llama-spm")
