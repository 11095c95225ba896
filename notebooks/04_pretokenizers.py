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
# # 04 · Pre-tokenizers: cutting text into words before any merge
#
# Merges (notebook 03) join neighbouring symbols. Let them loose on a whole paragraph and one would soon
# glue the last letters of a word to the first letters of the next, or a digit to the word in front of it.
# So byte-level BPE never sees a paragraph: a **pre-tokenizer** first cuts the text into short pieces
# ("words"), and every merge happens inside one piece. Token boundaries are therefore always a refinement of
# the piece boundaries. Whatever rule the model was trained with, the tokenizer must cut exactly the same
# way, or the ids change.
#
# The rule is named in the GGUF file by the string `tokenizer.ggml.pre` (`qwen2`, `llama-bpe`, `gpt-2`, ...).
# llama.cpp maps each of the strings it knows to a *pre-type* and each pre-type to a list of regular
# expressions, applied one after the other. `gguftok.pretokenize` carries those tables, read out of the
# pinned llama.cpp source (the one inside llama-cpp-python 0.3.36), and reproduces how llama.cpp runs them.

# %%
from gguftok.data import vocab_dir
from gguftok.viz.pretokenize_view import (
    LESSON_LINE,
    compare_splits,
    engine_view,
    explorer_view,
    path_census,
    piece_count_table,
    piece_counts,
    steps_view,
    vocabulary_words,
    whitespace_splits,
    whitespace_table,
)

VOCAB = vocab_dir()

# %% [markdown]
# ## One line, three pre-tokenizers
#
# The lesson this notebook follows cuts one line with three rules and counts the pieces: **18** for Qwen2,
# **14** for Llama 3 (pre string `llama-bpe`) and **12** for GPT-2. The line packs in a contraction written
# in capitals (`We'LL`), a five-digit number, two newlines, two spaces of indentation and a bit of code.
# Below, every chip is one piece; `␣` is a space and `↵` a newline, and hovering a chip shows the piece in
# the form the vocabulary stores it (`Ġ` for a space byte, notebook 02). These splits and counts are computed
# here by `gguftok`; the counts match the lesson's 18, 14 and 12, and so do the pieces, one by one.

# %%
compare_splits(["qwen2", "llama-bpe", "gpt-2"], LESSON_LINE)

# %% [markdown]
# Reading the three rows against each other:
#
# - **Digits.** Qwen2's rule takes one digit at a time (`\p{N}`), so `12345` costs five pieces and `42` two.
#   Llama 3 allows up to three (`\p{N}{1,3}`), reading left to right: `123` then `45`. GPT-2 takes the whole
#   run and the space before it: `␣12345`. Cutting digits small makes arithmetic look the same to the model
#   whatever the number, at the price of longer prompts.
# - **Contractions.** Qwen2's and Llama 3's rules recognise `'ll` in any case, so `'LL` is one piece. GPT-2's
#   list (`'s|'t|'re|'ve|'m|'ll|'d`) is lower-case only: `'` and `LL` come apart.
# - **Whitespace.** Before `int` there are two spaces. The rule `\s+(?!\S)` takes a run of spaces but stops
#   one short of a non-space, so the last space stays with the word: `␣` and `␣int`. Qwen2 and Llama 3 also
#   have newline-aware alternatives, so the two newlines stand alone (`↵↵`); GPT-2 has none, and its
#   whitespace rule swallows the newlines together with the first space (`↵↵␣`).
#
# A subtlety at our pinned llama.cpp: for these three rules llama.cpp does not run a regex engine at all. It
# recognises the exact pattern string and runs a hand-written loop that behaves like it (more on this below).
# The test suite also runs the lesson's three patterns through Python's third-party `regex` module, an
# engine independent of those loops, and gets the same 18, 14 and 12 pieces (`tests/test_viz_pretokenize.py`).

# %% [markdown]
# ## The same cut, starting from the GGUF files
#
# A real tokenizer does not get told which rule to use: it reads `tokenizer.ggml.pre` from the file. Here
# are three of llama.cpp's reference vocabularies, each loaded with `Tokenizer.from_gguf`, and the words their
# tokenizers hand to BPE (`Tokenizer.words`), written in the vocabulary's own alphabet: `Ġ` is a space byte
# and `Ċ` a newline byte.

# %%
vocabulary_words([VOCAB / "ggml-vocab-qwen2.gguf", VOCAB / "ggml-vocab-llama-bpe.gguf",
                  VOCAB / "ggml-vocab-gpt-2.gguf"], LESSON_LINE)

# %% [markdown]
# ## Code and indentation
#
# Indented code shows the whitespace rule at work on every line. In this C loop, the four spaces before `sum`
# become a piece of three spaces and `␣sum`; the newline after `{` joins the punctuation in front of it
# (Qwen2's and Llama 3's punctuation alternative ends in `[\r\n]*`), while GPT-2 starts the next piece with
# it. These pieces are why the lesson finds a three-space token (and then ` sum`) when Qwen2 encodes this
# line: BPE can only merge inside them.

# %%
compare_splits(["qwen2", "llama-bpe", "gpt-2"], "for (int i = 0; i < n; i++) {\n    sum += a[i];\n}")

# %% [markdown]
# ## Try any text with any of the 91 pre strings
#
# `gguftok.pretokenize.PRE_STRINGS` holds the 91 strings the pinned llama.cpp accepts for
# `tokenizer.ggml.pre`. Pick one, type or paste text (newlines and tabs welcome), and see the pieces and the
# steps that made them. A good start: `deepseek-llm`, `kimi-k2` or `bloom` on some Chinese or Japanese text,
# `superbpe` on a sentence, `chameleon` on indented code.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.pretokenize_view import pretokenizer_explorer  # noqa: E402

pretokenizer_explorer(LESSON_LINE, "qwen2")

# %% [markdown]
# The same view without the widget, for one choice (this is what the tests check):

# %%
explorer_view("starcoder", LESSON_LINE)

# %% [markdown]
# ## How a pre string picks its code
#
# A pre string selects a pre-type, and the pre-type a list of regexes, applied in order: each one cuts the
# pieces the previous one left, and never joins anything back. llama.cpp then runs each regex on one of three
# paths:
#
# 1. **Hand-written splitter.** If the pattern is, character for character, one of a few known ones (GPT-2's,
#    Llama 3's, Qwen2's, Qwen3.5's, Kimi K2's, two digit splitters and a newline splitter), a loop written in
#    C++ runs instead of any regex. `gguftok.pretokenize.splitters.CUSTOM` maps those exact strings to our
#    ports of the loops. The loops are faster than a regex engine and agree with their patterns on ordinary
#    text, but they are the reference: where they differ from a regex reading, llama.cpp's ids follow the loop.
# 2. **`std::regex` on a collapsed text,** for a pattern with Unicode categories such as `\p{L}` or `\p{N}`
#    (`regex_split.uses_categories` says which). C++'s regex engine knows no Unicode categories, so llama.cpp
#    first replaces every code point by one character standing for its category and rewrites each `\p{..}`
#    into a class of those stand-ins.
# 3. **`std::wregex` on the code points** for the remaining patterns.
#
# Two examples, then the count over all 91 strings: most of them end up on hand-written code, and the 91
# strings come down to 31 distinct splitters.

# %%
steps_view("qwen2")

# %%
steps_view("deepseek-coder")

# %%
path_census()

# %% [markdown]
# What does the regex engine see on the two regex paths? Below, `deepseek-coder`'s five steps on a short
# text with an ideographic space (U+3000), an accented word, `½` (a number, but not a digit) and a
# U+001C control character. On the collapsed path a letter outside ASCII becomes a stand-in (drawn `Ⓛ`) and
# `½` a number stand-in (`Ⓝ`); every non-ASCII space, on either path, reaches the engine as `\v` (drawn `␋`).
# The pieces are always cut from the original text.

# %%
engine_view("deepseek-coder", "Ünï\u3000x½ é\x1cz")

# %% [markdown]
# Step 2's `\s?\p{L}+` treated the ideographic space exactly as it would an ASCII space: `□x` became one
# piece, just as `␣é` did.

# %% [markdown]
# ## What counts as whitespace
#
# Whitespace decides a good share of the pieces, so it matters which characters count. For llama.cpp, `\s`
# means the 25 code points of Unicode's White_Space property, carried in its own table
# (`gguftok.pretokenize.unicode.WHITESPACE_SET`): the six ASCII ones, U+0085, the no-break space U+00A0, the
# typographic spaces U+2000-U+200A, the line and paragraph separators, U+3000 (the ideographic space of CJK
# text) and a few more. The hand-written splitters test that set directly. The regex paths cannot, because
# C++'s `\s` only knows ASCII, so llama.cpp hands the engine `\v` for every non-ASCII space, and `\s` matches
# `\v`.
#
# Python draws the line elsewhere: `str.isspace`, and with it the standard `re` module's `\s`, also accept
# U+001C-U+001F, the four ASCII "information separators". For llama.cpp they are not whitespace but control
# characters, which its rules treat like punctuation. A Python port that splits with `str.split()` or `re`
# would cut differently around them. (The third-party `regex` module, which `gguftok` uses for the regex
# paths, agrees with llama.cpp on all of these.)

# %%
whitespace_table()

# %% [markdown]
# The difference in pieces: an ideographic space behaves like a space (in Llama 3's rule the last one joins
# the word after it, as `␣int` did above); two U+001C in a row form one punctuation-like piece; `bloom`'s
# rule, which excludes `\s` from words, leaves U+001C inside the word. `str.split()`, for comparison, would
# see two words in each text.

# %%
whitespace_splits(["llama-bpe", "gpt-2", "bloom"], ["x\u3000\u3000y", "x\x1c\x1cy", "x  y"])

# %% [markdown]
# ## Piece counts across all pre-tokenizers
#
# Four short texts (English prose, indented Python, numbers, and Japanese, Chinese and Korean with emoji)
# cut by each of the 31 distinct splitters; the last column lists the pre strings that select each one.
# Splitters that cut digits one by one (`qwen2`, `starcoder`, `deepseek-coder`, ...) pay for it on the
# numbers; `superbpe` and `gemma4` barely cut at all (SuperBPE only isolates digit groups, so its tokens can
# span several words; Gemma 4 only separates newline runs); the splitters with rules of their own for CJK
# scripts (`kimi-k2`, `deepseek-coder`, `youtu`, `afmoe`) cut the last text into more pieces.

# %%
counts = piece_counts()
piece_count_table(counts)

# %% tags=["nbval-ignore-output"]
from gguftok.viz.pretokenize_view import piece_count_chart  # noqa: E402

piece_count_chart(counts);

# %% [markdown]
# ## What you can now explain
#
# - Why BPE runs on pieces, not on the whole text, and that `tokenizer.ggml.pre` names the rule that cuts
#   them; 91 pre strings select 31 distinct splitters.
# - The lesson's line gives 18, 14 and 12 pieces under `qwen2`, `llama-bpe` and `gpt-2`, reproduced here:
#   digits cut one by one, by three, or not at all; `'LL` kept or split by case; the last space of a run kept
#   with the next word.
# - That llama.cpp runs the common patterns as hand-written loops, and the rest with C++ regex engines on a
#   collapsed text (for `\p{..}`) or on the code points.
# - That llama.cpp's whitespace is exactly Unicode's 25 White_Space code points, non-ASCII ones reaching the
#   regex engine as `\v`, and that Python's `str.isspace` adds U+001C-U+001F, which llama.cpp does not.

# %% [markdown]
# ## Exercises
#
# Write each function in the code cell under its statement, run that cell, then run the check below it.
# The check calls your function on this lesson's examples and on many generated inputs (seeded, so the
# same every time), compares each answer with gguftok's own, and shows the first input where they
# differ: the input, the expected answer, yours, and for a list the first index that differs. Until you
# write the body it says *not attempted*. `gguftok.exercises.show("NN.name")` prints a task again.
# The solutions are in `solutions/lesson04.py` at the top of the repository.

# %%
from gguftok.exercises import check  # noqa: E402


# %% [markdown]
# ### Exercise 04.gpt2_split: GPT-2's pre-tokenizer
#
# Write `gpt2_split(text)` that cuts `text` into the pieces GPT-2's pre-tokenizer makes, as plain text
# (not in the `Ġ` alphabet). Use the third-party `regex` module (`import regex`), which knows `\p{L}`
# (any letter) and `\p{N}` (any number), and `regex.findall` with GPT-2's pattern, written out in
# notebook 04's rows: the contractions `'s|'t|'re|'ve|'m|'ll|'d`, then ` ?\p{L}+`, ` ?\p{N}+`,
# ` ?[^\s\p{L}\p{N}]+`, `\s+(?!\S)` and `\s+`, as alternatives in that order.
#
# The check uses the lesson's line (12 pieces), the C loop, and 250 random texts with letters, digits,
# contractions, Chinese, emoji, combining marks and unusual spaces, against gguftok's pre-tokenizer for
# `tokenizer.ggml.pre = "gpt-2"` (llama.cpp's hand-written loop, not a regex engine).

# %%
def gpt2_split(text: str) -> list[str]:
    """The pieces GPT-2's pre-tokenizer cuts ``text`` into.

    >>> gpt2_split("We'LL pay 12345")
    ['We', "'", 'LL', ' pay', ' 12345']
    """
    raise NotImplementedError


# %%
check("04.gpt2_split", gpt2_split)


# %% [markdown]
# ### Exercise 04.llama3_split: Llama 3's pre-tokenizer
#
# Now Llama 3 (`tokenizer.ggml.pre = "llama-bpe"`). Its pattern differs from GPT-2's in five places:
# the contractions match in any case (`(?i:'s|'t|'re|'ve|'m|'ll|'d)`), a letter run may take one
# non-letter, non-digit, non-newline character in front (`[^\r\n\p{L}\p{N}]?\p{L}+`), numbers go in
# runs of at most three digits (`\p{N}{1,3}`), punctuation takes the newlines after it
# (` ?[^\s\p{L}\p{N}]+[\r\n]*`), and runs of whitespace ending in newlines stand alone
# (`\s*[\r\n]+`) before the two whitespace rules of GPT-2. Write `llama3_split(text)`.
#
# The check uses the lesson's line (14 pieces), the C loop and 250 random texts, against gguftok's
# pre-tokenizer for `llama-bpe`.

# %%
def llama3_split(text: str) -> list[str]:
    """The pieces Llama 3's pre-tokenizer cuts ``text`` into.

    >>> llama3_split("We'LL pay 12345")
    ['We', "'LL", ' pay', ' ', '123', '45']
    """
    raise NotImplementedError


# %%
check("04.llama3_split", llama3_split)
