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
# Merges (notebook 03) join neighbouring symbols. Let loose on a whole paragraph, they would glue the end of
# one word to the start of the next. So byte-level BPE never sees a paragraph: a **pre-tokenizer** first cuts
# the text into short **words** (whatever the rule cuts: `␣the`, `2026`, three spaces), and every merge
# happens inside one word. The rule is named in the GGUF file by `tokenizer.ggml.pre` (`qwen2`, `llama-bpe`,
# ...), and llama.cpp maps each such string to a list of regular expressions. Cut differently from the model's
# training, and the ids change. `gguftok.pretokenize` carries llama.cpp's tables.
#
# After this notebook you can:
#
# - apply a list of regexes to a text the way llama.cpp does, and write that function yourself;
# - read GPT-2's, Llama 3's and Qwen2's patterns alternative by alternative, and write them;
# - explain how each vocabulary cuts numbers, and why that matters for arithmetic;
# - find the rule of any GGUF file from its `tokenizer.ggml.pre`.

# %%
import regex

from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.pretokenize import pre_tokenizer_config
from gguftok.pretokenize.unicode import WHITESPACE_SET
from gguftok.viz.numbers_view import digit_split, numbers_view
from gguftok.viz.pretokenize_view import (
    LESSON_LINE,
    alternatives,
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
# A line with a contraction in capitals (`We'LL`), a five-digit number, two newlines, two spaces of indentation
# and a bit of code. Every chip is one word (`␣` a space, `↵` a newline); hovering a chip shows the word as
# the vocabulary stores it (`Ġ` for a space byte, notebook 02).

# %%
compare_splits(["qwen2", "llama-bpe", "gpt-2"], LESSON_LINE)

# %% [markdown]
# 18 words for Qwen2, 14 for Llama 3 (pre string `llama-bpe`), 12 for GPT-2:
#
# - **Digits.** Qwen2 takes one digit at a time; Llama 3 up to three, left to right (`123`, `45`); GPT-2 the
#   whole run with the space before it (`␣12345`).
# - **Contractions.** Qwen2 and Llama 3 take `'LL` whole; GPT-2 knows only lower case, so `'` and `LL` part.
# - **Whitespace.** The rule `\s+(?!\S)` takes a run of spaces but stops one short of a non-space, so the
#   last space stays with the word: `␣` and `␣int`. Qwen2 and Llama 3 keep the newlines apart (`↵↵`); GPT-2
#   swallows them with the first space (`↵↵␣`).

# %% [markdown]
# ## How a list of regexes cuts a text
#
# A file names its pre-tokenizer by a string, `tokenizer.ggml.pre` (`qwen2`, `llama-bpe`, ...); llama.cpp maps
# each string to a **pre-type**, its own name for one way of cutting (`llama-bpe` and `llama3` select the same
# one). A pre-type is a *list* of regexes, and llama.cpp (`unicode_regex_split` in its `unicode.cpp`) applies
# it like this:
#
# 1. The text starts as one word. The first regex cuts it; each next regex cuts **every word** the previous
#    ones left, and never joins anything back.
# 2. A regex cuts a word at the edges of its matches: each match is a word, and so is the text **between**
#    two matches (or before the first, or after the last). Nothing is thrown away.
# 3. Each word is searched **on its own**: a match never reaches past the word's end, and a lookahead such
#    as `(?!\S)` sees the end of the word there.
# 4. A match of **no characters** (a lookahead alone can match like that) cuts where it is, and makes no word.
#
# StarCoder's list shows rules 1 and 2: every number alone (`\p{N}`), then GPT-2's pattern on the words
# left, such as `x=` and `;␣it's␣`.

# %%
list_view(pre_tokenizer_config("starcoder").regexes, "x=42; it's 2026")

# %% [markdown]
# Rule 3: after `\d` the two spaces end the word `ab␣␣`, so `(?!\S)` sees that word's end and both spaces go
# together; in the whole text, it would have seen the `1` and left one space behind.

# %%
list_view([r"\d", r"\s+(?!\S)"], "ab  12")

# %% [markdown]
# Rule 4, with SuperBPE's list: `(?=(\d{3})+(?!\d))`, a lookahead alone, matches no characters at each place
# followed by a multiple of three digits, and cuts `1234567` into `1`, `234`, `567`.

# %%
list_view(pre_tokenizer_config("superbpe").regexes, "pay 1234567 now")

# %% [markdown]
# The four rules as one procedure:
#
# 1. the words start as the whole text (none for an empty text);
# 2. for each regex, for each word: find the matches in that word alone; keep the text before each match
#    (if any), the match (if not empty), and the text after the last;
# 3. the words left after the last regex are the answer.
#
# Rule 3's view above is this on `ab␣␣12`: `ab␣␣`, `1`, `2` after `\d`, then `ab`, `␣␣`, `1`, `2`.

# %% [markdown]
# ## GPT-2's pattern, alternative by alternative
#
# GPT-2's rule is one regex. A regex with `|` is a list of **alternatives**; at each place the engine tries
# them **in order**, the first that matches wins (not the longest), and it goes on from the end of that
# match. `\p{L}` is any letter, `\p{N}` any number (`7`, but also `½`), `\s` any whitespace, `\S` anything
# else, `[^\s\p{L}\p{N}]` none of the three (punctuation, symbols, emoji). The pattern, whole:

# %%
print(literal(pre_tokenizer_config("gpt-2").regexes[0]))

# %% [markdown]
# | alternatives | what they take |
# |---|---|
# | `'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d` | seven English contractions, lower case only: `it's` gives `it` and `'s` |
# | ` ?\p{L}+` | a space or none, then a run of letters: `␣pay`; the space before a word goes with the word |
# | ` ?\p{N}+` | a space or none, then a run of numbers, however long: `␣12345` |
# | ` ?[^\s\p{L}\p{N}]+` | a space or none, then a run of anything else that is not whitespace: `,`, `!` |
# | `\s+(?!\S)` | whitespace not followed by a non-space: before a word all but its last space, which the word's ` ?` takes |
#
# Each contraction is an alternative of its own, so llama.cpp's pattern has 11 alternatives. OpenAI's original
# (`encoder.py` of GPT-2) has 12 alternatives: it ends with `\s+`, for whitespace the others leave. The copy
# cuts the same without it: by rule 2, text no alternative takes stays a word anyway (the tab before `y`).

# %%
GPT2_ENCODER_PY = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
print(f"alternatives: {len(alternatives(GPT2_ENCODER_PY))} in GPT-2's encoder.py, "
      f"{len(alternatives(pre_tokenizer_config('gpt-2').regexes[0]))} in llama.cpp's copy")

# %% [markdown]
# Each word is numbered by the alternative that took it:

# %%
alternatives_view(pre_tokenizer_config("gpt-2").regexes[0], "I'd pay 12345, it's ½!\n\n  x\ty  ")

# %% [markdown]
# ## Llama 3's pattern
#
# Llama 3 (pre string `llama-bpe`) keeps the idea and changes five things. Its pattern is the one OpenAI wrote
# for GPT-4 (`cl100k_base` in the `tiktoken` library), with the contractions spelled out. The pattern, whole:

# %%
print(literal(pre_tokenizer_config("llama-bpe").regexes[0]))

# %% [markdown]
# | alternative | what it takes |
# |---|---|
# | `(?:'[sS]\|'[tT]\|'[rR][eE]\|'[vV][eE]\|'[mM]\|'[lL][lL]\|'[dD])` | the same seven contractions, in any case, letter by letter: `'LL` |
# | `[^\r\n\p{L}\p{N}]?\p{L}+` | one character that is no newline, letter or number (a space, or `(`), or none, then letters: `␣pay`, `(ok` |
# | `\p{N}{1,3}` | one to three numbers, with no space in front: `12345` gives `123` and `45` |
# | ` ?[^\s\p{L}\p{N}]+[\r\n]*` | a space or none, a run of anything else, and the newlines right after it: `;↵` |
# | `\s*[\r\n]+` | a run of whitespace that ends in newlines: `↵↵` stands alone |
# | `\s+(?!\S)` | as in GPT-2: whitespace that leaves the last space to the word after it |
# | `\s+` | any whitespace left: the space before `12345`, now that numbers take no ` ?` |
#
# Hugging Face's `tokenizer.json` writes the contractions `(?i:'s|'t|...)`; "Going deeper" shows why that is
# not the same.

# %%
alternatives_view(pre_tokenizer_config("llama-bpe").regexes[0], "We'LL pay 12345 for\n\n  int x=42;\n(ok)")

# %% [markdown]
# ## Qwen2's pattern
#
# Qwen2's pattern is Llama 3's with one change, in the third alternative: `\p{N}` instead of `\p{N}{1,3}`,
# one number at a time. Whole:

# %%
print(literal(pre_tokenizer_config("qwen2").regexes[0]))

# %%
alternatives_view(pre_tokenizer_config("qwen2").regexes[0], "x=42; it'S 2026\n")

# %% [markdown]
# ## Numbers, and why they matter for arithmetic
#
# The three digit rules shape the vocabularies too: BPE can only merge inside a word, so Qwen2 has a token
# for each digit and none for longer runs, Llama 3 one for every string of one to three digits, GPT-2 only
# for the runs its training text merged. The same year, in three vocabularies:

# %%
TOKS = {name: Tokenizer.from_gguf(VOCAB / f"ggml-vocab-{name}.gguf") for name in ("qwen2", "llama-bpe", "gpt-2")}
DIGIT_STRINGS = [f"{i:0{k}d}" for k in (1, 2, 3) for i in range(10**k)]
for name, tok in TOKS.items():
    tokens = sum(s in tok.model.token_to_id for s in DIGIT_STRINGS)
    print(f"{name:9s} '2026' -> {tok.encode('2026', add_special=False)} {digit_split(tok, '2026')}; "
          f"{tokens:,} of the {len(DIGIT_STRINGS):,} strings of 1 to 3 digits are tokens")

# %% [markdown]
# What a model has to learn about arithmetic depends on those cuts. Each cell below is one text, its tokens
# framed:

# %%
numbers_view(TOKS, ["234", "1234", "51234", "999+1=1000", "3.14159"])

# %% [markdown]
# - **The same digits, cut differently.** Llama 3 groups from the left, so the cut depends on the number's
#   length: `234` is one token, but in `1234` it becomes `123|4`, in `51234` `512|34`. Tokens do not line up
#   with place values: the units digit is alone in `1234`, shares a token with the tens in `51234`.
# - **Carries cross token boundaries.** `999 + 1` turns the token `999` into `100|0`: one carry changes every
#   token of the answer.
# - **One token per place value.** Qwen2 gives the same token for the same digit, one per place, whatever the
#   length: the digit-by-digit algorithm looks the same on every number, at the price of more tokens. GPT-2
#   follows its training text (`1000` is one token, `1234` two).

# %% [markdown]
# ## Now write yours
#
# Open [`mytok/pretokenize.py`](mytok/pretokenize.py) and write (statements and checks in **Exercises** below):
#
# 1. `split(text, regexes)`: the four rules, with the `regex` module (Python's own `re` knows no `\p{L}`) and
#    `regex.finditer`, which gives each match with its place (`findall` gives a pattern's groups).
# 2. The three patterns printed above, whole, in `GPT2`, `LLAMA3` and `QWEN2` at the top of the file.
# 3. `regexes_for(pre)`: the regex list of a `tokenizer.ggml.pre` value; the file gives the other lists and
#    `SAME_AS`, which names the list each known value uses.


# %% [markdown]
# ## The same cut, starting from the GGUF files
#
# A real tokenizer reads its rule from the file's `tokenizer.ggml.pre`. Three of llama.cpp's reference
# vocabularies, loaded with `Tokenizer.from_gguf`, and the words they hand to BPE (`Tokenizer.words`), in the
# vocabulary's own alphabet (`Ġ` a space byte, `Ċ` a newline byte):

# %%
vocabulary_words([VOCAB / "ggml-vocab-qwen2.gguf", VOCAB / "ggml-vocab-llama-bpe.gguf",
                  VOCAB / "ggml-vocab-gpt-2.gguf"], LESSON_LINE)

# %% [markdown]
# ## Try any text with any of the 91 pre strings
#
# `gguftok.pretokenize.PRE_STRINGS` holds the 91 strings the pinned llama.cpp accepts. Pick one, type any
# text, and see the words and the regexes that made them: `kimi-k2` on Chinese, `superbpe` on a sentence.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.pretokenize_view import pretokenizer_explorer  # noqa: E402

pretokenizer_explorer(LESSON_LINE, "qwen2")

# %% [markdown]
# The same view without the widget, for one choice:

# %%
explorer_view("starcoder", LESSON_LINE)

# %% [markdown]
# With `yours=True` the explorer puts your `split` and `regexes_for` beside llama.cpp's words and marks each
# word that one row has and the other not (✗). Until your functions are written it says so.

# %% tags=["nbval-ignore-output"]
YOURS_LINE = "Hello  world 123456\tfoo's 你好"
pretokenizer_explorer(YOURS_LINE, "qwen2", yours=True)

# %% [markdown]
# Your row without the widget:

# %%
yours_view("qwen2", LESSON_LINE)

# %% [markdown]
# ## Exercises
#
# This notebook's stage is [`mytok/pretokenize.py`](mytok/pretokenize.py): write the body of each function named below there, save, and
# run its check (notebook 00, *How the exercises work*, says what a check does).

# %%
from gguftok.exercises import check, rerun  # noqa: E402

# %% [markdown]
# ### Exercise 04.split: llama.cpp's sequential regex split
#
# Write `split(text, regexes)`: cut `text` with a list of regular expressions by the four rules above.
# Each regex in turn cuts every word left, searching each word on its own (a match never reaches
# past the word, and a lookahead sees the word's end there); the text between two matches, before the
# first or after the last stays a word; a match of no characters cuts but makes no word. An empty
# text has no words. Use the `regex` module and `regex.finditer` (`findall` gives a pattern's groups,
# not its matches).
#
# The check uses this notebook's small lists, random texts in many scripts with the lists of 19
# `tokenizer.ggml.pre` values, and the texts of llama.cpp's `.inp` files of the eleven byte-level BPE
# vocabularies, against gguftok's pre-tokenizer (llama.cpp's engine as ported). The random texts keep
# to characters of Unicode 15.1 (the version of llama.cpp's tables) and give the DeepSeek lists no
# non-ASCII space from U+1680 on: there llama.cpp's engine and plain `regex` part ("Going deeper").
#
# Write it in [`mytok/pretokenize.py`](mytok/pretokenize.py).

# %%
check("04.split")

# %% [markdown]
# ### Exercise 04.regexes_for: the regex list of a tokenizer.ggml.pre value
#
# Write GPT-2's, Llama 3's and Qwen2's patterns in `GPT2`, `LLAMA3` and `QWEN2` at the top of
# `mytok/pretokenize.py` (each one string, as printed whole above), then `regexes_for(pre)`: the list of
# regexes for a `tokenizer.ggml.pre` value. The file gives `SAME_AS`, every value that selects one of
# the lists mapped to the list's name (`"llama3"` to `"llama-bpe"`, ...), and `OTHER_REGEXES`, the
# lists other than your three (five of them use your `GPT2`). A value `SAME_AS` does not know raises
# `ValueError`. Write the contractions letter by letter as llama.cpp does (`'[sS]`, not `(?i:'s)`:
# "Going deeper" says why).
#
# The check cuts each text with your list (and a split of its own, so a slip in your `split` does not
# show here) and compares the words with gguftok's pre-tokenizer for that value: this notebook's
# examples, texts with every contraction, digit runs in several scripts for every list, random texts
# for every value `SAME_AS` holds, the texts of
# llama.cpp's `.inp` files, and values it does not know (`"gpt-4o"`, `""`, ...), which must raise
# `ValueError`.
#
# Write it in [`mytok/pretokenize.py`](mytok/pretokenize.py).

# %%
check("04.regexes_for")

# %% [markdown]
# ## Recap
#
# - BPE runs on words, never across them; `tokenizer.ggml.pre` names the rule that cuts them.
# - A list of regexes is applied in turn, each word searched on its own; the text between matches stays a
#   word, and an empty match cuts without making one.
# - In a pattern, the first alternative that matches at a place wins.
# - GPT-2, Llama 3 and Qwen2 differ in digits, in the case of contractions, and in where newlines go.
# - Llama 3's groups of three digits shift with a number's length; Qwen2 gives one token per place value.

# %% [markdown]
# ## Self-check
#
# 1. Under GPT-2's rule, what are the words of `a␣␣b` (two spaces), and why?
#    <details><summary>Answer</summary><code>a</code>, <code>␣</code>, <code>␣b</code>:
#    <code>\s+(?!\S)</code> must stop before the last space, which <code> ?\p{L}+</code> takes with the
#    word.</details>
# 2. With the list `[r"\d", r"\s+(?!\S)"]`, why do the two spaces of `ab␣␣12` stay together?
#    <details><summary>Answer</summary>After <code>\d</code>, the word <code>ab␣␣</code> ends with them, and
#    the lookahead sees the word's end, not the <code>1</code>.</details>
# 3. How many tokens is `1234567` in Qwen2 and in Llama 3, and which cut lines up with place values?
#    <details><summary>Answer</summary>Seven in Qwen2, three in Llama 3 (<code>123|456|7</code>). Only
#    Qwen2's: Llama 3's groups start from the left and shift with the length.</details>
# 4. Why `regex` and `finditer` rather than `re` and `findall`?
#    <details><summary>Answer</summary><code>re</code> knows no <code>\p{L}</code>; <code>findall</code>
#    returns a pattern's groups, when it has some, not the matches with their places.</details>

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# ## Going deeper

# %% [markdown]
# ### Yours next to llama.cpp's, on more texts
#
# Your `split` with your `regexes_for`, beside llama.cpp's words (computed by gguftok), as in the explorer
# with `yours=True`. Each word that one row has and the other does not is marked with a dashed border and ✗,
# and the line under them names the first difference. While `regexes_for` is not written, your `split` runs
# with llama.cpp's list; while `split` is not written, only llama.cpp's row is shown. Your file is read again
# every time a cell runs.

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
#
# ### Code and indentation
#
# Indented code shows the whitespace rule on every line. In this C loop, the four spaces before `sum` become a
# word of three spaces and `␣sum`; the newline after `{` joins the punctuation in front of it (Qwen2's and
# Llama 3's punctuation alternative ends in `[\r\n]*`), while GPT-2 starts the next word with it. Since BPE
# can only merge inside these words, Qwen2 encodes the line with a token of three spaces and then ` sum`.

# %%
compare_splits(["qwen2", "llama-bpe", "gpt-2"], "for (int i = 0; i < n; i++) {\n    sum += a[i];\n}")

# %% [markdown]
# ### How a pre string picks its code
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
# The words are always cut from the original text.

# %%
engine_view("deepseek-coder", "Ünï\u3000x½ é\x1cz")

# %% [markdown]
# Step 2's `\s?\p{L}+` treated the ideographic space exactly as it would an ASCII space: `□x` became one
# word, just as `␣é` did.
#
# ### What counts as whitespace
#
# Whitespace decides a good share of the words, so it matters which characters count. For llama.cpp, `\s`
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
# llama.cpp on all of these.) A few rows make the point; the toggle under them holds every code point that
# either side calls whitespace.

# %%
whitespace_table(keep=[0x0A, 0x1C, 0x1F, 0x20, 0xA0, 0x3000])

# %% [markdown]
# The difference in words: an ideographic space behaves like a space (in Llama 3's rule the last one joins
# the word after it, as `␣int` did above); two U+001C in a row form one punctuation-like word; `bloom`'s
# rule, which excludes `\s` from words, leaves U+001C inside the word. `str.split()`, for comparison, would
# see two words in each text.

# %%
whitespace_splits(["llama-bpe", "gpt-2", "bloom"], ["x\u3000\u3000y", "x\x1c\x1cy", "x  y"])

# %% [markdown]
# ### Word counts across all pre-tokenizers
#
# Four short texts (English prose, indented Python, numbers, and Japanese, Chinese and Korean with emoji)
# cut by each of the 31 distinct splitters; the last column lists the pre strings that select each one.
# Splitters that cut digits one by one (`qwen2`, `starcoder`, `deepseek-coder`, ...) pay for it on the
# numbers; `superbpe` and `gemma4` barely cut at all (SuperBPE only isolates digit groups, so its tokens can
# span several words; Gemma 4 only separates newline runs); the splitters with rules of their own for CJK
# scripts (`kimi-k2`, `deepseek-coder`, `youtu`, `afmoe`) cut the last text into more words. The table shows
# those rows, with the whole table in the toggle, and the figure every splitter.

# %%
counts = piece_counts()
piece_count_table(counts, keep=["qwen2", "starcoder", "deepseek-coder", "kimi-k2", "llama-bpe", "gpt-2",
                                "superbpe", "gemma4"])

# %% tags=["nbval-ignore-output"]
from gguftok.viz.pretokenize_view import piece_count_chart  # noqa: E402

piece_count_chart(counts);

# %% [markdown]
# ### Where plain `regex` and llama.cpp part
#
# Your `split` runs each pattern with the `regex` module, as written. llama.cpp runs the same patterns through
# its hand-written loops and the two paths of its regex engine. On the lists of the eleven byte-level BPE
# vocabularies that llama.cpp ships `.inp`/`.out` files for, the two give the same words on every text of those
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
# nothing, so the word `□b` stays whole:

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
# the words your patterns make are the loops' words.
#
# The random texts of the checks therefore use only characters Unicode 15.1 already had, and give the two
# DeepSeek lists no non-ASCII space from U+1680 on. Everything else in them (letters of several scripts,
# digits and other numbers, spaces of several kinds, newlines, apostrophes, punctuation, CJK, emoji and
# combining marks) is fair game, and there your plain-regex pre-tokenizer and llama.cpp's agree.
