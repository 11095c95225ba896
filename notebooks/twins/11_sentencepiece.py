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
# algorithm for each:
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
# SentencePiece (SPM), the family of Llama 1 and 2, Mistral and Phi-3, is the second family your own
# tokenizer handles; the others get a short look at the end.
#
# **After this notebook you can**
#
# - run SentencePiece's merge by hand: highest score first, leftmost on ties, only pairs that spell a token;
# - explain the `▁` escaping, the prefix space after every special token, and `<0xXX>` byte fallback;
# - write `spm_merge` and `spm_encode` in your own package, with llama.cpp's ids on Llama 2;
# - tell the families apart on one sentence: WordPiece, Unigram, RWKV and PLaMo-2 beside BPE.

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
# These are the ids `llama-tokenize` prints for the same text at the pinned llama.cpp. The real vocabulary has
# `ör`, so `wörld` needs no fallback; the emoji has no token, nor has any pair of its bytes, so it becomes four
# byte tokens, and the space before it is a token of its own, `▁` (29871). The byte tokens start at id 3: byte
# *b* is id *b* + 3.
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
# ## What the merge is given: escaped text
#
# Each piece of raw text the special-token partition leaves gets **the prefix**, one space in front if it
# comes first or right after a special token (unless `tokenizer.ggml.add_space_prefix` is `false`; Llama 2's
# file has no such key: on), then **the escape**: every space becomes `▁`, and nothing else changes.
# `spm_escape` does both. Your tokenizer in notebook 12 hands each escaped piece to your `spm_encode`, with
# `token_ids` (each token's text to its id), `scores` (each id's score) and the unknown token's id, all read
# from the file. For `<s>Hi<s> there` the pieces are `Hi` and ` there`, both after a special token:

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
# Open [`mytok/sentencepiece.py`](mytok/sentencepiece.py). It has two functions to write, each with its check
# in the exercises below:
#
# - `spm_merge(text, token_ids, scores)`: the merge, returning the symbols left. A loop that scans every pair
#   again before each merge gives the right symbols; llama.cpp uses a queue like notebook 05's, highest score
#   first (`heapq` with `(-score, position, ...)` entries), skipping entries whose symbols have changed;
# - `spm_encode(text, token_ids, scores, unk_id)`: your merge, then the ids. Every merge makes a token, so a
#   symbol that is not one is a single character: it becomes its UTF-8 bytes, each the token `<0xNN>` (`NN`
#   in upper-case hex), or `unk_id` for a byte that has no such token.
#
# Here are the symbols the merge leaves for the example above, and what each becomes:

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
# The checks use the toy vocabulary with an unknown token added after the byte tokens, as these three names.
# The cell after runs your `spm_encode` beside gguftok's tokenizer on the real Llama 2 vocabulary, reading your
# file afresh each time.

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
# ## WordPiece: BERT (`bert-bge`)
#
# WordPiece works word by word. The text is lower-cased, accents are removed, and every punctuation mark
# becomes a word of its own (`gguftok.models.wpm.preprocess`); then each word is matched greedily, the longest
# token that starts it, then the longest that continues it. In the GGUF file a token that starts a word begins
# with `▁` (BERT's own files mark the continuations with `##` instead). A BERT vocabulary adds `[CLS]` in
# front and `[SEP]` at the end.

# %%
bert = load("bert-bge")
wordpiece_view(bert, "Hello, wörld! Tokenizers are unbelievable.")

# %% [markdown]
# ## Unigram: `nomic-bert-moe`
#
# A Unigram vocabulary first **normalises** the text with a character map stored in the file
# (`tokenizer.ggml.precompiled_charsmap`), in the style of Unicode NFKC: full-width letters become ASCII, a
# circled digit a digit, spaces `▁`. Then it picks, among all ways to split the result into tokens, the one
# with the highest total score (the Viterbi algorithm). It lower-cases nothing (`Ｈｅｌｌｏ` becomes `Hello`),
# and the full-width text and the plain one get the same ids:

# %%
nomic = load("nomic-bert-moe")
normalize_view(nomic, ["ｈｅｌｌｏ", "①②", "Ｈｅｌｌｏ　ｗｏｒｌｄ", "ﬁne", "hello  world"])

# %%
print(family_view(nomic, "ｈｅｌｌｏ ① world", title="nomic-bert-moe").text)
print(family_view(nomic, "hello 1 world", title="nomic-bert-moe").text)

# %% [markdown]
# ## RWKV and PLaMo-2 (synthetic vocabularies)
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
# ## One sentence, every test vocabulary
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
# ## Try it
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

# %% [markdown]
# ## Exercises
#
# This notebook's stage is [`mytok/sentencepiece.py`](mytok/sentencepiece.py): write the body of each function named below there, save, and
# run its check (notebook 00, *How the exercises work*, says what a check does).

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

# %% [markdown]
# ## Recap
#
# - SentencePiece has no merge list: it merges the neighbouring pair whose token scores highest, leftmost on
#   ties, so merges do not run left to right, and a pair merges only once both halves exist.
# - Spaces are `▁`; one `▁` goes in front of the text and of every raw fragment after a special token
#   (unless `tokenizer.ggml.add_space_prefix` is false), and decoding removes only the first one.
# - A character with no token becomes its UTF-8 bytes as `<0xXX>` tokens (in Llama 2, byte *b* is id *b* + 3);
#   every merge makes a token, so only single characters ever need it.
# - WordPiece lower-cases, strips accents, splits punctuation, matches the longest token greedily and adds
#   `[CLS]`/`[SEP]`; Unigram normalises with the file's character map, then picks the best-scoring split.
# - RWKV matches the longest byte string greedily; PLaMo-2 picks the best-scoring split with byte fallback.

# %% [markdown]
# ## Self-check
#
# 1. In the toy vocabulary `▁Hello` scores −3.0 and `ld` only −4.5, yet `ld` merges first and `▁Hello` last.
#    Why?
#
#    <details><summary>Answer</summary>A pair can merge only when both its halves are already symbols.
#    <code>▁Hello</code> needs <code>▁Hel</code> and <code>lo</code>, and <code>▁Hel</code> is built by the low-scoring merges <code>▁H</code> and <code>▁He</code>; <code>ld</code> is a pair
#    of two characters from the start.</details>
#
# 2. What does the merge see for `<s>Hi<s> there` with `parse_special=True`, and why?
#
#    <details><summary>Answer</summary>Two pieces, <code>▁Hi</code> and <code>▁▁there</code>: each raw fragment after a special token
#    gets a space in front, and every space becomes <code>▁</code>. The <code>&lt;s&gt;</code> tokens are ids already and never reach the
#    merge.</details>
#
# 3. After the merge a symbol is not a token. Why can it only be one character, and what does `spm_encode`
#    give for it?
#
#    <details><summary>Answer</summary>Every merge makes a token, so any symbol of two or more characters is a
#    token. A lone character without a token becomes one <code>&lt;0xNN&gt;</code> token per UTF-8 byte (<code>unk_id</code> for a byte
#    the vocabulary lacks): the emoji in Llama 2 is 243 162 155 131.</details>
#
# 4. `ｈｅｌｌｏ ① world` and `hello 1 world` give the same ids in `nomic-bert-moe`. Which step makes them
#    equal?
#
#    <details><summary>Answer</summary>Unigram's normalisation with the file's precompiled character map:
#    full-width letters become ASCII and the circled digit a digit, so both texts are the same string before
#    any token is chosen.</details>

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# ## Going deeper
#
# llama.cpp's own SentencePiece session, two of its edge cases, and BERT's added tokens.

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
