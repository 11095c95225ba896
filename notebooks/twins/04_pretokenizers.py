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
#
# In this notebook you write the pre-tokenizer of your own tokenizer: the function that applies a list of
# regexes as llama.cpp does, and GPT-2's, Llama 3's and Qwen2's patterns, alternative by alternative.

# %%
import regex

from gguftok.data import vocab_dir
from gguftok.pretokenize import pre_tokenizer_config
from gguftok.pretokenize.unicode import WHITESPACE_SET
from gguftok.viz.pretokenize_view import (
    LESSON_LINE,
    alternatives_view,
    class_differences_view,
    compare_splits,
    engine_view,
    explorer_view,
    list_view,
    literal,
    path_census,
    piece_count_table,
    piece_counts,
    pieces,
    steps_view,
    vocabulary_words,
    whitespace_splits,
    whitespace_table,
    yours_view,
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
# The rest of this notebook takes those three rules apart, one alternative at a time, until you can write
# them yourself.

# %% [markdown]
# ## How a list of regexes cuts a text
#
# A pre-type is a *list* of regexes, and llama.cpp (`unicode_regex_split` in its `unicode.cpp`) applies it
# like this:
#
# 1. The text starts as one piece. The first regex cuts it; then each next regex cuts **every piece** the
#    previous ones left, and never joins anything back.
# 2. A regex cuts a piece at the edges of its matches: each match is a piece, and so is the text **between**
#    two matches (or before the first, or after the last). Nothing is thrown away: the pieces always join
#    back to the text.
# 3. Each piece is searched **on its own**: a match never reaches past the piece's end, and a lookahead such
#    as `(?!\S)` sees the end of the piece there, not the text that follows it.
# 4. A match of **no characters** (a pattern made only of a lookahead can match like that) cuts where it is,
#    and makes no piece.
#
# StarCoder's list shows rules 1 and 2: first every number alone (`\p{N}`), then GPT-2's pattern on the
# pieces left. The first regex leaves `x=` and `;␣it's␣` between its matches; the second cuts those further.

# %%
list_view(pre_tokenizer_config("starcoder").regexes, "x=42; it's 2026")

# %% [markdown]
# Rule 3 on a small list: `\d` first, then `\s+(?!\S)` ("whitespace not followed by a non-space"). After the
# first step the two spaces end the piece `ab␣␣`, so the lookahead sees that piece's end and both spaces go
# together. Searched in the whole text, the lookahead would have seen the `1` and left one space behind.

# %%
list_view([r"\d", r"\s+(?!\S)"], "ab  12")

# %% [markdown]
# Rule 4, with SuperBPE's list: `\p{N}+` takes the run of digits, then `(?=(\d{3})+(?!\d))`, a lookahead alone,
# matches no characters at each place followed by a multiple of three digits. Those empty matches cut
# `1234567` into `1`, `234`, `567`, as thousands separators would.

# %%
list_view(pre_tokenizer_config("superbpe").regexes, "pay 1234567 now")

# %% [markdown]
# ## GPT-2's pattern, alternative by alternative
#
# GPT-2's rule is one regex. A regex with `|` is a list of **alternatives**; at each place in the text the
# engine tries them **in order**, and the first one that matches there wins (not the longest). Then it goes
# on from the end of that match. The pattern uses the `regex` module's Unicode classes: `\p{L}` is any letter
# (of any script), `\p{N}` any number (`7`, but also `½`, `²` or `Ⅻ`), `\s` any whitespace, `\S` anything
# else, and `[^\s\p{L}\p{N}]` anything that is none of the three (punctuation, symbols, emoji). Here is
# the pattern as llama.cpp writes it:

# %%
print(literal(pre_tokenizer_config("gpt-2").regexes[0]))

# %% [markdown]
# | alternatives | what they take |
# |---|---|
# | `'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d` | seven English contractions, lower case only: `it's` gives `it` and `'s` |
# | ` ?\p{L}+` | a space or none, then a run of letters: `␣pay`; the space before a word goes with the word |
# | ` ?\p{N}+` | a space or none, then a run of numbers, however long: `␣12345` |
# | ` ?[^\s\p{L}\p{N}]+` | a space or none, then a run of anything else that is not whitespace: `,` and `!` below, `=` and `;` in the lesson's line |
# | `\s+(?!\S)` | a run of whitespace not followed by a non-space: at the end of the text all of it, and before a word all but its last space, which the word's ` ?` then takes |
#
# OpenAI's original (`encoder.py` of GPT-2) has a seventh alternative, `\s+`, for whitespace the others
# leave: a single newline or tab just before a non-space, which no ` ?` takes. llama.cpp's copy stops at six,
# and cuts the same: by rule 2, text that no alternative takes stays a piece of its own anyway. Below, every
# piece of a text with the number of the alternative that took it; the tab before `y` is the text between two
# matches.

# %%
alternatives_view(pre_tokenizer_config("gpt-2").regexes[0], "I'd pay 12345, it's ½!\n\n  x\ty  ")

# %% [markdown]
# ## Llama 3's pattern
#
# Llama 3 (pre string `llama-bpe`) keeps the idea and changes five things. As llama.cpp writes it:

# %%
print(literal(pre_tokenizer_config("llama-bpe").regexes[0]))

# %% [markdown]
# | alternative | what it takes |
# |---|---|
# | `(?:'[sS]\|'[tT]\|'[rR][eE]\|'[vV][eE]\|'[mM]\|'[lL][lL]\|'[dD])` | the same seven contractions, in any case, letter by letter: `'LL` |
# | `[^\r\n\p{L}\p{N}]?\p{L}+` | one character that is not a newline, a letter or a number (a space, but also `(` or `'`), or none, then a run of letters: `␣pay`, `(ok` |
# | `\p{N}{1,3}` | one to three numbers, with no space in front: `12345` gives `123` and `45` |
# | ` ?[^\s\p{L}\p{N}]+[\r\n]*` | a space or none, a run of anything else, and the newlines right after it: `;↵` |
# | `\s*[\r\n]+` | a run of whitespace that ends in newlines: `↵↵` stands alone |
# | `\s+(?!\S)` | as in GPT-2: whitespace that leaves the last space to the word after it |
# | `\s+` | any whitespace left: the space before `12345`, which no other alternative takes now that numbers have no ` ?` |
#
# The contractions are written letter by letter, `'[sS]`, where Hugging Face's `tokenizer.json` for Llama 3
# writes `(?i:'s|'t|'re|'ve|'m|'ll|'d)`; "Going deeper", after the exercises, shows why the two are not the
# same.

# %%
alternatives_view(pre_tokenizer_config("llama-bpe").regexes[0], "We'LL pay 12345 for\n\n  int x=42;\n(ok)")

# %% [markdown]
# ## Qwen2's pattern
#
# Qwen2's pattern is Llama 3's with one change, in the third alternative: `\p{N}` instead of `\p{N}{1,3}`,
# one number at a time. In full:

# %%
print(literal(pre_tokenizer_config("qwen2").regexes[0]))

# %%
alternatives_view(pre_tokenizer_config("qwen2").regexes[0], "x=42; it'S 2026\n")

# %% [markdown]
# ## Now write yours
#
# Open [`mytok/pretokenize.py`](mytok/pretokenize.py) and write:
#
# 1. `split(text, regexes)`: the four rules above, with the `regex` module (`import regex`; Python's own `re`
#    knows no `\p{L}`). Walk over the matches with `regex.finditer`, which gives each match with its place;
#    `findall` gives the *groups* of a pattern that has some, not the match.
# 2. The three patterns, in `GPT2`, `LLAMA3` and `QWEN2` at the top of the file, each one string with its
#    alternatives joined by `|`.
# 3. `regexes_for(pre)`: the regex list of a `tokenizer.ggml.pre` value. The file gives the other lists
#    (StarCoder's, Falcon's, DeepSeek's, ...) and `SAME_AS`, which names the list each known value uses.
#
# Their statements and checks are in the **Exercises** section near the end; right after it, "Going deeper"
# sets your pieces beside llama.cpp's on the same text, marks where they differ, and shows the few inputs on
# which a plain `regex` reading and llama.cpp's engine part.

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
# The same view without the widget, for one choice:

# %%
explorer_view("starcoder", LESSON_LINE)

# %% [markdown]
# ## How a pre string picks its code
#
# A pre string selects a pre-type, and the pre-type a list of regexes, applied in order by the rules above.
# llama.cpp then runs each regex on one of three paths:
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
# would cut differently around them. (The third-party `regex` module, the one your `split` uses, agrees with
# llama.cpp on all of these.)

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
# - How llama.cpp applies a list of regexes: each cuts every piece left, the text between matches stays a
#   piece, each piece is searched on its own, and a match of no characters cuts without making a piece.
# - GPT-2's, Llama 3's and Qwen2's patterns alternative by alternative, and why they give 12, 14 and 18
#   pieces on the lesson's line: digits cut one by one, by three, or not at all; `'LL` kept or split by case;
#   the last space of a run kept with the next word; newlines alone or with the punctuation before them.
# - That llama.cpp runs the common patterns as hand-written loops, and the rest with C++ regex engines on a
#   collapsed text (for `\p{..}`) or on the code points; that its whitespace is Unicode's 25 White_Space code
#   points, non-ASCII ones reaching the regex engine as `\v`.

# %% [markdown]
# ## Exercises
#
# Your own tokenizer lives in `mytok/`, a package of yours beside these notebooks, one module per
# stage. This notebook's stage is [`mytok/pretokenize.py`](mytok/pretokenize.py):
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
# ### Exercise 04.split: llama.cpp's sequential regex split
#
# Write `split(text, regexes)`: cut `text` with a list of regular expressions the way llama.cpp does.
# The first regex cuts the whole text; each next regex cuts every piece the previous ones left, one
# piece at a time (a match never reaches past the piece, and a lookahead sees the piece's end there);
# the text between two matches, before the first or after the last stays a piece of its own; a match of
# no characters cuts there but makes no piece. An empty text has no pieces. Use the `regex` module
# (`regex.finditer`: `findall` gives the groups, not the match, for a pattern with groups).
#
# The check uses the lesson's small lists, then 400 random texts (letters of several scripts, digits
# and other numbers, spaces of several kinds, newlines, apostrophes, punctuation, CJK, emoji and
# combining marks) each with the list of a random one of 19 `tokenizer.ggml.pre` values, then the
# texts of llama.cpp's `.inp` files of the eleven byte-level BPE vocabularies, each with its own list,
# against gguftok's pre-tokenizer (llama.cpp's engine as ported). The random texts keep to characters
# of Unicode 15.1 (the version of llama.cpp's tables) and give the DeepSeek lists no non-ASCII space
# from U+1680 on: there llama.cpp's engine and plain `regex` part (see "Going deeper" below).
#
# Write it in [`mytok/pretokenize.py`](mytok/pretokenize.py).

# %%
check("04.split")

# %% [markdown]
# ### Exercise 04.regexes_for: the regex list of a tokenizer.ggml.pre value
#
# Write GPT-2's, Llama 3's and Qwen2's patterns in `GPT2`, `LLAMA3` and `QWEN2` at the top of
# `mytok/pretokenize.py` (each one string, its alternatives joined by `|`, as built above), then
# `regexes_for(pre)`: the list of regexes for a `tokenizer.ggml.pre` value. The file gives `SAME_AS`,
# every value that selects one of the eleven lists mapped to the list's name (`"llama3"` to
# `"llama-bpe"`, ...), and `OTHER_REGEXES`, the lists of the eight others (five of them use your
# `GPT2`). A value `SAME_AS` does not know raises `ValueError`. Write the contractions letter by letter
# as llama.cpp does (`'[sS]`, not `(?i:'s)`: "Going deeper" below says why).
#
# The check cuts each text with your list (with a split of its own, so a slip in your `split` does not
# show here) and compares the pieces with gguftok's pre-tokenizer for that value: the lesson's examples,
# 30 random texts for each of the eleven values and 4 for each other value `SAME_AS` holds, texts of
# llama.cpp's `.inp` file of each vocabulary, and values it does not know (`"gpt-4o"`, `""`, ...), which
# must raise `ValueError`. The random texts are made as for `04.split`.
#
# Write it in [`mytok/pretokenize.py`](mytok/pretokenize.py).

# %%
check("04.regexes_for")

# %% [markdown]
# ## Going deeper
#
# ### Yours next to llama.cpp's
#
# Your `split` with your `regexes_for`, beside llama.cpp's pieces (computed by gguftok), on the same text.
# Each piece that one row has and the other does not is marked with a dashed border and ✗, and the line under
# them names the first difference. While `regexes_for` is not written, your `split` runs with llama.cpp's
# list; while `split` is not written, only llama.cpp's row is shown. Your file is read again every time a
# cell runs. The explorer above takes `yours=True` too, to set yours beside llama.cpp's as you type (the
# widget just below; the cells after it show the same for fixed texts).

# %% tags=["nbval-ignore-output"]
YOURS_LINE = "Hello  world 123456\tfoo's 你好"
pretokenizer_explorer(YOURS_LINE, "qwen2", yours=True)

# %%
yours_view("qwen2", LESSON_LINE)

# %%
yours_view("llama-bpe", "I'M here  \n\n  x, we'VE 1234567 (ok)\t¿sí? 世界 😀")

# %%
yours_view("gpt-2", "Hello world, it's 2026!\n\n  x\ty")

# %%
yours_view("deepseek-llm", "Ünïcödé: 世界 😀 привет 12345\n")

# %% [markdown]
# `Ünïcödé` falls apart under DeepSeek LLM's rule, in llama.cpp and in a correct `split` alike: its third regex,
# `\s?[!-/:-~！-／：-～‘-‟\u3000-。]+`, was meant for punctuation, but its range `:-~` (U+003A to U+007E) holds
# every ASCII letter, so `n`, `c` and `d` are cut out of the word.


# %% [markdown]
# ### Where plain `regex` and llama.cpp part
#
# Your `split` runs each pattern with the `regex` module, as written. llama.cpp runs the same patterns through
# its hand-written loops and the two paths of its regex engine. On the lists of the eleven byte-level BPE
# vocabularies that llama.cpp ships `.inp`/`.out` files for, the two give the same pieces on every text of those
# files and on the mixed-script texts the checks above generate; here is where they do not, and why the checks
# leave those inputs out.
#
# **The Unicode version.** llama.cpp classes code points with its own tables, made from Unicode 15.1
# (`gguftok/pretokenize/unicode-15.1.json` is our copy). The `regex` module carries a newer Unicode, so a
# character assigned since then is a letter (or a number, a mark, ...) to it, and "other" to llama.cpp.
# Counted over all code points:

# %%
class_differences_view()

# %% [markdown]
# The other direction is empty: every code point llama.cpp's tables put in a class, `regex` puts in the same
# one. One of those newer letters, U+1C89, between `a` and `b`: for llama.cpp it is "other", so Qwen2's rule
# takes it as the one non-letter before a run of letters; for `regex` all three are letters.

# %%
print("llama.cpp:", pieces("qwen2", "a\u1c89b"), "| regex:", regex.findall(r"\p{L}+", "a\u1c89b"))

# %% [markdown]
# **Non-ASCII spaces inside a character range.** On the regex paths llama.cpp hands the engine `\v` in place of
# every non-ASCII space (see "What counts as whitespace"). That changes what a range of code points can
# match. DeepSeek's lists hold the class `[一-龥ࠀ-一가-\ud7ff]` for CJK text, and its range `ࠀ-一` runs from
# U+0800 to U+4E00, over these non-ASCII spaces:

# %%
print(", ".join(f"U+{c:04X}" for c in sorted(WHITESPACE_SET) if 0x0800 <= c <= 0x4E00))

# %% [markdown]
# With `regex` the range takes U+3000 in `a□b`; llama.cpp's engine sees `a␋b`, in which the range finds
# nothing, so the piece `□b` stays whole:

# %%
cjk = pre_tokenizer_config("deepseek-coder").regexes[3]
print(literal(cjk), "| regex:", regex.findall(cjk, "a\u3000b"), "| llama.cpp:", pieces("deepseek-coder", "a\u3000b"))

# %% [markdown]
# **`(?i:...)` and the long s.** Written `(?i:'s|'t|'re|'ve|'m|'ll|'d)`, the contractions match case-blind,
# and to the `regex` module (and to Python's `re`) case-blind means Unicode case folding: `ſ`, the long s of
# old print (U+017F), folds to `s`. llama.cpp's loops and its `'[sS]` accept only `s` and `S`:

# %%
print("(?i:'s) matches 'ſ:", bool(regex.match(r"(?i:'s)", "'ſ")), "| llama.cpp:", pieces("llama-bpe", "it'ſt"))

# %% [markdown]
# So write the contractions letter by letter; the checks include a text with `'ſ`.
#
# **`\d` is ASCII only.** A pattern without `\p{..}` runs on `std::wregex`, whose `\d` means `0-9`; `regex`'s
# `\d` is every decimal digit. SuperBPE's lookahead counts digits with `\d`, so on four Arabic-Indic digits
# `regex` finds a place followed by three of them, and llama.cpp none (none of the eleven lists uses `\d`):

# %%
lookahead = pre_tokenizer_config("superbpe").regexes[1]
print("llama.cpp:", pieces("superbpe", "١٢٣٤"), "| regex cuts at:",
      [m.start() for m in regex.finditer(lookahead, "١٢٣٤")])

# %% [markdown]
# **The hand-written loops.** GPT-2's, Llama 3's and Qwen2's patterns never reach a regex engine in llama.cpp:
# its loops run instead. Their classes come from the same tables, so the newer Unicode parts them from `regex`
# too; apart from that, on all the checks' inputs each loop cuts exactly as its pattern does with `regex`, and
# the pieces your patterns make are the loops' pieces.
#
# The random texts of the checks therefore use only characters Unicode 15.1 already had, and give the two
# DeepSeek lists no non-ASCII space from U+1680 on. Everything else in them (letters of several scripts,
# digits and other numbers, spaces of several kinds, newlines, apostrophes, punctuation, CJK, emoji and
# combining marks) is fair game, and there your plain-regex pre-tokenizer and llama.cpp's agree.
