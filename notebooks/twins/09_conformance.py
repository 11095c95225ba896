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
# # 09 · Matching llama.cpp token for token
#
# A tokenizer port is useful only if it gives *the same ids* as llama.cpp: a model was trained on those ids,
# and one wrong id changes what it reads. "Close" is not a result here. This notebook shows how a tokenizer
# is held to that standard:
#
# 1. three texts on Qwen2 and Llama 3, printed the way `llama-tokenize` prints them;
# 2. llama.cpp's own test files (`.inp`/`.out`) for every vocabulary that has them, and a runner for them
#    that **you** write in [`mytok/conformance.py`](mytok/conformance.py): `read_cases`, `run_cases` and
#    `first_difference`. Notebook 12 grades your own tokenizer with it;
# 3. the golden fixtures: thousands of llama.cpp answers recorded once and replayed against gguftok;
# 4. a conformance view that takes any id list and points at the first token where it goes wrong.
#
# Every id printed below is computed in this notebook, by gguftok or by your code.

# %%
import unicodedata

from gguftok import Tokenizer
from gguftok.conformance.cases import read_cases
from gguftok.conformance.golden import fixture_paths, read_fixture
from gguftok.data import vocab_dir
from gguftok.exercises.workspace import load
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
# Three texts that stress different parts of a pre-tokenizer: English with an apostrophe and a number, a few
# lines of code with indentation, and mixed scripts with an emoji. `llama-tokenize` encodes with two
# defaults worth knowing: it adds BOS **if the vocabulary asks for it** (`tokenizer.ggml.add_bos_token`), and
# it **parses special tokens** in the text. `tokenize_lines` uses the same defaults and prints each token as
# `{id:6d} -> '{piece}'`, exactly like `llama-tokenize` and `gguftok tokenize`. Below each listing is the
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
# The six id lists, side by side with the ids `llama-tokenize` printed for the same texts (recorded once
# from the pinned build). The comparison is code, not eyeballing:

# %%
LLAMA_TOKENIZE = {
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
    for text, expected in zip(TEXTS, LLAMA_TOKENIZE[name], strict=True):
        ours = tok.encode(text, add_special=tok.add_bos, parse_special=True)
        print(f"{name:<10s} {len(ours):3d} tokens  {'same as llama-tokenize' if ours == expected else 'DIFFERENT'}")

# %% [markdown]
# ## llama.cpp's own test files
#
# Most of the vocabulary files come with a pair of files written by llama.cpp's developers:
# `ggml-vocab-NAME.gguf.inp` holds test texts, `ggml-vocab-NAME.gguf.out` the ids each must encode to.
# The start of Llama 3's pair, as raw bytes and as text:

# %%
inp = (VOCAB / "ggml-vocab-llama-bpe.gguf.inp").read_bytes()
out = (VOCAB / "ggml-vocab-llama-bpe.gguf.out").read_text(encoding="utf-8")
print(repr(inp[:130]))
print(repr(out[:60]))

# %% [markdown]
# The program that runs them, llama.cpp's `tests/test-tokenizer-0.cpp`, reads them like this:
#
# - the `.inp` file is cut at every separator `\n__ggml_vocab_test__\n`: from the start, up to the next
#   separator is one text, and reading goes on after it. A separator at the very end starts no further
#   text. The texts are bytes, kept exactly (above, the third text is empty and the fourth is one space);
# - the `.out` file is cut into lines, and line `k` holds the ids of text `k`. Each line is stripped of
#   whitespace at both ends (the files write a space before every id), then cut at single spaces; an empty
#   line is an empty list;
# - if the two files hold different numbers of cases, it stops ("different number of tests");
# - each text is encoded **without BOS and without special-token parsing** (`add_special=False,
#   parse_special=False`), and the ids must be exactly the expected ones.
#
# gguftok's `gguftok.conformance.cases.read_cases` reads them so. The first four cases of Llama 3's pair:

# %%
for text, ids in read_cases(inp, out)[:4]:
    print(f"{text!r:24s} -> {ids}")

# %% [markdown]
# Now write the three functions of a runner in [`mytok/conformance.py`](mytok/conformance.py):
# `read_cases(inp, out)` by the rules above; `run_cases(encode, cases)`, which encodes every text and goes
# on when `encode` raises (the error is recorded as text in place of the ids); and
# `first_difference(got, expected)`, the first index where two id lists part. Only the first difference
# matters: after a wrong merge every later position is shifted, so the rest of the list says little.
# Exercises 09.read_cases, 09.run_cases and 09.first_difference at the end check them.
#
# gguftok's own runner on every vocabulary file:

# %%
rows = case_rows()
case_table(rows)

# %% [markdown]
# Every case passes, on every vocabulary that has cases (Qwen 3.5's file has 50 texts, the others 46).
# Aquila, Baichuan, GPT-NeoX and Nomic BERT MoE ship without cases, so for them the golden fixtures below
# are the only check.
#
# ### Your runner
#
# The same files through *your* runner, with gguftok's tokenizer as the encoder: your `read_cases` reads
# each pair, your `run_cases` encodes every text, your `first_difference` says where a case fails. The cell
# reads your file afresh each time it runs; until the three functions are written it says so.

# %%
def encoder(tok, normalize=None):
    """``encode`` as llama.cpp's test encodes: bytes in, ids out, no BOS, special tokens not parsed; with
    ``normalize``, the text is put into that Unicode normal form first."""
    def encode(text: bytes) -> list[int]:
        if normalize:
            text = unicodedata.normalize(normalize, text.decode("utf-8")).encode("utf-8")
        return tok.encode(text, add_special=False, parse_special=False)
    return encode


def my_runner(make_encode):
    mine = load("conformance")
    try:
        for inp_path in sorted(VOCAB.glob("ggml-vocab-*.gguf.inp")):
            name = inp_path.name.removeprefix("ggml-vocab-").removesuffix(".gguf.inp")
            cases = mine.read_cases(inp_path.read_bytes(), inp_path.with_suffix(".out").read_text(encoding="utf-8"))
            results = mine.run_cases(make_encode(Tokenizer.from_gguf(inp_path.with_suffix(""))), cases)
            failed = [(text, expected, got) for text, expected, got in results
                      if isinstance(got, str) or mine.first_difference(got, expected) is not None]
            line = f"{name:<16s} {len(results) - len(failed):3d}/{len(results)} passed"
            if failed:
                text, expected, got = failed[0]
                where = (f"raised {got}" if isinstance(got, str) else
                         f"first difference at index {mine.first_difference(got, expected)}")
                line += f"; first failure: {text.decode('utf-8', 'replace')[:20]!r}, {where}"
            print(line)
    except NotImplementedError:
        print("not written yet: write read_cases, run_cases and first_difference in mytok/conformance.py, save,\n"
              "and run this cell again")


my_runner(encoder)

# %% [markdown]
# A runner that only ever says "passed" proves nothing, so here is a tokenizer that must fail: it puts its
# text into Unicode's decomposed form (NFD) before encoding, a typical mistake. `unicodedata.normalize("NFD",
# ...)` splits `Ä` into `A` plus a combining diaeresis; llama.cpp's vocabularies do no such normalisation, so
# from the first accented letter on the bytes, and the ids, differ. Your runner should find the cases with
# accented letters (`Äpfel` among them), and only those, in every file but one: BERT's tokenizer (bert-bge)
# takes accents off by itself, so for it the decomposed text encodes the same.

# %%
my_runner(lambda tok: encoder(tok, "NFD"))

# %% [markdown]
# 46 hand-picked texts are a good start, but they were written to catch the bugs llama.cpp's authors had
# in mind. The next two checks are for the bugs nobody had in mind.

# %% [markdown]
# ## The golden fixtures: llama.cpp's answers, recorded
#
# The project can run llama.cpp itself as an **oracle**: `gguftok.conformance.oracle` loads the pinned
# llama.cpp (through llama-cpp-python 0.3.36, the same source the vocabularies come from) in a separate
# worker process, so a crash of llama.cpp on a hostile input is recorded as a crash instead of ending the
# whole run. `python -m gguftok.conformance.golden` asked that oracle once about generated inputs (random
# Unicode, whitespace runs, special-token texts glued to words, invalid UTF-8, ...) and stored its answers
# in the repository. Each encode case is answered for all four `(add_special, parse_special)` pairs and
# each decode case for all four `(remove_special, unparse_special)` pairs. Besides the 19 real vocabularies
# there are fixtures for one real vocabulary relabelled with every pre-tokenizer name llama.cpp knows
# (`pre-*`), and for built vocabularies of the tokenizer types no real file here uses (`synthetic-*`):

# %%
fixtures = [read_fixture(p) for p in fixture_paths()]
fixture_summary(fixtures)

# %% [markdown]
# "Crashes" counts inputs where llama.cpp itself aborts (for instance a token id out of range in a decode).
# There gguftok must raise a `ValueError` rather than return something. The fixtures replay without
# llama.cpp installed. A spot check of a few Qwen2 and Llama 3 cases, all four flag pairs each:

# %%
by_name = {fx.name: fx for fx in fixtures}
spot_check(qwen2, by_name["qwen2"], [0, 3, 17, 250, 999])

# %%
spot_check(llama3, by_name["llama-bpe"], [0, 3, 17, 250, 999])

# %% [markdown]
# ## Checking your own ids
#
# Suppose your tokenizer gives a list of ids for one text. Where does it go wrong? `compare_ids` lines the
# two lists up and marks the **first** position where they differ, the position your `first_difference`
# finds. The NFD mistake from above, on the mixed-script text: the ids of the normalised text, against the
# reference for the original text:

# %%
student = qwen2.encode(unicodedata.normalize("NFD", TEXTS[2]), add_special=False)
conformance_view(qwen2, TEXTS[2], student)

# %% [markdown]
# A second mistake: forgetting that `llama-tokenize` adds BOS for Llama 3 (its vocabulary asks for it) but
# not for Qwen2. Here are `llama-tokenize`'s Llama 3 ids for the first text, without the leading 128000,
# pasted as text:

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
# The same view without the widget:

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
# ## Three layers of checking
#
# How gguftok keeps matching llama.cpp, from cheapest to strongest:
#
# - **llama.cpp's cases** (above): 15 vocabularies, a few hundred texts, read and run as llama.cpp runs them.
# - **Golden fixtures** (above): the oracle's recorded answers for all 19 vocabularies, every pre-tokenizer
#   name and every tokenizer type, under all flag combinations. They need no llama.cpp, so anyone can
#   replay them, this notebook included.
# - **The differential fuzzer** (`python -m gguftok.conformance.fuzz --vocab qwen2 -n 20000`, or
#   `make fuzz`): fresh random inputs through gguftok and the live oracle, every answer compared. A
#   disagreement is shrunk to a small input that still disagrees and printed with both id lists and their
#   pieces, the same kind of view as `compare_ids` above. Any such input becomes a new fixed case.
#
# The fuzzer and the fixture generator need the oracle (`make oracle`); this notebook does not.

# %% [markdown]
# ## What you can now explain
#
# - Why exact id equality is the only useful check of a tokenizer port, and why only the first difference
#   matters.
# - `llama-tokenize`'s defaults (BOS if the vocabulary asks, special tokens parsed) versus
#   `test-tokenizer-0`'s (no BOS, no special parsing), and what each does to the ids.
# - How llama.cpp's `.inp`/`.out` files are read: texts between separators, kept as bytes, one line of ids
#   per text, and what happens at the ends of the files.
# - How gguftok reproduces `llama-tokenize`'s six id lists and passes all of llama.cpp's test cases on the 15
#   vocabularies that have them.
# - What the golden fixtures record, why llama.cpp runs in a separate process, and what the fuzzer adds.

# %% [markdown]
# ## Exercises
#
# Your own tokenizer lives in `mytok/`, a package of yours beside these notebooks, one module per
# stage. This notebook's stage is [`mytok/conformance.py`](mytok/conformance.py):
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
# ### Exercise 09.read_cases: read an .inp/.out pair as llama.cpp does
#
# Write `read_cases(inp, out)`: the cases of a pair of test files, as a list of `(text, expected ids)`
# in file order. `inp` is the .inp file's bytes, `out` the .out file's text. The rules are those of
# llama.cpp's `tests/test-tokenizer-0.cpp`:
#
# - the texts are the pieces of `inp` between separators `b"\n__ggml_vocab_test__\n"` (the constant
#   `SEPARATOR` in your file), kept as bytes. Read from the start: up to the next separator is one text,
#   reading goes on after it. A separator at the very end of the file starts no further text; so an empty
#   file has no texts, and a file that starts with a separator starts with an empty text;
# - the lines of `out` are the pieces between `"\n"`; a final `"\n"` ends the last line and starts no
#   other. Line `k` holds the ids of text `k`: strip whitespace from both ends (the files write a space
#   before every id, and a line may end in `\r`), then the ids are separated by single spaces; an empty
#   line is an empty list;
# - when the numbers of texts and lines differ, raise `ValueError` (llama.cpp stops with "different
#   number of tests"); so does an id that is not an integer (`int` raises it for you).
#
# The check uses the examples above, all 15 pairs in `data/vocab`, and 200 small pairs with empty texts,
# separator-like words, `\r`, missing final newlines, a line too many or too few, or a bad id, against
# `gguftok.conformance.cases.read_cases`.
#
# Write it in [`mytok/conformance.py`](mytok/conformance.py).

# %%
check("09.read_cases")

# %% [markdown]
# ### Exercise 09.run_cases: run every case through an encoder
#
# Write `run_cases(encode, cases)`: call `encode(text)` once for each case of `cases` (as `read_cases`
# gives them), in order, and return one `(text, expected, got)` per case, where `got` is what `encode`
# returned. When `encode` raises an exception, `got` is the text `f"{type(e).__name__}: {e}"` (for
# example `"ValueError: cannot encode byte 0xff at 1"`) and the run goes on with the next case: one
# broken case must not hide the others.
#
# The check uses a small encoder that remembers how many texts it has seen (so each text must be encoded
# once, in order) and raises three kinds of exception, and the 15 vocabularies that have a pair of test
# files, each encoded as llama.cpp's test encodes (no BOS, special tokens not parsed), against the loop of
# `gguftok.conformance.cases.run_cases`.
#
# Write it in [`mytok/conformance.py`](mytok/conformance.py).

# %%
check("09.run_cases")

# %% [markdown]
# ### Exercise 09.first_difference: the first difference between two id lists
#
# Write `first_difference(got, expected)`: the first index at which the two id lists differ, or `None`
# when they are equal. When one list is the other with more ids at the end, the first difference is at
# the end of the shorter one (a missing token is a difference).
#
# The check uses the Llama 3 ids that forgot BOS (above), four small pairs, and 250 random pairs with one
# id changed, dropped, added or shifted, against `gguftok.viz.conformance_view.first_difference`.
#
# Write it in [`mytok/conformance.py`](mytok/conformance.py).

# %%
check("09.first_difference")
