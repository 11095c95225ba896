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
# # 01 · The tokenizer inside a GGUF file
#
# A GGUF file is three things in a row: a 24-byte header, a list of typed key/value pairs, and the tensors.
# A model's tokenizer needs no tensor at all: it lives entirely in the key/value list, under the keys that
# start with `tokenizer.ggml.`. So reading a tokenizer means reading that list, and a good reader never
# touches the gigabytes that follow it. `gguftok.read_metadata` maps the file into memory and decodes only
# the key/value section.
#
# This notebook first reads a vocabulary small enough to see whole, then the 19 real vocabularies that
# llama.cpp tests itself with.

# %%
from pathlib import Path

from gguftok import Tokenizer, read_metadata
from gguftok.catalog import catalog, format_catalog
from gguftok.data import vocab_dir
from gguftok.viz.vocab import format_type_counts, metadata_table, token_types_by_vocabulary, vocab_page

TINY = Path("../data/synthetic/tiny-9.gguf")

# %% [markdown]
# ## A nine-token vocabulary, byte by byte
#
# `data/synthetic/tiny-9.gguf` was written with `gguf`'s own writer (`gguftok.writer.write_tokenizer`): nine
# tokens, three merges. Its first 24 bytes are the header: the magic `GGUF`, the format version (3), the
# number of tensors (0: a tokenizer-only file) and the number of key/value pairs (7), all little-endian.

# %%
print(TINY.read_bytes()[:24].hex(" "))

# %% [markdown]
# Each pair is a length-prefixed key, a type number, and the value. Here are the tokenizer keys with their
# GGUF types. `tokenizer.ggml.model = gpt2` selects byte-level BPE, `tokenizer.ggml.pre = qwen2` the Qwen2
# pre-tokenizer, and the end-of-sequence id is 0. There is no `bos_token_id` and no `add_bos_token` key:
# llama.cpp then falls back on defaults (notebook 07).

# %%
tiny_md = read_metadata(TINY)
metadata_table(tiny_md)

# %% [markdown]
# A vocabulary is parallel arrays: token `i` has the text `tokens[i]` and the type `token_type[i]` (1 normal,
# 3 control, 4 user-defined, ...). The merges say which two texts join, in priority order: `a b` first,
# then `Ġ ab`, then `ab c`. Every merge produces a token of the list, but a token's id is not its merge rank
# (`ab` is id 5 and rank 0). The last column shows the attributes llama.cpp ends up with after its load-time
# rules: here they are just the types.

# %%
tiny = Tokenizer(tiny_md)
vocab_page(tiny)

# %% [markdown]
# ## The 19 real vocabularies
#
# `make lab` fetched them from the pinned llama-cpp-python 0.3.36 source distribution. One line each: the
# algorithm (`gpt2` byte-level BPE, `llama` SentencePiece, `bert` WordPiece, `t5` Unigram, `gemma4` a BPE of
# its own), the pre-tokenizer, the sizes, and the special ids and BOS rule as llama.cpp resolves them when it
# loads the file (a `-` means none). Reading all 19 takes about a second.

# %%
print(format_catalog(catalog()))

# %% [markdown]
# Token types tell the tokenizer what it may produce from plain text and what it must cut out first
# (notebook 06). Most tokens are normal; SentencePiece vocabularies carry 256 byte tokens `<0x00>`..`<0xFF>`;
# byte-level BPE needs none, because every byte already has a character of its own (notebook 02).

# %%
counts = token_types_by_vocabulary()
print(format_type_counts(counts))

# %% tags=["nbval-ignore-output"]
from gguftok.viz.figures import token_type_chart  # noqa: E402

token_type_chart(counts);

# %% [markdown]
# ## Browsing a vocabulary
#
# 151,936 tokens will not fit in a list you can scroll, let alone a drop-down. The browser below filters by
# any part of a token's text (try `Ġtoken`, `<|`, or a Chinese character) and shows one page at a time.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.widgets import vocab_browser  # noqa: E402

qwen2 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf")
vocab_browser(qwen2)

# %% [markdown]
# The same view without the widget (this is what the tests check):

# %%
vocab_page(qwen2, "Ġtokeniz", per_page=10)

# %% [markdown]
# ## What you can now explain
#
# - Where a GGUF file keeps its tokenizer, and why reading it never needs the tensors.
# - The parallel arrays `tokens` and `token_type`, and the ordered `merges` list.
# - How the 19 reference vocabularies differ: algorithm, pre-tokenizer, size, special ids, BOS rule.
