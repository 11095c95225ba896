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

# %% [markdown]
# ## Exercises
#
# Write each function in the code cell under its statement, run that cell, then run the check below it.
# The check calls your function on this lesson's examples and on many generated inputs (seeded, so the
# same every time), compares each answer with gguftok's own, and shows the first input where they
# differ: the input, the expected answer, yours, and for a list the first index that differs. Until you
# write the body it says *not attempted*. `gguftok.exercises.show("NN.name")` prints a task again.
# The solutions are in `solutions/lesson01.py` at the top of the repository.

# %%
from gguftok.exercises import check  # noqa: E402


# %% [markdown]
# ### Exercise 01.read_string: read one GGUF string
#
# Every key and every string value of a GGUF file is stored the same way: a little-endian unsigned 64-bit
# byte count, then that many bytes of UTF-8. Write `read_string(data, offset)` that reads the string
# starting at `offset` of the bytes `data` and returns it with the offset just after it.
#
# - Decode with `errors="surrogateescape"`: a token may be part of a character, and its exact bytes
#   must survive (`s.encode("utf-8", "surrogateescape")` gives them back).
# - If `data` ends before the 8-byte count or before the string's last byte, raise `ValueError`.
#
# `struct.unpack_from("<Q", data, offset)` reads the count. The check compares your answers with
# gguftok's reader (`gguftok.metadata`) on the keys of `tiny-9.gguf` and of five real vocabularies, and on
# random strings, some cut short.

# %%
def read_string(data: bytes, offset: int) -> tuple[str, int]:
    """The GGUF string at ``offset`` (u64 length + UTF-8 bytes) and the offset after it.

    >>> read_string(b"\\x02\\x00\\x00\\x00\\x00\\x00\\x00\\x00hi!", 0)
    ('hi', 10)
    """
    raise NotImplementedError


# %%
check("01.read_string", read_string)


# %% [markdown]
# ### Exercise 01.read_header: read the 24-byte header
#
# A GGUF file starts with 24 bytes: the magic `b"GGUF"`, the format version (unsigned 32-bit), the number
# of tensors and the number of key/value pairs (both unsigned 64-bit), all little-endian. Write
# `read_header(data)` that returns `(version, tensor_count, kv_count)`, and raises `ValueError` when the
# magic is not `b"GGUF"` or `data` is shorter than 24 bytes.
#
# The check runs it on `tiny-9.gguf`, the other synthetic vocabularies, files written with random keys
# (versions 2 and 3, large tensor counts) and three real vocabularies, against `gguftok.read_metadata`.

# %%
def read_header(data: bytes) -> tuple[int, int, int]:
    """``(version, tensor_count, kv_count)`` from the first 24 bytes of a GGUF file.

    >>> read_header(open("../data/synthetic/tiny-9.gguf", "rb").read())
    (3, 0, 7)
    """
    raise NotImplementedError


# %%
check("01.read_header", read_header)
