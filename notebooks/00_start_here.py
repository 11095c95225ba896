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
# # Start here: the tokenizer inside a GGUF file
#
# A language model never sees text. It sees a list of integers, the **token ids**, and the program that turns
# text into ids and back is the **tokenizer**. A GGUF model file carries its tokenizer with it, as metadata
# under the keys `tokenizer.ggml.*`. This workbook builds that tokenizer in Python, one step per notebook,
# and checks every step against llama.cpp, whose token ids are the ones the model was run with.
#
# | notebook | what you will see |
# |---|---|
# | 01 | the `tokenizer.ggml.*` keys of a real GGUF file, read byte by byte |
# | 02 | why a byte-level vocabulary writes a space as `Ġ` |
# | 03 | merges, and why their order is the whole algorithm |
# | 04 | pre-tokenizers: how text is cut into words before any merge |
# | 05 | encoding one word, merge by merge |
# | 06 | special tokens, and why user text should not be parsed for them |
# | 07 | BOS, EOS and the tokens that end generation |
# | 08 | from ids back to text, one token at a time |
# | 09 | checking our ids against llama.cpp's own test cases |
# | 10 | making it fast |
# | 11 | SentencePiece vocabularies |
# | 12 | the whole tokenizer in one class |
#
# The notebooks arrive one lesson at a time; this one checks that the set-up worked.

# %% [markdown]
# ## The reference vocabularies
#
# `make lab` fetched the 19 vocabularies that llama.cpp tests itself with, from the pinned llama-cpp-python
# 0.3.36 source distribution, and checked each file's SHA-256. The table reads only each file's metadata
# with `gguftok.read_metadata`. `model` names the algorithm (`gpt2` is byte-level BPE, `llama`
# SentencePiece, `bert` WordPiece, `t5` Unigram, `gemma4` a BPE of its own), `pre` names the pre-tokenizer,
# and a `-` means the key is absent from the file.

# %%
from gguftok.catalog import catalog, format_catalog

print(format_catalog(catalog()))

# %% [markdown]
# If the table above has 19 rows, everything is in place. If it is empty, run `make vocab` in a terminal at
# the top of the repository and run this notebook again.
