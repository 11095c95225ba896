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
# # 01 · The tokenizer inside a GGUF file
#
# A GGUF file is three things in a row: a 24-byte header, a list of typed key/value pairs, and the tensors.
# A model's tokenizer needs no tensor at all: it lives entirely in the key/value list, under the keys that
# start with `tokenizer.ggml.`. So reading a tokenizer means reading that list, and a good reader never
# touches the gigabytes that follow it.
#
# In this notebook you write that reader yourself, from the raw bytes. First the layout, byte by byte, on a
# vocabulary small enough to see whole; then your reader, in your own package; then the 19 real
# vocabularies that llama.cpp tests itself with.

# %%
import struct
import time
from pathlib import Path

from gguftok import Tokenizer, read_metadata
from gguftok.catalog import catalog, format_catalog
from gguftok.data import vocab_dir
from gguftok.exercises import workspace
from gguftok.metadata import ValueType
from gguftok.viz.vocab import format_type_counts, metadata_table, token_types_by_vocabulary, vocab_page

TINY = Path("../data/synthetic/tiny-9.gguf")
tiny_bytes = TINY.read_bytes()

# %% [markdown]
# ## The header
#
# `data/synthetic/tiny-9.gguf` was written with `gguf`'s own writer: nine tokens, three merges, no tensors.
# Its first 24 bytes are the header: the magic `GGUF`, the format version, the number of tensors and the
# number of key/value pairs.

# %%
print(tiny_bytes[:24].hex(" "))

# %% [markdown]
# Every number in a GGUF file is little-endian: the least significant byte comes first, so `03 00 00 00`
# is 3. Python's `struct` module reads such bytes: in a format, `<` means little-endian, `4s` four raw
# bytes, `I` an unsigned 32-bit number (u32) and `Q` an unsigned 64-bit one (u64).
# `struct.unpack_from(format, data, offset)` reads them starting at `offset`:

# %%
magic, version, tensor_count, kv_count = struct.unpack_from("<4sIQQ", tiny_bytes, 0)
print(f"magic {magic!r}, version {version}, {tensor_count} tensors, {kv_count} key/value pairs")

# %% [markdown]
# Versions 2 and 3 share this layout (version 3 added big-endian files, which this workbook leaves aside);
# version 1 used 32-bit counts and lengths, and llama.cpp no longer reads it.
#
# ## One key/value pair
#
# The pairs follow the header one after the other, with nothing between them and no table of where they
# start: to find the second pair, you must read the first. A pair is
#
# - the key, a **string**: its length in bytes (u64), then that many bytes of UTF-8, with no zero at the end;
# - the **type code** of the value (u32);
# - the value, laid out as its type says.
#
# The first pair starts at offset 24. Each line below is one field: its offset, its bytes, what they mean.

# %%
at = 24
(key_length,) = struct.unpack_from("<Q", tiny_bytes, at)
key = tiny_bytes[at + 8:at + 8 + key_length].decode()
(type_code,) = struct.unpack_from("<I", tiny_bytes, at + 8 + key_length)
value_at = at + 8 + key_length + 4
(value_length,) = struct.unpack_from("<Q", tiny_bytes, value_at)
value = tiny_bytes[value_at + 8:value_at + 8 + value_length].decode()
fields = [(at, 8, f"key length {key_length}"), (at + 8, key_length, f"key {key!r}"),
          (value_at - 4, 4, f"type code {type_code} (string)"), (value_at, 8, f"value length {value_length}"),
          (value_at + 8, value_length, f"value {value!r}")]
for start, size, meaning in fields:
    print(f"{start:3d}  {tiny_bytes[start:start + size].hex(' '):<62s}  {meaning}")
print(f"the next pair starts at offset {value_at + 8 + value_length}")

# %% [markdown]
# ## The 13 value types
#
# The type code says how to read the value. Eleven types have a fixed size; a string is its 8-byte length
# and its bytes; an array is a header of 12 bytes and its items:

# %%
FIXED = {ValueType.UINT8: "B", ValueType.INT8: "b", ValueType.UINT16: "H", ValueType.INT16: "h",
         ValueType.UINT32: "I", ValueType.INT32: "i", ValueType.FLOAT32: "f", ValueType.BOOL: "?",
         ValueType.UINT64: "Q", ValueType.INT64: "q", ValueType.FLOAT64: "d"}
print("code  type      bytes             struct format")
for vt in ValueType:
    if vt in FIXED:
        size, fmt = str(struct.calcsize("<" + FIXED[vt])), f'"<{FIXED[vt]}"'
    else:
        size, fmt = ("8 + length", '"<Q", then the bytes') if vt == ValueType.STRING else (
            "12 + the items", '"<IQ", then the items')
    print(f"{vt.value:4d}  {vt.name.lower():8s}  {size:16s}  {fmt}")

# %% [markdown]
# A few things the table does not say:
#
# - **bool** is one byte. llama.cpp reads it as a signed byte and takes any non-zero value as true;
#   `struct`'s `"?"` does the same and gives a Python `bool`.
# - **array** (type 9) starts with the type code of its items (u32) and their number (u64); then come
#   the items, one after the other, with nothing between them. Items of a fixed-size type take `count`
#   times their size; items that are strings each carry their own length, so they must be read one by one.
# - An array's items can themselves be arrays, each with its own item type and count. The format and
#   `gguf`'s writer allow it; llama.cpp refuses such a key when it loads a model, and no tokenizer uses one.
#   A reader of the format still reads them: it is the same reading, one level down.
#
# The vocabulary itself is the array `tokenizer.ggml.tokens`: item type 8 (string), nine items. Here is its
# array header and its first two strings (the offset of the pair comes from gguftok's reader):

# %%
tiny_md = read_metadata(TINY)
at = tiny_md.offsets["tokenizer.ggml.tokens"] + 8 + len("tokenizer.ggml.tokens")
item_type, count = struct.unpack_from("<IQ", tiny_bytes, at + 4)
print(f"{at:3d}  {tiny_bytes[at:at + 4].hex(' '):<26s}  type code 9 (array)")
print(f"{at + 4:3d}  {tiny_bytes[at + 4:at + 8].hex(' '):<26s}  item type {item_type} (string)")
print(f"{at + 8:3d}  {tiny_bytes[at + 8:at + 16].hex(' '):<26s}  {count} items")
at += 16
for _ in range(2):
    (n,) = struct.unpack_from("<Q", tiny_bytes, at)
    print(f"{at:3d}  {tiny_bytes[at:at + 8].hex(' '):<26s}  length {n}, then {tiny_bytes[at + 8:at + 8 + n]!r}")
    at += 8 + n

# %% [markdown]
# Token texts are decoded with `errors="surrogateescape"`. llama.cpp treats a token's text as raw bytes,
# and the format does not require them to be valid UTF-8: a vocabulary may hold, say, the first half of a
# character as a token of its own. With `surrogateescape` each byte that is not part of valid UTF-8 becomes
# a stand-in character (U+DC80..U+DCFF), and `text.encode("utf-8", "surrogateescape")` gives the exact
# bytes back; a plain `decode()` would raise instead.

# %%
half = b"\xf0\x9f"  # the first two of the four bytes of an emoji
text = half.decode("utf-8", "surrogateescape")
print(ascii(text), text.encode("utf-8", "surrogateescape") == half)

# %% [markdown]
# ## Lengths and counts come from the file
#
# Every length and count above was read from the file itself, and a damaged or hostile file can claim any
# number, up to 2**64 - 1. A reader that trusts it either makes room for that many items first (and runs
# out of memory) or loops that many times. The rule that protects it: before reading `count` items, check
# that they can fit in the bytes that are left. Each item takes at least its size (8 bytes for a string,
# its length; 12 for an array, its header), so a count larger than `bytes left // smallest size` is an
# error, found at once. llama.cpp's own reader makes exactly this check (for strings, at least 8 bytes
# each). Here is a small file whose one key claims an array of 2**62 strings:

# %%
key = b"tokenizer.ggml.tokens"
hostile = (b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", len(key)) + key
           + struct.pack("<IIQ", 9, 8, 2**62))
try:
    read_metadata(hostile)
except ValueError as e:
    print(f"{len(hostile)} bytes:", e)

# %% [markdown]
# The same holds for the number of pairs in the header, for a string's length (2**63 bytes in a 1 KB file),
# and for a file cut short anywhere: each read first checks that its bytes are there, and raises
# `ValueError` when they are not.
#
# ## Now write your reader
#
# Open [`mytok/metadata.py`](mytok/metadata.py), your own package's first module, and write its three
# functions, each on top of the one before:
#
# 1. `read_string(data, offset)`: one string and the offset after it;
# 2. `read_value(data, offset, type_code)`: one value of any of the 13 types, arrays as lists;
# 3. `read_metadata(data)`: the header, then every pair, as a `dict` in file order.
#
# Their exact statements and checks are in the **Exercises** section at the end of this notebook. Once
# `read_metadata` is written, the cell below reads Qwen2's vocabulary with it (the sizes it prints first are
# gguftok's) and compares every key with gguftok's reader. It reads your file again each time you run it.

# %%
qwen2_bytes = (vocab_dir() / "ggml-vocab-qwen2.gguf").read_bytes()
theirs = read_metadata(qwen2_bytes)
print(f"ggml-vocab-qwen2.gguf: {len(qwen2_bytes):,} bytes, {len(theirs)} keys, "
      f"{len(theirs['tokenizer.ggml.tokens']):,} tokens, {len(theirs['tokenizer.ggml.merges']):,} merges")
try:
    start = time.perf_counter()
    mine = workspace.load("metadata").read_metadata(qwen2_bytes)
    seconds = time.perf_counter() - start
except NotImplementedError:
    print("Your read_metadata is not written yet: mytok/metadata.py still raises NotImplementedError.")
except Exception as e:
    print(f"Your read_metadata raised {type(e).__name__}: {e}")
else:
    def plain(value):
        return value.tolist() if hasattr(value, "tolist") else value

    same = [k for k in theirs if k in mine and mine[k] == plain(theirs[k])]
    print(f"Your reader: {len(mine)} keys in {seconds:.2f} s; {len(same)} of gguftok's {len(theirs)} agree.")
    for k in [k for k in theirs if k not in same][:5]:
        print(f"  {k}: yours {str(mine.get(k, '(missing)'))[:60]}, gguftok's {str(plain(theirs[k]))[:60]}")

# %% [markdown]
# ## What tiny-9 holds
#
# Here are the tokenizer keys of the small file with their GGUF types. `tokenizer.ggml.model = gpt2` selects
# byte-level BPE, `tokenizer.ggml.pre = qwen2` the Qwen2 pre-tokenizer, and the end-of-sequence id is 0.
# There is no `bos_token_id` and no `add_bos_token` key: llama.cpp then falls back on defaults (notebook 07).

# %%
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
# - The layout, byte by byte: the 24-byte header, then pairs of a length-prefixed key, a type code and a
#   value; the 13 value types, strings as a length and bytes, arrays as an item type, a count and the items.
# - Why every length and count read from a file is checked against the bytes left before it is used.
# - The parallel arrays `tokens` and `token_type`, and the ordered `merges` list.
# - How the 19 reference vocabularies differ: algorithm, pre-tokenizer, size, special ids, BOS rule.

# %% [markdown]
# ## Exercises
#
# Your own tokenizer lives in `mytok/`, a package of yours beside these notebooks, one module per
# stage. This notebook's stage is [`mytok/metadata.py`](mytok/metadata.py):
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
# ### Exercise 01.read_string: read one GGUF string
#
# Every key and every string value of a GGUF file is stored the same way: a little-endian unsigned 64-bit
# byte count, then that many bytes of UTF-8. Write `read_string(data, offset)` that reads the string
# starting at `offset` of the bytes `data` and returns it with the offset just after it.
#
# - Decode with `errors="surrogateescape"`: a token may be part of a character, and its exact bytes
#   must survive (`s.encode("utf-8", "surrogateescape")` gives them back).
# - If `data` ends before the 8-byte count or before the string's last byte, raise `ValueError`: the
#   count comes from the file, and a damaged file can claim any number, up to 2**64 - 1.
#
# `struct.unpack_from("<Q", data, offset)` reads the count. The cases: the keys of `tiny-9.gguf` and of
# five real vocabularies, random strings (some not valid UTF-8, some cut short), and absurd counts.
#
# Write it in [`mytok/metadata.py`](mytok/metadata.py).

# %%
check("01.read_string")

# %% [markdown]
# ### Exercise 01.read_value: read one value of any GGUF type
#
# After its key, each pair stores a type code (unsigned 32-bit) and a value of that type. Write
# `read_value(data, offset, type_code)` that reads the value at `offset` and returns it with the offset
# just after it.
#
# - The fixed-size types, little-endian: 0 uint8, 1 int8, 2 uint16, 3 int16, 4 uint32, 5 int32,
#   6 float32, 7 bool (one byte, any non-zero byte is `True`: return a `bool`), 10 uint64, 11 int64,
#   12 float64. Type 8 is a string (your `read_string`).
# - Type 9 is an array: the item type (u32), the number of items (u64), then the items one after the
#   other. Return them as a Python `list`. The items can be of any type, strings and arrays too (each
#   inner array with its own item type and count).
# - Raise `ValueError` for a type code that does not exist, and for a value the bytes do not hold. An array
#   can claim up to 2**64 - 1 items: compare the count with the bytes left (each item takes at least
#   its size, 8 bytes for a string, 12 for an array) **before** looping or making room for the items.
#
# The cases: values of every type between random bytes, arrays of every item type, nested arrays, values
# cut short, absurd counts, unknown types, and the small values of five real vocabularies. Then the
# check measures what your reader allocates on an array that claims 10,000,000 items in 40 bytes.
#
# Write it in [`mytok/metadata.py`](mytok/metadata.py).

# %%
check("01.read_value")

# %% [markdown]
# ### Exercise 01.read_metadata: read every key/value pair of a GGUF file
#
# Write `read_metadata(data)` that reads the whole key/value section of the bytes of a GGUF file and
# returns a `dict` from key to value, in the order of the file.
#
# 1. The 24-byte header: the magic `b"GGUF"`, the version (u32), the tensor count (u64) and the number
#    of pairs (u64). Raise `ValueError` for another magic, for a version other than 2 or 3 (they share
#    this layout), and for data too short to hold a header.
# 2. Then each pair: the key (a string), the type code (u32), the value (your `read_value`). Raise
#    `ValueError` for an empty key, and for a key that appears twice, as llama.cpp does.
# 3. The number of pairs comes from the file too: a count larger than the pairs there are must end in a
#    `ValueError`, never in a long loop or a huge allocation.
#
# The tensors that follow the pairs are not read. The cases: every file of `data/synthetic` and every
# vocabulary of `data/vocab`, key by key (the first case of a file is its list of keys; an array of
# more than 1,000 items is compared in the check, which shows the first item that differs); random
# files with every type; and damaged copies (cut short anywhere; absurd versions, counts and lengths;
# unknown types). A small file's answer is shown as its list of `(key, value)` pairs. A NaN agrees
# with a NaN. Reading the 19 vocabularies should take a few seconds in all: a file that takes your reader
# more than 2 s + 1 s per MB stops the check (something reads the whole data again at every string).
#
# Write it in [`mytok/metadata.py`](mytok/metadata.py).

# %%
check("01.read_metadata")
