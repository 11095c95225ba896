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
# # 09 · Matching llama.cpp token for token
#
# A tokenizer port is useful only if it gives *the same ids* as llama.cpp: a model was trained on those ids,
# and one wrong id changes what it reads. "Close" is not a result here. This notebook shows how gguftok is
# held to that standard:
#
# 1. the lesson's three texts on Qwen2 and Llama 3, printed the way `llama-tokenize` prints them;
# 2. llama.cpp's own test cases (`.inp`/`.out`) for every vocabulary that has them;
# 3. the golden fixtures: thousands of llama.cpp answers recorded once and re-checked on every test run;
# 4. a conformance view that takes any id list and points at the first token where it goes wrong.
#
# Every id printed below is computed by gguftok in this notebook. Nothing is copied from the lesson.

# %%
from gguftok import Tokenizer
from gguftok.conformance.golden import fixture_paths, read_fixture
from gguftok.data import vocab_dir
from gguftok.viz.conformance_view import (
    case_rows,
    case_table,
    compare_ids,
    conformance_view,
    fixture_summary,
    spot_check,
    tokenize_lines,
    tokens_per_character,
)

VOCAB = vocab_dir()
qwen2 = Tokenizer.from_gguf(VOCAB / "ggml-vocab-qwen2.gguf")
llama3 = Tokenizer.from_gguf(VOCAB / "ggml-vocab-llama-bpe.gguf")

TEXTS = ["Hello world, it's 2026!",
         "for (int i = 0; i < n; i++) {\n    sum += a[i];\n}",
         "Ünïcödé: 世界 😀 привет"]

# %% [markdown]
# ## Three texts, two vocabularies
#
# The lesson picks three texts that stress different parts of a pre-tokenizer: English with an apostrophe and
# a number, a few lines of code with indentation, and mixed scripts with an emoji. `llama-tokenize` encodes
# with two defaults worth knowing: it adds BOS **if the vocabulary asks for it** (`tokenizer.ggml.add_bos_token`),
# and it **parses special tokens** in the text. `tokenize_lines` uses the same defaults and prints each token
# as `{id:6d} -> '{piece}'`, exactly like `llama-tokenize` and `gguftok tokenize`. Below each listing is the
# `--ids` form.

# %%
print("Qwen2 adds BOS:", qwen2.add_bos, "   Llama 3 adds BOS:", llama3.add_bos)

# %%
tokenize_lines(qwen2, TEXTS[0])

# %%
tokenize_lines(llama3, TEXTS[0])

# %% [markdown]
# Qwen2 writes digits one at a time (`2`, `0`, `2`, `6`), Llama 3 in groups of up to three (`202`, `6`).
# Llama 3 starts with `<|begin_of_text|>` (128000) because its vocabulary asks for BOS; Qwen2's does not.
# The code sample:

# %%
tokenize_lines(qwen2, TEXTS[1])

# %%
tokenize_lines(llama3, TEXTS[1])

# %% [markdown]
# The newline joins the punctuation before it (`␣{↵`, id 341 in both), and of the four spaces of indentation
# three make a token of their own (`␣␣␣`, id 262) while the last one goes to the next word (`␣sum`): a run of
# whitespace keeps its last space for the word that follows. The mixed-script
# text shows byte-level BPE at work: `😀` and the Cyrillic letters are pieces of UTF-8 bytes shown here
# decoded, and a piece that is only part of a character shows as `�`, just as a terminal would show it.

# %%
tokenize_lines(qwen2, TEXTS[2])

# %%
tokenize_lines(llama3, TEXTS[2])

# %% [markdown]
# The six id lists, side by side with what the lesson reports for its program and for the pinned
# `llama-tokenize` build. All six agree with both; the check below is code, not eyeballing:

# %%
LESSON = {
    "qwen2": [[9707, 1879, 11, 432, 594, 220, 17, 15, 17, 21, 0],
              [1958, 320, 396, 600, 284, 220, 15, 26, 600, 366, 308, 26, 600, 2457, 341, 262, 2629, 1421, 264, 989,
               935, 92],
              [52491, 77, 37572, 66, 2956, 128505, 25, 220, 99489, 90316, 12281, 26991, 8178]],
    "llama-bpe": [[128000, 9906, 1917, 11, 433, 596, 220, 2366, 21, 0],
                  [128000, 2000, 320, 396, 602, 284, 220, 15, 26, 602, 366, 308, 26, 602, 2516, 341, 262, 2694,
                   1447, 264, 1004, 947, 92],
                  [128000, 53591, 77, 38672, 66, 3029, 67, 978, 25, 127365, 91416, 108349, 8341]],
}
for name, tok in (("qwen2", qwen2), ("llama-bpe", llama3)):
    for text, expected in zip(TEXTS, LESSON[name], strict=True):
        ours = tok.encode(text, add_special=tok.add_bos, parse_special=True)
        print(f"{name:<10s} {len(ours):3d} tokens  {'same as the lesson' if ours == expected else 'DIFFERENT'}")

# %% [markdown]
# ## llama.cpp's own test cases
#
# Fifteen of the 19 vocabulary files come with a pair of files: `.inp` holds test texts separated by
# `__ggml_vocab_test__` lines, `.out` one line of expected ids per text. llama.cpp's `test-tokenizer-0`
# encodes them **without BOS and without special parsing** and demands exact equality.
# `gguftok.conformance.cases.run_cases` does the same; here it runs for every file:

# %%
rows = case_rows()
case_table(rows)

# %% [markdown]
# Every case passes, on every vocabulary that has cases (Qwen 3.5's file has 50 texts, the others 46).
# Aquila, Baichuan, GPT-NeoX and Nomic BERT MoE ship without cases, so for them the golden fixtures below
# are the only check. The same table runs in the test suite (`tests/test_llama_cases.py`).
#
# 46 hand-picked texts are a good start, but they were written to catch the bugs llama.cpp's authors had
# in mind. The next two checks are for the bugs nobody had in mind.

# %% [markdown]
# ## The golden fixtures: llama.cpp's answers, recorded
#
# The project can run llama.cpp itself as an **oracle**: `gguftok.conformance.oracle` loads the pinned
# llama.cpp (through llama-cpp-python 0.3.36, the same source the vocabularies come from) in a separate
# worker process, so a crash of llama.cpp on a hostile input is recorded as a crash instead of killing the
# test run. `python -m gguftok.conformance.golden` asked that oracle once about generated inputs (random
# Unicode, whitespace runs, special-token texts glued to words, invalid UTF-8, ...) and stored its answers
# under `tests/golden/`. Each encode case is answered for all four `(add_special, parse_special)` pairs and
# each decode case for all four `(remove_special, unparse_special)` pairs. Besides the 19 real vocabularies
# there are fixtures for one real vocabulary relabelled with every pre-tokenizer name llama.cpp knows
# (`pre-*`), and for built vocabularies of the tokenizer types no real file here uses (`synthetic-*`):

# %%
fixtures = [read_fixture(p) for p in fixture_paths()]
fixture_summary(fixtures)

# %% [markdown]
# "Crashes" counts inputs where llama.cpp itself aborts (for instance a token id out of range in a decode).
# There gguftok must raise a `ValueError` rather than return something. The test suite
# (`tests/test_golden.py`) replays every fixture without llama.cpp installed. A spot check of a few Qwen2
# and Llama 3 cases, all four flag pairs each:

# %%
by_name = {fx.name: fx for fx in fixtures}
spot_check(qwen2, by_name["qwen2"], [0, 3, 17, 250, 999])

# %%
spot_check(llama3, by_name["llama-bpe"], [0, 3, 17, 250, 999])

# %% [markdown]
# ## Checking your own ids
#
# Suppose you wrote your own tokenizer (the lesson's is in Java) and it gives a list of ids. Where does it go
# wrong? `compare_ids` lines the two lists up and marks the **first** position where they differ. Only the
# first one matters: after a wrong merge, every later position is shifted, so the rest of the list says
# little. A typical mistake is normalising the text first. Python's `unicodedata.normalize("NFD", ...)` splits
# `Ü` into `U` plus a combining diaeresis; llama.cpp's BPE vocabularies do no normalisation at all, so the
# bytes, and from the first accented letter on the ids, differ. We build that student's ids with gguftok
# itself on the normalised text and compare them with the reference for the original text:

# %%
import unicodedata  # noqa: E402

student = qwen2.encode(unicodedata.normalize("NFD", TEXTS[2]), add_special=False)
conformance_view(qwen2, TEXTS[2], student)

# %% [markdown]
# A second mistake: forgetting that `llama-tokenize` adds BOS for Llama 3 (its vocabulary asks for it) but
# not for Qwen2. Here are the lesson's Llama 3 ids for the first text, without the leading 128000, pasted as
# text:

# %%
conformance_view(llama3, TEXTS[0], "[9906, 1917, 11, 433, 596, 220, 2366, 21, 0]")

# %% [markdown]
# The second list is right token for token but lacks BOS, so everything is shifted by one and the first
# difference is at index 0. The view accepts ids as a list or as pasted text (`[1, 2]`, `1 2`, `1,2`), and
# `compare_ids` compares any two lists, for instance two ports against each other.
#
# ## Try it
#
# Type a text, paste ids (from your tokenizer, or from `llama-tokenize --ids`), and pick a vocabulary. An
# empty id box is filled with the reference ids; edit one to see the marker move.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.conformance_view import conformance_playground  # noqa: E402

conformance_playground(text=TEXTS[2], ids=str(student), vocab="qwen2")

# %% [markdown]
# The same view without the widget (this is what the tests check):

# %%
compare_ids(qwen2, student, qwen2.encode(TEXTS[2], add_special=False, parse_special=True),
            labels=("student", "gguftok / llama.cpp"))

# %% [markdown]
# ## How dense is each vocabulary?
#
# Same three texts, every vocabulary that loads, counted without BOS: tokens per character. Lower means each
# token carries more text. The mixed-script text separates them most: GPT-2, with a small English-centred
# vocabulary, needs more than one token per character there (byte pieces), while Gemma 4 and Command-R, with
# vocabularies of over 250,000 tokens, need half a token per character.

# %%
all_toks = {p.name.removeprefix("ggml-vocab-").removesuffix(".gguf"): Tokenizer.from_gguf(p)
            for p in sorted(VOCAB.glob("ggml-vocab-*.gguf"))}
density = tokens_per_character(all_toks, TEXTS)
for name, values in density.items():
    print(f"{name:<16s} " + "  ".join(f"{v:.2f}" for v in values))

# %% tags=["nbval-ignore-output"]
from gguftok.viz.conformance_view import tokens_per_character_figure  # noqa: E402

tokens_per_character_figure(density, ["English + number", "code", "mixed scripts"]);

# %% [markdown]
# ## How the project keeps checking itself
#
# Three layers, from cheapest to strongest:
#
# - **llama.cpp's cases** (above): 15 vocabularies, a few hundred texts, checked by `tests/test_llama_cases.py`.
# - **Golden fixtures** (above): the oracle's recorded answers for all 19 vocabularies, every pre-tokenizer
#   name and every tokenizer type, under all flag combinations, checked by `tests/test_golden.py`. They need
#   no llama.cpp, so every test run and every reader of this notebook can replay them.
# - **The differential fuzzer** (`python -m gguftok.conformance.fuzz --vocab qwen2 -n 20000`, or
#   `make fuzz`): fresh random inputs through gguftok and the live oracle, every answer compared. A
#   disagreement is shrunk to a small input that still disagrees and printed with both id lists and their
#   pieces, the same kind of view as `compare_ids` above. Any such input becomes a new test case.
#
# The fuzzer and the fixture generator need the oracle (`make oracle`); this notebook and the tests do not.

# %% [markdown]
# ## What you can now explain
#
# - Why exact id equality is the only useful test for a tokenizer port, and why only the first difference
#   matters.
# - `llama-tokenize`'s defaults (BOS if the vocabulary asks, special tokens parsed) versus
#   `test-tokenizer-0`'s (no BOS, no special parsing), and what each does to the ids.
# - How gguftok reproduces the lesson's six id lists and passes all of llama.cpp's test cases on the 15
#   vocabularies that have them.
# - What the golden fixtures record, why llama.cpp runs in a separate process, and what the fuzzer adds.

# %% [markdown]
# ## Exercises
#
# Write each function in the code cell under its statement, run that cell, then run the check below it.
# The check calls your function on this lesson's examples and on many generated inputs (seeded, so the
# same every time), compares each answer with gguftok's own, and shows the first input where they
# differ: the input, the expected answer, yours, and for a list the first index that differs. Until you
# write the body it says *not attempted*. `gguftok.exercises.show("NN.name")` prints a task again.
# The solutions are in `solutions/lesson09.py` at the top of the repository.

# %%
from gguftok.exercises import check  # noqa: E402


# %% [markdown]
# ### Exercise 09.first_difference: the first difference between two id lists
#
# Write `first_difference(got, expected)`: the first index at which the two id lists differ, or `None`
# when they are equal. When one list is the other with more ids at the end, the first difference is at
# the end of the shorter one (a missing token is a difference).
#
# The check uses the notebook's two cases (the NFD-normalised text, the forgotten BOS) and 250 random
# pairs with one id changed, dropped, added or shifted, against `gguftok.viz.conformance_view`.

# %%
def first_difference(got: list[int], expected: list[int]) -> int | None:
    """The first index where ``got`` and ``expected`` differ; None if they are equal.

    >>> first_difference([9906, 1917], [128000, 9906, 1917]), first_difference([1, 2], [1, 2])
    (0, None)
    """
    raise NotImplementedError


# %%
check("09.first_difference", first_difference)


# %% [markdown]
# ### Exercise 09.parse_ids: ids pasted as text
#
# Ids arrive as text: `llama-tokenize --ids` prints `[9707, 1879, 0]`, and people paste `9707 1879 0` or
# `9707,1879,0`. Write `parse_ids(text)` that accepts all three: strip surrounding whitespace, then one
# optional `[` at the start and one optional `]` at the end, and split the rest on any run of commas and
# whitespace. Empty parts are ignored, so an empty text is `[]`. A part that is not an integer (digits
# with an optional leading `-`) raises `ValueError`.
#
# The check uses a few fixed texts and 200 random ones, some with a bad part, against
# `gguftok.viz.conformance_view.parse_ids`.

# %%
def parse_ids(text: str) -> list[int]:
    """Ids from ``"[1, 2, 3]"``, ``"1 2 3"`` or ``"1,2,3"``; ValueError for anything else.

    >>> parse_ids("[9707, 1879,0]")
    [9707, 1879, 0]
    """
    raise NotImplementedError


# %%
check("09.parse_ids", parse_ids)
