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
# under the keys `tokenizer.ggml.*`. In this workbook you build that tokenizer yourself, in Python, one stage
# per notebook, and check every stage against llama.cpp, whose token ids are the ones the model was run with.
#
# After this notebook you can:
#
# - see your own text cut into tokens by several real vocabularies, side by side;
# - say what you need to know before you start, and what you will build in each notebook;
# - say where each exercise is written (your own package `mytok/`) and what its check tells you;
# - check that this machine has everything the workbook needs.

# %% [markdown]
# ## Is everything in place?
#
# `environment_check()` looks for what the workbook needs: Python, the packages, the 19 reference
# vocabularies and the widgets' front end in JupyterLab. Each line says ✓ or ✗, and for anything missing,
# the command that fixes it (*Going deeper* says what each line is for). The table shows this machine's
# versions; the line under it is what matters.

# %% tags=["nbval-ignore-output"]
from gguftok.doctor import environment_check

report = environment_check()
report

# %%
print(report.summary())

# %% [markdown]
# ## Your own text, side by side
#
# Before any theory, see what a tokenizer does. Type a text in the box: each ticked vocabulary shows the
# tokens it cuts the text into (hover over one for its id and bytes), how many, and how many per character.
# Tick others: all 19 reference vocabularies are there.

# %%
from gguftok import Tokenizer  # noqa: E402
from gguftok.data import vocab_dir  # noqa: E402
from gguftok.viz.compare_view import DEFAULT_VOCABS, side_by_side, side_by_side_widget  # noqa: E402

# %% tags=["nbval-ignore-output"]
side_by_side_widget()

# %% [markdown]
# The same view for one fixed text, which shows even where no kernel runs the widget:

# %%
toks = {name: Tokenizer.from_gguf(vocab_dir() / f"ggml-vocab-{name}.gguf") for name in DEFAULT_VOCABS}
side_by_side(toks, "Tokenizers don't see words: they see pieces. 日本語 too 😀")

# %% [markdown]
# Already a few things to wonder about: why the same text costs a different number of tokens in each
# vocabulary, why some tokens start with a space (`␣`), why one vocabulary spells the emoji as four separate
# bytes, why BERT's tokens are in lower case, why even its first word starts with `␣` (it marks the start of a
# word, not a space of the text), and why its emoji is `[UNK]`. Each notebook answers one such question.
#
# ## What you need
#
# - **Python**: functions, loops, lists and dicts, the difference between `str` and `bytes`, a small class;
#   reading a traceback. A notebook shows each tool the first time it needs it: `struct` and `heapq` from the
#   standard library, and `regex`, a third-party package that knows Unicode's character classes.
# - **No machine learning.** Nothing here trains or runs a model; the one thing you train, in notebook 03, is
#   a tokenizer's merge list, with a loop of a few lines.
# - **No C++.** llama.cpp is the reference every answer is compared with; where its source matters, the
#   notebook quotes the line and says what it does.
#
# ## The route
#
# Read the notebooks in order: each uses what the ones before it built. In each you write one module of your
# own tokenizer, `mytok/`; each takes about half an hour, exercises included.
#
# | notebook | what it explains | what you write in `mytok/` |
# |---|---|---|
# | 01 | the `tokenizer.ggml.*` keys of a GGUF file, byte by byte | `metadata.py`: a GGUF key/value reader |
# | 02 | why a byte-level vocabulary writes a space as `Ġ` | `bytemap.py`: GPT-2's byte-to-character table |
# | 03 | merges and their ranks; where a merge list comes from | `merges.py`: the rank table, a BPE trainer |
# | 04 | pre-tokenizers: the regexes that cut text into words | `pretokenize.py`: llama.cpp's regex split |
# | 05 | one word through the merge queue, pop by pop | `merge_queue.py`: the merge loop, with a heap |
# | 06 | special tokens, and why user text must not be parsed for them | `special.py`: cutting text on them |
# | 07 | BOS, EOS and the end of generation | `bos_eos.py`: which ids to add, and when to stop |
# | 08 | from ids back to text, streamed without broken characters | `detokenize.py`: a streaming decoder |
# | 09 | matching llama.cpp token for token | `conformance.py`: a runner for llama.cpp's test files |
# | 10 | the word cache | `cache.py`: an LRU cache of words |
# | 11 | SentencePiece, WordPiece and Unigram | `sentencepiece.py`, `wordpiece.py`, `unigram.py`: score-ordered merges, longest match, the best-scoring split |
# | 12 | the whole tokenizer in one object, graded | `tokenizer.py`: your `GgufTokenizer`, assembled |
#
# Notebook 12 puts your stages together into one `GgufTokenizer` and grades it against llama.cpp's own test
# files; a stage you have not written yet is taken from the reference solution, and the grade says so.
#
# ## How the exercises work
#
# Every function of `mytok/` starts as a template: its signature, a docstring with a small example, and
# `raise NotImplementedError`. You open the file in JupyterLab's editor (click the link in the notebook, or
# double-click the file in the file browser), write the body, save, and run the notebook's check cell, which
# reads your file again each time (no kernel restart); no notebook ever writes to your files. Each notebook's
# **Exercises** section states its functions in full. A check calls your function on the notebook's examples
# and on many generated inputs, seeded so that they are the same every time. It says *not attempted* until
# you write the body, *passed* with the number of cases when every answer agrees with the reference, and
# otherwise shows the first input where yours differs: the input, the expected answer, yours (for a list,
# the first index that differs; or the exception your code raised, with its line), and a call that runs that
# input again. A long input is cut in the report's lines and folded whole under them, and
# `compare("03.split_merge", 2)` returns case 2's input and both answers, whole. A check that runs past two
# seconds shows how far it is. The stages and their functions:

# %%
from gguftok.exercises import lesson_exercises  # noqa: E402

for lesson in range(1, 13):
    by_module = {}
    for ex in lesson_exercises(lesson):
        by_module.setdefault(ex.module, []).append(ex.name)
    print(f"{lesson:02d}  " + "; ".join(f"mytok/{m}.py: {', '.join(names)}" for m, names in by_module.items()))

# %% [markdown]
# The reference solutions are in `solutions/mytok/` at the top of the repository: try first.
#
# ## How to open the workbook
#
# In a terminal at the top of the repository, `make lab` sets everything up (a virtual environment in
# `.venv/`, the packages, the vocabularies) and opens JupyterLab on this folder; a second run installs
# nothing. If the check above says a vocabulary is missing, `make vocab` fetches them again. Then open
# `01_gguf_metadata.ipynb`.

# %% [markdown]
# ## Recap
#
# - A tokenizer turns text into token ids and back; a GGUF file keeps it under `tokenizer.ggml.*`.
# - The same text costs a different number of tokens in each vocabulary.
# - You need Python, not machine learning or C++.
# - Twelve notebooks, one stage each, in your own package `mytok/`, checked against llama.cpp's answers.
# - `make lab` opens the workbook; the environment check says what is missing and how to fix it.

# %% [markdown]
# ## Self-check
#
# 1. Where in a GGUF file is the tokenizer, and what does the model see of your text?
#    <details><summary>Answer</summary>In the metadata, under the keys <code>tokenizer.ggml.*</code>; the
#    model sees only the token ids the tokenizer makes of the text.</details>
# 2. You have written half of `mytok/merges.py`. What does a check cell tell you, and do you need to restart
#    the kernel after each edit?
#    <details><summary>Answer</summary><i>not attempted</i> for a function that still raises
#    <code>NotImplementedError</code>, <i>passed</i> or the first input where yours differs for the others.
#    No restart: the check reads your file again each time.</details>
# 3. Why compare with llama.cpp rather than with any tokenizer that looks right?
#    <details><summary>Answer</summary>The model was run with llama.cpp's ids: a tokenizer that cuts the same
#    text differently feeds the model ids it was not run with, even when the decoded text looks the same.
#    </details>

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# ## Going deeper

# %% [markdown]
# ### What the environment check looks at
#
# `gguftok.doctor.environment_check()` checks Python 3.10 or newer; the packages that `make lab` installs
# (`jupyterlab`, `ipywidgets`, `regex`, `gguf`, `matplotlib`, `numpy` and two more); the 19 reference
# vocabularies, each file against the SHA-256 recorded for it; and the JupyterLab front end of the widgets
# (`jupyterlab_widgets`: without it every interactive view shows up as a line of text). Two extras are
# optional and marked `-` when absent: the live llama.cpp oracle (`make oracle`, only for comparing with a
# running llama.cpp) and `voila` (for the instructor mode below). The same check runs in a terminal as
# `gguftok doctor`.
#
# ### The reference vocabularies
#
# `make lab` fetched the 19 vocabularies that llama.cpp tests itself with, from the pinned source distribution
# of llama-cpp-python 0.3.36, and checked each file's SHA-256. Notebook 01 reads them and lists them.
#
# ### Instructor mode
#
# `instructor.ipynb` shows the step-through views (merge queue, pre-tokenizer, special tokens, streaming)
# alone, in large type, with no code. `make present` (or `voila notebooks/instructor.ipynb`) serves it as a
# page for a projector.
