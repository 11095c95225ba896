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
# # Start here: the tokenizer inside a GGUF file
#
# A language model never sees text. It sees a list of integers, the **token ids**, and the program that turns
# text into ids and back is the **tokenizer**. A GGUF model file carries its tokenizer with it, as metadata
# under the keys `tokenizer.ggml.*`. This workbook builds that tokenizer in Python, one step per notebook,
# and checks every step against llama.cpp, whose token ids are the ones the model was run with.
#
# This page checks your set-up, then lays out the route through the twelve lessons.

# %% [markdown]
# ## Is everything in place?
#
# `gguftok.doctor.environment_check()` looks for what the workbook needs: Python 3.10 or newer, the packages
# (`jupyterlab`, `ipywidgets`, `regex`, `gguf`, `matplotlib`, `numpy`, `jupytext`, `nbval`), the 19
# reference vocabularies with their SHA-256 checksums, and the JupyterLab front end of the widgets
# (`jupyterlab_widgets`: without it every interactive view shows up as a line of text). Each line says ✓ or ✗,
# and for anything missing the command that fixes it. Two extras are optional and marked `-` when absent:
# the live llama.cpp oracle (`make oracle`, only for fuzzing against llama.cpp) and `voila` (for the
# instructor mode below). The same check runs in a terminal as `gguftok doctor`.

# %% tags=["nbval-ignore-output"]
from gguftok.doctor import environment_check

report = environment_check()
report

# %% [markdown]
# The table above shows this machine's versions. The line below is all that matters:

# %%
print(report.summary())

# %% [markdown]
# ## The route
#
# Each lesson takes one step of the pipeline, shows it on the real vocabularies, and names the `gguftok`
# module that implements it. Read them in order: each one uses what the ones before it built.
#
# | notebook | what it shows | the code it explains |
# |---|---|---|
# | 01 | the `tokenizer.ggml.*` keys of a GGUF file, read byte by byte; the 19 reference vocabularies | `gguftok.metadata` (`read_metadata`) |
# | 02 | why a byte-level vocabulary writes a space as `Ġ`: GPT-2's byte-to-character map | `gguftok.bytemap` |
# | 03 | merges and their ranks; how llama.cpp reads a merge line | `gguftok.models.bpe` (`merge_ranks`, `split_merge`) |
# | 04 | pre-tokenizers: the regexes that cut text into words before any merge | `gguftok.pretokenize` |
# | 05 | one word through the merge queue, pop by pop, stale entries included | `gguftok.models.bpe` (`merge_word`) |
# | 06 | special tokens, cut out longest first; why user text must not be parsed for them | `gguftok.special`, `gguftok.vocab` |
# | 07 | BOS, EOS and the end-of-generation set, rule by rule | `gguftok.vocab` |
# | 08 | from ids back to text, and streaming it without broken characters | `gguftok.detokenize`, `gguftok.stream` |
# | 09 | matching llama.cpp token for token: its test cases, recorded answers, the first difference | `gguftok.conformance` |
# | 10 | the word cache, counted | `gguftok.models.bpe` (`BPEModel.word_ids`) |
# | 11 | SentencePiece, WordPiece, Unigram and the other families | `gguftok.models.spm` and the other models |
# | 12 | the whole tokenizer in one object, end to end | `gguftok.tokenizer` (`Tokenizer`) |
#
# **You build the tokenizer.** Beside these notebooks is `mytok/`, a package of your own with one module per
# stage. Each notebook explains a stage, then you write it in that module: the GGUF reader in
# `mytok/metadata.py` (01), the byte map in `mytok/bytemap.py` (02), and so on to `mytok/tokenizer.py` (12),
# where your stages become one `GgufTokenizer` that notebook 12 grades against llama.cpp's own test files.
# Every function starts as a template (its signature, a docstring with a small example, and
# `raise NotImplementedError`); you edit the file in JupyterLab's editor, save, and run the notebook's check
# cell, which reads your file again each time. The stages and what you write in each:

# %%
from gguftok.exercises import lesson_exercises  # noqa: E402

for lesson in range(1, 13):
    exs = lesson_exercises(lesson)
    print(f"{lesson:02d}  mytok/{exs[0].module}.py: " + ", ".join(ex.name for ex in exs))

# %% [markdown]
# A check says *not attempted* until you write the function's body, *passed* with the number of cases when
# every answer agrees, and otherwise shows the input, the expected answer, yours, for a list the first index
# that differs (or the exception your code raised, with its line), and a call that runs that input again. The
# reference solutions are in `solutions/mytok/` at the top of the repository; try first.

# %% [markdown]
# ## How to run the workbook
#
# - `make lab` (in a terminal at the top of the repository) sets everything up (a virtual environment in
#   `.venv/`, the packages, the vocabularies) and opens JupyterLab on this folder. A second run installs
#   nothing.
# - `make test` runs the linter and the whole test suite, notebooks included: `nbval` re-executes every
#   notebook and compares each output with the one saved in it. Cells whose output changes from run to run
#   (widgets, figures, this page's table of versions) are tagged `nbval-ignore-output`, and each has a static
#   twin whose output is compared instead.
# - Each notebook has a twin `NN_*.py` (jupytext, `py:percent`): that is the file to edit and review.
#   `python scripts/run_notebooks.py notebooks/NN_x.py` executes it and writes the `.ipynb` without
#   timestamps, so that a re-run changes a notebook only where its outputs change.
# - **Instructor mode**: `instructor.ipynb` shows the step-through views (merge queue, pre-tokenizer,
#   special tokens, streaming) alone, in large type, with no code. `pip install voila`, then `make present`
#   (or `voila notebooks/instructor.ipynb`) serves it as a page for a projector.

# %% [markdown]
# ## The reference vocabularies
#
# `make lab` fetched the 19 vocabularies that llama.cpp tests itself with, from the pinned llama-cpp-python
# 0.3.36 source distribution, and checked each file's SHA-256. The table reads only each file's metadata
# with `gguftok.read_metadata`. `model` names the algorithm (`gpt2` is byte-level BPE, `llama`
# SentencePiece, `bert` WordPiece, `t5` Unigram, `gemma4` a BPE of its own), `pre` names the pre-tokenizer,
# and a `-` means the key is absent from the file.

# %%
from gguftok.catalog import catalog, format_catalog  # noqa: E402

print(format_catalog(catalog()))

# %% [markdown]
# If the table above has 19 rows, the vocabularies are in place. If it is empty, run `make vocab` in a
# terminal at the top of the repository and run this notebook again. Then open `01_gguf_metadata.ipynb`.
