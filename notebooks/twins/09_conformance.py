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
# and one wrong id changes what it reads. This notebook holds a tokenizer to that standard with llama.cpp's
# own test files and its answers recorded in bulk, and finds where a wrong tokenizer goes astray.
#
# After this notebook you can:
#
# * encode a text as `llama-tokenize` does, and say how its defaults differ from llama.cpp's test program;
# * read llama.cpp's `.inp`/`.out` test files exactly as `tests/test-tokenizer-0.cpp` reads them;
# * run a tokenizer on every case and point at the first id where it goes wrong;
# * tell a runner that finds real failures from one that only ever says "passed";
# * name the stage at which a second engine parts from llama.cpp, and prove it;
# * write that runner and that proof in `mytok/conformance.py`.

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
    density_table,
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
# English with an apostrophe and a number, a few lines of code, and mixed scripts with an emoji: each
# stresses another part of a pre-tokenizer. `llama-tokenize` has two defaults worth knowing: it adds BOS
# **if the vocabulary asks for it** (by the rules of notebook 07), and it **parses special tokens** in the
# text. `tokenize_lines` does the same and prints each token as `llama-tokenize` does, `{id:6d} -> '{piece}'`,
# then the `--ids` form.

# %%
print("Qwen2 adds BOS:", qwen2.add_bos, "   Llama 3 adds BOS:", llama3.add_bos)

# %%
tokenize_lines(qwen2, TEXTS[0])

# %%
tokenize_lines(llama3, TEXTS[0])

# %% [markdown]
# Qwen2 writes digits one at a time (`2`, `0`, `2`, `6`), Llama 3 in groups of up to three (`202`, `6`).
# Llama 3 starts with `<|begin_of_text|>` (128000) because its vocabulary asks for BOS; Qwen2's does not.
# The code sample, the lines around its indentation:

# %%
tokenize_lines(qwen2, TEXTS[1], show=range(13, 18))

# %%
tokenize_lines(llama3, TEXTS[1], show=range(14, 19))

# %% [markdown]
# The newline joins the punctuation before it (`␣{↵`, id 341 in both), and of the four spaces of
# indentation three make a token (`␣␣␣`, id 262) while the last goes to the next word (`␣sum`): a run of
# whitespace keeps its last space for the word that follows. In the mixed-script text, a piece that is only
# part of a character shows as `�`, as a terminal would show it.

# %%
tokenize_lines(qwen2, TEXTS[2])

# %%
tokenize_lines(llama3, TEXTS[2])

# %% [markdown]
# The six id lists, beside the ids `llama-tokenize` printed for the same texts (recorded once from the
# pinned build). The comparison is code, not eyeballing:

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
# You write the three functions of such a runner in [`mytok/conformance.py`](mytok/conformance.py):
# `read_cases(inp, out)` by these rules, `run_cases(encode, cases)` to encode every text, and
# `first_difference(got, expected)`, the first index where two id lists part. Only the first difference
# matters: after a wrong merge every later position is shifted. gguftok's own runner, on every vocabulary
# file (a few rows; the toggle opens all):

# %%
rows = case_rows()
case_table(rows, keep=["llama-bpe", "qwen2", "qwen35", "llama-spm", "bert-bge", "aquila", "gpt-neox"])

# %% [markdown]
# Every case passes, on every vocabulary that has cases: Qwen3.5's file has 50 texts, the others 46. Aquila,
# Baichuan, GPT-NeoX and Nomic BERT MoE ship without cases; for them the recorded answers below are the only
# check.
#
# ### Your runner
#
# The same files through *your* runner, with gguftok's tokenizer as the encoder: your `read_cases` reads each
# pair, your `run_cases` encodes every text, your `first_difference` says where a case fails. The cell reads
# your file afresh each time it runs.

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
# text into Unicode's decomposed form (NFD) first, so `Ä` becomes `A` plus a combining diaeresis. Your runner
# should find the cases with accented letters (`Äpfel` among them), and only those, in every file but
# bert-bge's, whose tokenizer takes accents off by itself.

# %%
my_runner(lambda tok: encoder(tok, "NFD"))

# %% [markdown]
# ## llama.cpp's answers, recorded
#
# Beyond the hand-picked texts, llama.cpp itself was asked once about many generated inputs (random Unicode,
# whitespace runs, special-token texts glued to words, invalid UTF-8, ...), and its answers were stored: the
# **golden fixtures**, each case answered under all four flag pairs. Besides the 19 real vocabularies there
# is one relabelled with every pre-tokenizer name llama.cpp knows (`pre-*`), and built vocabularies of the
# tokenizer types no real file here uses (`synthetic-*`):

# %%
fixtures = [read_fixture(p) for p in fixture_paths()]
fixture_summary(fixtures, keep=["qwen2", "llama-bpe", "llama-spm", "pre-*", "synthetic-*"])

# %% [markdown]
# "Crashes" counts inputs where llama.cpp itself aborts (a token id out of range in a decode, for
# instance): there gguftok must raise a `ValueError`. The fixtures replay without llama.cpp. A few Qwen2
# cases, under all four flag pairs:

# %%
by_name = {fx.name: fx for fx in fixtures}
spot_check(qwen2, by_name["qwen2"], [0, 3, 17, 250, 999])

# %% [markdown]
# ## Checking your own ids
#
# Suppose your tokenizer gives a list of ids for one text. `compare_ids` lines it up with the reference and
# marks the **first** position where they differ, the one your `first_difference` finds. The NFD mistake
# from above, on the mixed-script text:

# %%
student = qwen2.encode(unicodedata.normalize("NFD", TEXTS[2]), add_special=False)
conformance_view(qwen2, TEXTS[2], student)

# %% [markdown]
# A second mistake: forgetting that `llama-tokenize` adds BOS for Llama 3. Its ids for the first text,
# without the leading 128000, pasted as text:

# %%
conformance_view(llama3, TEXTS[0], "[9906, 1917, 11, 433, 596, 220, 2366, 21, 0]")

# %% [markdown]
# Right token for token but without BOS: everything is shifted by one, and the first difference is at index 0.
#
# ## Try it
#
# Type a text, paste ids (`[1, 2]`, `1 2` or `1,2`) and pick a vocabulary. It starts with a tokenizer that
# missed one merge, writing `␣{↵` as two tokens. An empty id box is filled with the reference ids.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.conformance_view import conformance_playground  # noqa: E402

code_ids = qwen2.encode(TEXTS[1])
missed = code_ids[:14] + qwen2.encode(" {") + qwen2.encode("\n") + code_ids[15:]  # 341 as two tokens
conformance_playground(text=TEXTS[1], ids=str(missed), vocab="qwen2")

# %% [markdown]
# The same view without the widget, as it starts:

# %%
conformance_view(qwen2, TEXTS[1], missed)

# %% [markdown]
# ## Why two engines disagree
#
# Users meet a second engine: transformers reads the same GGUF file (`gguf_file=`) and converts it into a
# tokenizer of Hugging Face's `tokenizers`, whose pipeline has stages of its own. Yours map onto them:
#
# | `tokenizers` | what llama.cpp (and your `mytok/`) does there |
# |---|---|
# | added tokens | the special-token partition (06), cut out before anything else |
# | normalizer | SentencePiece's space prefix and `▁` (11); WordPiece's lower case; Unigram's character map |
# | pre-tokenizer | the pre-type's list of regexes (04) |
# | model | the merge queue (05), SentencePiece's merges (11), WordPiece, Unigram |
# | post-processor | BOS and EOS (07) |
# | decoder | pieces back to bytes (02, 08) |
#
# Where its ids differ, one stage is to blame: `flags`, `special-match` (other special
# tokens cut out), `special-context` (the text beside one), `normalizer`, `pre-tokenizer`, `model`,
# `bos-eos` or, on the way back, `decoding`. `explain(tok, text, other)` runs both pipelines stage by stage
# and names the first where they part (transformers' conversions are made here without PyTorch):

# %%
from gguftok.disagree import ONE_CASE_PER_STAGE, explain, explain_decode, transformers_tokenizer  # noqa: E402
from gguftok.viz.disagree_view import disagreement_view  # noqa: E402

toks = {"qwen2": qwen2, "llama-bpe": llama3, **{name: Tokenizer.from_gguf(VOCAB / f"ggml-vocab-{name}.gguf")
                                               for name in ("deepseek-coder", "llama-spm")}}
hf = {name: transformers_tokenizer(tok) for name, tok in toks.items()}
deepseek = toks["deepseek-coder"]
d = explain(deepseek, "\tThe cat", hf["deepseek-coder"], add_special=False)
disagreement_view(d, deepseek)

# %% [markdown]
# ### The proof: swap one stage's output
#
# Other words alone prove nothing: the models might differ too. So `explain` hands llama.cpp's words to
# transformers' *model*, which gives llama.cpp's ids on them (`proved: True`): the words are to blame, not
# the model. The same swap proves each stage: without what each side adds around them, the ids agree
# (`bos-eos`); the text beside a special token, encoded alone, agrees (`special-context`). One case per
# stage:

# %%
CASES = ONE_CASE_PER_STAGE
lines = []
for name, text, flags in CASES:
    d = explain(toks[name], text, hf[name], **flags)
    lines.append(f"{d.stage:<15s} {name} {text!r}: {d.explanation}")
ids = llama3.encode("Hello ? world", add_special=False)
d = explain_decode(llama3, ids, hf["llama-bpe"])
lines.append(f"{d.stage:<15s} llama-bpe {ids}: {d.explanation}")
print("\n\n".join(lines))

# %% [markdown]
# ### Try it
#
# Your text, a vocabulary, and the other engine: transformers' conversion, or ids pasted from anywhere. It
# starts where two stages differ at once.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.disagree_view import disagree_playground  # noqa: E402

disagree_playground(text="Tiếng Việt", vocab="llama-bpe", add_special=True)

# %% [markdown]
# The same view without the widget, as it starts:

# %%
disagreement_view(explain(llama3, "Tiếng Việt", hf["llama-bpe"], add_special=True), llama3)

# %% [markdown]
# ## Exercises
#
# This notebook's stage is [`mytok/conformance.py`](mytok/conformance.py): write the body of each function named below there, save, and
# run its check (notebook 00, *How the exercises work*, says what a check does).

# %%
from gguftok.exercises import check, rerun  # noqa: E402

# %% [markdown]
# ### Exercise 09.read_cases: read an .inp/.out pair as llama.cpp does
#
# Write `read_cases(inp, out)`: the cases of a pair of test files, as a list of `(text, expected ids)`
# in file order. `inp` is the .inp file's bytes, `out` the .out file's text. Follow the rules of
# llama.cpp's `tests/test-tokenizer-0.cpp` as notebook 09 lists them: the texts lie between separators
# (the constant `SEPARATOR` in your file), kept as bytes; line `k` of `out` holds the ids of text `k`,
# and a final `"\n"` ends the last line and starts no other. When the numbers of texts and lines
# differ, raise `ValueError`; so does an id that is not an integer (`int` raises it for you).
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

# %% [markdown]
# ### Exercise 09.word_stages: prove the stage where two engines part
#
# Two engines give one text different ids. To prove which stage is to blame, hand llama.cpp's words to the
# other engine's model. Write `word_stages(ours_words, theirs_words, theirs_on_ours, ours_ids)`:
# `ours_words` and `theirs_words` are what each engine hands its model, spelled alike (`Ġ`, `▁`);
# `theirs_on_ours` is the other model's ids on `ours_words` (`None`: not run), `ours_ids` llama.cpp's.
# Return the stages that differ, in pipeline order: `"normalizer"` when the words, joined, differ;
# otherwise `"pre-tokenizer"` when the same characters are cut elsewhere; then `"model"` when
# `theirs_on_ours` is not `None` and differs from `ours_ids`.
#
# The check uses this notebook's disagreements, four small cases and 250 random ones, against
# `gguftok.disagree.word_stages`.
#
# Write it in [`mytok/conformance.py`](mytok/conformance.py).

# %%
check("09.word_stages")

# %% [markdown]
# ## Recap
#
# - Only exact id equality counts, and only the first difference matters: after it, everything is shifted.
# - `llama-tokenize` adds BOS if the vocabulary asks and parses special tokens; `test-tokenizer-0` does
#   neither.
# - llama.cpp's `.inp`/`.out` files: texts between separators, kept as bytes, one line of ids per text;
#   gguftok passes every case on the 15 vocabularies that have them.
# - A runner must be shown to fail: a tokenizer that normalises to NFD fails exactly the accented cases.
# - Recorded answers (golden fixtures) extend the check to every vocabulary, every flag pair and inputs
#   nobody picked by hand, and replay without llama.cpp.
# - Two engines part at a stage; handing one side's output to the other side's next stage proves which.

# %% [markdown]
# ## Self-check
#
# 1. Your tokenizer's ids for a Llama 3 prompt are the same ids as `llama-tokenize`'s, but one fewer, and the
#    first difference is at index 0. What is the likeliest cause?
#
# <details><summary>Answer</summary>A missing BOS: Llama 3's vocabulary asks for it and <code>llama-tokenize</code> adds
# it, so every id of yours sits one position early and the first difference is at index 0.</details>
#
# 2. Why are llama.cpp's test cases encoded with `add_special=False, parse_special=False`?
#
# <details><summary>Answer</summary>So that only the text is tested: no BOS or EOS is added, and no text in a
# case is read as a control token. <code>test-tokenizer-0</code> encodes so.</details>
#
# 3. Your runner reports every case of every file as passed. What do you run to trust it?
#
# <details><summary>Answer</summary>A tokenizer that must fail, such as one that normalises to NFD first: the
# runner has to report the accented cases, and only those.</details>
#
# 4. transformers' model, handed llama.cpp's words, gives llama.cpp's ids, yet the engines' ids differ.
#    What is ruled out?
#
# <details><summary>Answer</summary>The model. The words differ (other characters: the normalizer; other
# cuts: the pre-tokenizer), or what is added around the ids.</details>
#
# 5. After `<s>`, llama.cpp encodes `Hello` as `▁Hello`, transformers as `Hello`; alone, both agree. Which
#    stage is it?
#
# <details><summary>Answer</summary>special-context: only the text beside the special token is treated
# otherwise.</details>

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# ## Going deeper
#
# How llama.cpp's answers were recorded, the fuzzer, a second spot check, two GGUF files that disagree, the
# history behind `tokenizer.ggml.pre`, and how dense each vocabulary is.

# %% [markdown]
# ### The oracle
#
# The project can run llama.cpp itself as an **oracle**: `gguftok.conformance.oracle` loads the pinned
# llama.cpp (through llama-cpp-python 0.3.36, the same source the vocabularies come from) in a separate
# worker process, so that a crash of llama.cpp on a hostile input is recorded as a crash instead of ending
# the whole run. `python -m gguftok.conformance.golden` asked that oracle once about the generated inputs and
# stored its answers in the repository, one compressed file per vocabulary; the same files hold the
# BOS/EOS facts notebook 07 compares with.
#
# ### Three layers of checking
#
# How gguftok keeps matching llama.cpp, from cheapest to strongest:
#
# - **llama.cpp's cases**: 15 vocabularies, a few hundred texts, read and run as llama.cpp runs them.
# - **Golden fixtures**: the oracle's recorded answers for all 19 vocabularies, every pre-tokenizer name and
#   every tokenizer type, under all flag combinations. They need no llama.cpp, so anyone can replay them,
#   this notebook included.
# - **The differential fuzzer**: fresh random inputs through gguftok and the live oracle, every answer
#   compared. A disagreement is shrunk to a small input that still disagrees and printed with both id lists
#   and their pieces, the same kind of view as `compare_ids` above. Any such input becomes a new fixed case.
#
# ```sh
# python -m gguftok.conformance.fuzz --vocab qwen2 -n 20000
# ```
#
# The fuzzer and the fixture generator need the oracle (`make oracle` builds it); this notebook does not.
#
# ### A spot check on Llama 3
#
# The same encode cases of the Llama 3 fixture:

# %%
spot_check(llama3, by_name["llama-bpe"], [0, 3, 17, 250, 999])

# %% [markdown]
# `compare_ids` compares any two id lists, for instance two ports against each other:

# %%
compare_ids(qwen2, student, qwen2.encode(TEXTS[2], add_special=False, parse_special=True),
            labels=("student", "gguftok / llama.cpp"))

# %% [markdown]
# ### Two GGUF files of one model
#
# `explain` also takes a second gguftok tokenizer: two files of one model that differ in a key. It then names
# the stage and the key. A copy of Llama 3's file whose `tokenizer.ggml.pre` says `gpt-2`:

# %%
import tempfile  # noqa: E402

from gguftok.writer import write_metadata  # noqa: E402

with tempfile.TemporaryDirectory() as tmp:
    relabelled = {pre: Tokenizer.from_gguf(write_metadata(f"{tmp}/{pre}.gguf", llama3.vocab.md,
                                                          {"tokenizer.ggml.pre": pre}))
                  for pre in ("gpt-2", "default")}
d = explain(llama3, "3333+777", relabelled["gpt-2"], add_special=False)
print(d)
print([llama3.token_to_piece(i).decode() for i in d.ours], [llama3.token_to_piece(i).decode() for i in d.theirs])

# %% [markdown]
# ### The history of `tokenizer.ggml.pre`
#
# The key exists because of such copies. Before llama.cpp knew Llama 3's own splitting rule, it split every
# byte-level vocabulary with GPT-2's: a run of digits stayed one word, and the merges cut `3333` into `33`
# `33`, tokens Llama 3 never saw together in training (its rule cuts digits in groups of up to three). Asked
# what `3333+777` makes, the model answered wrong. The fix was to name the rule in the file.
#
# Command R writes every digit as its own token: its vocabulary has no token of two digits, so a wrong rule
# leaves its digits alone, but it moves its spaces. And a file whose converter did not know the model (some
# of Ollama's, for one) says `pre = default`: llama.cpp then splits with its default rule, whatever the model
# was trained with.

# %%
command_r = Tokenizer.from_gguf(VOCAB / "ggml-vocab-command-r.gguf")
print("tokens of two or more digits in Command R:", sum(t.strip("Ġ").isdigit() and len(t.strip("Ġ")) > 1
                                                        for t in command_r.vocab.texts))
print([command_r.token_to_piece(i).decode() for i in command_r.encode("3333+777", add_special=False)])
for text in ("don't STOP", "Hello\n\n\nworld"):
    d = explain(llama3, text, relabelled["default"], add_special=False)
    ours, theirs = ([llama3.token_to_piece(i).decode() for i in ids] for ids in (d.ours, d.theirs))
    print(f"{text!r}: {d.stage}, keys {d.keys}\n    {ours} {theirs}")

# %% [markdown]
# ### How dense is each vocabulary?
#
# The three texts on every vocabulary, counted without BOS: tokens per character (lower means each token
# carries more text). The mixed-script text separates them most: GPT-2, with a small English-centred
# vocabulary, needs more than one token per character there, while Gemma 4 (262,144 tokens) and Command-R
# (256,000) need half a token per character.

# %%
all_toks = {p.name.removeprefix("ggml-vocab-").removesuffix(".gguf"): Tokenizer.from_gguf(p)
            for p in sorted(VOCAB.glob("ggml-vocab-*.gguf"))}
density = tokens_per_character(all_toks, TEXTS)
LABELS = ["English + number", "code", "mixed scripts"]
density_table(density, LABELS, {name: tok.n_vocab for name, tok in all_toks.items()},
              keep=["gpt-2", "llama-bpe", "qwen2", "llama-spm", "command-r", "gemma-4"])

# %% tags=["nbval-ignore-output"]
from gguftok.viz.conformance_view import tokens_per_character_figure  # noqa: E402

tokens_per_character_figure(density, LABELS);
