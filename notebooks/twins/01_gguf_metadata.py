# %% [markdown]
# # 01 · The tokenizer inside a GGUF file
#
# A GGUF file is three things in a row: a 24-byte header, a list of typed key/value pairs, and the tensors.
# A model's tokenizer needs no tensor at all: it lives entirely in the key/value list, under the keys that
# start with `tokenizer.ggml.`. So reading a tokenizer means reading that list, and a good reader never
# touches the gigabytes that follow it. Here you take that list apart byte by byte, then write the reader.
#
# After this notebook you can:
#
# - read a GGUF header and its key/value pairs byte by byte with Python's `struct`;
# - say how each of the 13 value types is laid out, strings and arrays included;
# - explain why every length and count read from a file is checked against the bytes left before it is used;
# - write that reader in `mytok/metadata.py` and compare it with gguftok's on a real vocabulary;
# - tell the 19 reference vocabularies apart by algorithm, pre-tokenizer, size and special tokens.

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
# Versions 2 and 3 share this layout, and they are the two you will read.
#
# ## One key/value pair
#
# The pairs follow the header one after the other, with no table of where they start: to find the second
# pair, you must read the first. A pair is
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
# A **bool** is one byte, true when it is not zero. An **array** (type 9) starts with the type code of its
# items (u32) and their number (u64), then the items one after the other: `count` times their size for a
# fixed-size type, while strings each carry their own length and must be read one by one. Items can even be
# arrays, read the same way one level down.
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
# ## Lengths and counts come from the file
#
# Every length and count above was read from the file, and a damaged or hostile file can claim any number,
# up to 2**64 - 1. A reader that trusts it makes room for that many items (and runs out of memory) or loops
# that many times. The rule that protects it: each item takes at least its size (8 bytes for a string, 12
# for an array), so a count larger than `bytes left // smallest size` is an error, found before the loop.
# Here is a small file whose one key claims an array of 2**62 strings:

# %%
key = b"tokenizer.ggml.tokens"
hostile = (b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", len(key)) + key
           + struct.pack("<IIQ", 9, 8, 2**62))
try:
    read_metadata(hostile)
except ValueError as e:
    print(f"{len(hostile)} bytes:", e)

# %% [markdown]
# The same goes for the header's number of pairs, a string's length, and a file cut short anywhere: each read
# first checks that its bytes are there.
#
# ## Now write your reader
#
# Open [`mytok/metadata.py`](mytok/metadata.py), your package's first module, and write its three functions,
# each on top of the one before: `read_string`, `read_value` and `read_metadata` (stated and checked in the
# **Exercises** below). Once `read_metadata` is written, the cell below reads Qwen2's vocabulary with it and
# compares every key with gguftok's reader.

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
# The tokenizer keys of the small file, with their GGUF types. `tokenizer.ggml.model = gpt2` selects
# byte-level BPE, `tokenizer.ggml.pre = qwen2` the Qwen2 pre-tokenizer; the end-of-sequence id is 0, and with
# no `bos_token_id` key llama.cpp falls back on defaults (notebook 07).

# %%
metadata_table(tiny_md)

# %% [markdown]
# A vocabulary is parallel arrays: token `i` has the text `tokens[i]` and the type `token_type[i]` (1 normal,
# 3 control, 4 user-defined, ...). The merges say which two texts join, in priority order: `a b` first,
# then `Ġ ab`, then `ab c`. A token's id is not its merge rank (`ab` is id 5 and rank 0). The last column is
# the attributes llama.cpp derives when it loads the file: here just the types.

# %%
tiny = Tokenizer(tiny_md)
vocab_page(tiny)

# %% [markdown]
# ## The 19 real vocabularies
#
# llama.cpp tests itself with these, and `make lab` fetched them. One line each: the algorithm (`gpt2`
# byte-level BPE, `llama` SentencePiece, `bert` WordPiece, `t5` Unigram, `gemma4` a BPE of its own), the
# pre-tokenizer, the sizes, and the special ids and BOS rule as llama.cpp resolves them at load (`-`: none).

# %%
print(format_catalog(catalog()))

# %% [markdown]
# Token types say what plain text may produce and what must be cut out first (notebook 06). Most tokens are
# normal; SentencePiece vocabularies carry 256 byte tokens `<0x00>`..`<0xFF>`; byte-level BPE needs none,
# because every byte already has a character of its own (notebook 02).

# %%
counts = token_types_by_vocabulary()
print(format_type_counts(counts))

# %% tags=["nbval-ignore-output"]
from gguftok.viz.figures import token_type_chart  # noqa: E402

token_type_chart(counts);

# %% [markdown]
# ## What the same sentence costs
#
# One sentence in ten languages, through five of these vocabularies (no BOS or EOS): its tokens, tokens per
# character, and how many times the English count that is, in the same vocabulary.

# %%
from gguftok.viz.languages_view import SAMPLES, cost_figure, cost_numbers, cost_table  # noqa: E402

five = {name: Tokenizer.from_gguf(vocab_dir() / f"ggml-vocab-{name}.gguf")
        for name in ("gpt-2", "llama-spm", "llama-bpe", "qwen2", "gemma-4")}
cost_table(five)

# %% [markdown]
# A model reads and writes at most a fixed number of tokens, its *context*, and a service charges per token:
# a language that costs more tokens fits fewer words into a context, and costs more. How many times the
# sentence fits into a context of 8,192 tokens:

# %%
CONTEXT = 8192
tokens = cost_numbers(five)
print(f"copies in {CONTEXT:,} tokens".ljust(22) + "".join(f"{lang:>9s}" for lang in SAMPLES))
for name, row in tokens.items():
    print(f"{name:22s}" + "".join(f"{CONTEXT // row[lang]:9d}" for lang in SAMPLES))

# %% [markdown]
# GPT-2's vocabulary, trained mostly on English, fits the English sentence 481 times but the Hindi one only
# 99 times: it learned few merges of Devanagari. Gemma 4's, with 262,144 tokens from many languages, spends no
# more on any of them than on English.

# %% tags=["nbval-ignore-output"]
cost_figure(five, SAMPLES);

# %% [markdown]
# ## Browsing a vocabulary
#
# Qwen2's 151,936 tokens will not fit in a list you can scroll. The browser below filters by any part of a
# token's text (try `Ġtoken`, `<|`, or a Chinese character) and shows one page at a time.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.widgets import vocab_browser  # noqa: E402

qwen2 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf")
vocab_browser(qwen2)

# %% [markdown]
# The same view for one fixed filter, which shows even where no kernel runs the browser:

# %%
vocab_page(qwen2, "Ġtokeniz", per_page=10)

# %% [markdown]
# ## Exercises
#
# This notebook's stage is [`mytok/metadata.py`](mytok/metadata.py): write the body of each function named below there, save, and
# run its check (notebook 00, *How the exercises work*, says what a check does).

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
# five real vocabularies, random strings (some not valid UTF-8, some cut short), absurd counts.
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
# The cases: every type between random bytes, arrays of every item type, nested arrays, values cut
# short, absurd counts, unknown types, the small values of five real vocabularies; then what your reader
# allocates for an array that claims ten million items in 40 bytes.
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
# The tensors that follow the pairs are not read. The cases: every file of `data/synthetic`, and the
# smallest file of each tokenizer model in `data/vocab`, key by key (a long array shows its first item
# that differs); random files with every type; damaged copies (cut short, absurd versions, counts and
# lengths, unknown types). A NaN agrees with a NaN. A file that takes your reader more than 2 s + 1 s
# per MB stops the check: something reads the whole data again at every string.
#
# Write it in [`mytok/metadata.py`](mytok/metadata.py).

# %%
check("01.read_metadata")

# %% [markdown]
# ## Recap
#
# - A GGUF file's tokenizer is in its key/value pairs, under `tokenizer.ggml.*`, before any tensor.
# - A 24-byte header (magic, version, tensor count, pair count), then pairs of a length-prefixed key, a u32
#   type code and a value; every number little-endian.
# - Of the 13 value types, eleven have a fixed size; a string is a u64 length and its bytes; an array is an
#   item type, a count and the items, which may be strings or arrays themselves.
# - Every length and count comes from the file, so each is checked against the bytes left before it is used.
# - A vocabulary is the parallel arrays `tokens` and `token_type`, plus the ordered `merges`.

# %% [markdown]
# ## Self-check
#
# 1. Why can a reader not jump straight to the tenth key/value pair?
#    <details><summary>Answer</summary>Nothing says where a pair starts, and each pair's size depends on its
#    key and its value: the only way to the tenth is through the nine before it.</details>
# 2. A 69-byte file claims an array of 2**62 strings. What should a reader do, and when?
#    <details><summary>Answer</summary>Raise at once, before any loop or allocation: each string takes at
#    least 8 bytes, so the bytes left hold at most a handful.</details>
# 3. Why decode token texts with `errors="surrogateescape"` instead of plain UTF-8?
#    <details><summary>Answer</summary>A token can be part of a character, which is not valid UTF-8: a plain
#    decode raises, <code>surrogateescape</code> keeps the bytes and gives them back exactly.</details>
# 4. In tiny-9, `ab` is token 5 and merge rank 0. What is each number the position of?
#    <details><summary>Answer</summary>The id is its position in <code>tokenizer.ggml.tokens</code>, the rank
#    that of <code>a b</code> in <code>tokenizer.ggml.merges</code>.</details>
# 5. Qwen2's `tokenizer.ggml.model` is `gpt2`. Is Qwen2 a GPT-2 model?
#    <details><summary>Answer</summary>No: <code>gpt2</code> names the algorithm, byte-level BPE, which many
#    models share; <code>tokenizer.ggml.pre</code> and <code>general.architecture</code> say which.</details>

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# ## Going deeper

# %% [markdown]
# ### Token texts that are not UTF-8
#
# llama.cpp treats a token's text as raw bytes, and a vocabulary may hold, say, the first half of a character
# as a token of its own, which is not valid UTF-8. Decoded with `errors="surrogateescape"`, each such byte
# becomes a stand-in character (U+DC80..U+DCFF), and `text.encode("utf-8", "surrogateescape")` gives the exact
# bytes back; a plain `decode()` would raise:

# %%
half = b"\xf0\x9f"  # the first two of the four bytes of an emoji
text = half.decode("utf-8", "surrogateescape")
print(ascii(text), text.encode("utf-8", "surrogateescape") == half)

# %% [markdown]
# ### Versions and byte order
#
# Version 1 of the format used 32-bit counts and lengths, and llama.cpp no longer reads it. Versions 2 and 3
# share the layout above; version 3 added big-endian files, for big-endian machines. Nothing in such a file
# says "big-endian": its version field, read little-endian, is a number whose low 16 bits are zero
# (`00 00 00 03` reads as `0x03000000`), and that is how gguftok's reader recognizes one and switches to
# `">"` formats. Your reader only needs versions 2 and 3 in little-endian, which is every file you will meet.
#
# ### Arrays of arrays
#
# An array's items can themselves be arrays, each with its own item type and count. The format and `gguf`'s
# writer allow it, and a reader of the format reads them; llama.cpp refuses such a key when it loads a
# model, and no tokenizer uses one. gguftok's reader stops at a nesting depth of 16, so a file cannot make
# it recurse without end.
#
# ### How llama.cpp guards its reads
#
# llama.cpp's own GGUF reader (`ggml/src/gguf.cpp`) makes the check of this notebook: before it reads the
# items of an array it compares their number with the bytes left, counting at least 8 bytes for each string.
# gguftok does the same for every count, and for the header's number of pairs too: a pair takes at least 14
# bytes (an 8-byte key length, a 1-byte key, a 4-byte type code and a 1-byte value), so a header that claims
# more pairs than `bytes left // 14` is refused before the first is read. Both refuse a key that appears
# twice. gguftok's errors name the key and the offset where the reading stopped.
#
# ### Where the 19 vocabularies come from
#
# They are the `ggml-vocab-*.gguf` files of llama.cpp's own tests, taken from the source distribution of
# llama-cpp-python 0.3.36 (which bundles llama.cpp), whose SHA-256 is pinned in `gguftok/data.py`; each file
# extracted from it is checked against its SHA-256 in `data/manifest.json`. They are vocabulary-only files:
# the tokenizer keys and a few others, no tensors.
#
# ### Reading fast
#
# gguftok memory-maps a file given as a path, so only the pages that hold the key/value pairs are ever read
# from disk, even for a model of many gigabytes. And it reads a long array of strings in a few NumPy passes
# instead of one `struct` call per string. The trick: a string shorter than 256 bytes (nearly every token
# and merge) has a length field of one small byte and seven zero bytes, so every offset where eight bytes
# read as a number below 256 is a candidate start; a chain of candidates in which each one starts where the
# string before it ends is a chain of real strings. All the strings found are then decoded in a single call
# (`gguftok/metadata.py`, `string_array_bulk`, says why that is exact, and falls back on the plain loop
# where it is not). That is the difference between a fraction of a second for Qwen2's 151,936 tokens and
# 151,387 merges and the many seconds of `gguf.GGUFReader`, which builds a NumPy view per string. A plain
# reader like yours is in between, and fast enough: its check allows it a generous time per megabyte. With
# gguftok's reader, the catalog above reads all 19 files in a second or two.
