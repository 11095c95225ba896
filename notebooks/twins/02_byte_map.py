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
# # 02 · Why a byte-level vocabulary writes a space as `Ġ`
#
# Byte-level BPE never looks at characters: it cuts and merges **bytes**, the UTF-8 encoding of the text,
# which lets it handle any language and any emoji with a fixed alphabet of 256 symbols. But a GGUF file keeps
# each token as a *string*, and many bytes make poor string characters: the space and the newline are
# invisible, byte 0 ends C strings, and the bytes 0x80..0xFF are not characters at all on their own. GPT-2
# solved this with a fixed table that gives each of the 256 bytes one **visible** character, and every
# byte-level vocabulary (GPT-2, Llama 3, Qwen2, StarCoder, ...) stores its tokens through it. gguftok's copy
# is `gguftok.bytemap`; you write your own in `mytok/bytemap.py`.
#
# After this notebook you can:
#
# - build GPT-2's byte-to-character table from its rule, and its inverse;
# - turn bytes into a vocabulary's text and a stored token back into its bytes;
# - read a stored token such as `ä¸ĸçķĮ` as the bytes it stands for;
# - explain why a token may hold half a character, and what that means for decoding.

# %%
from gguftok import Tokenizer
from gguftok.bytemap import BYTE_TO_CHAR, CHAR_TO_BYTE, bytes_to_text, text_to_bytes
from gguftok.data import vocab_dir
from gguftok.exercises import workspace
from gguftok.viz.bytemap_view import (
    SELF_MAPPED,
    SHIFTED,
    byte_grid,
    split_character_view,
    text_bytes_view,
    vocab_entries_view,
    vocab_roundtrip,
)

qwen2 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf")

# %% [markdown]
# ## The rule
#
# The table is built in two passes over the byte values.
#
# 1. Bytes that already look like themselves keep their own character: the printable ASCII range `!`..`~`
#    (0x21..0x7E) and the printable Latin-1 ranges `¡`..`¬` (0xA1..0xAC) and `®`..`ÿ` (0xAE..0xFF).
# 2. Every other byte, taken in increasing order, gets the next free character from U+0100 on: the first
#    gets U+0100 (`Ā`), the second U+0101 (`ā`), and so on.
#
# That gives two groups, and their sizes:

# %%
print(len(BYTE_TO_CHAR), "byte values:", len(SELF_MAPPED), "keep their own character,", len(SHIFTED), "are moved")

# %% [markdown]
# The moved group is exactly the bytes that are invisible or awkward in text: the 32 control bytes
# 0x00..0x1F, the space 0x20, DEL 0x7F, the 32 C1 controls 0x80..0x9F, the no-break space 0xA0 and the soft
# hyphen 0xAD (32 + 1 + 1 + 32 + 1 + 1 = 68). The first 33 of them are moved by exactly 256, so the space
# (byte 32) becomes U+0120 `Ġ`, the newline (byte 10) U+010A `Ċ` and the tab (byte 9) U+0109 `ĉ`:

# %%
for name, b in [("space", 0x20), ("newline", 0x0A), ("tab", 0x09)]:
    print(f"{name:8s} byte {b:3d} -> {BYTE_TO_CHAR[b]}  U+{ord(BYTE_TO_CHAR[b]):04X}")

# %% [markdown]
# ## All 256 bytes at once
#
# Each cell is one byte: its value in hex on top (row = first hex digit, column = second), the character
# the vocabulary writes it with in the middle, and a label at the bottom. Solid boxes labelled `=` keep
# their own character. Dashed, hatched boxes labelled `↑` were moved, and the label says what the byte
# really is: `␣` space, `↵` newline, `→` tab, `␀`..`␟` other control bytes, `␡` DEL, `C1` a C1 control,
# `⍽` no-break space, `SHY` soft hyphen. Hover over a cell for its code point. The plain-text form marks
# moved bytes with brackets.

# %%
byte_grid()

# %% [markdown]
# Rows `0_` and `1_` are all moved (control bytes), row `2_` starts with the moved space, rows `3_` to `7_`
# are ASCII and keep themselves except DEL at `7f`, rows `8_` and `9_` are all moved, and from `a0` on only
# the no-break space and the soft hyphen move.
#
# The upper half (0x80..0xFF) deserves a second look. In UTF-8 these bytes never stand alone: they are
# the lead and continuation bytes of multi-byte characters. `ä` in a vocabulary string does not mean the
# letter ä. It only means byte 0xE4, and the table borrows Latin-1's picture of it.
#
# ## Both directions
#
# A tokenizer uses the table twice. Before looking a stretch of text up, it turns the text's UTF-8 bytes
# into table characters (`bytes_to_text`); that string is what `tokenizer.ggml.tokens` contains. When
# decoding, it turns a token's stored string back into bytes (`text_to_bytes`). Two encodings, with the
# Qwen2 id that the first string finds:

# %%
world, tab = bytes_to_text(" world".encode("utf-8")), bytes_to_text(b"\t")
print(repr(world), "-> id", qwen2.token_id(world), "|", repr(tab))

# %% [markdown]
# ## Now write yours
#
# Open [`mytok/bytemap.py`](mytok/bytemap.py) and write its four functions: `bytes_to_unicode()` (the table,
# from the rule), `unicode_to_bytes()` (its inverse), `encode_bytes(data)` (bytes to the vocabulary's text)
# and `decode_token(text)` (a stored token back to its bytes). The **Exercises** below state and check them.
# The cell below compares yours with gguftok's on the two tables and the encodings above, reading your file
# again each time you run it.

# %%
mine = workspace.load("bytemap")


class Note(str):
    """What stopped one of your functions: printed as it is, without quotes."""

    def __repr__(self):
        return str(self)


def yours(name, *args):
    """Your function's answer, or a note of what stopped it."""
    try:
        return getattr(mine, name)(*args)
    except NotImplementedError:
        return Note("(not written yet)")
    except Exception as e:
        return Note(f"(raised {type(e).__name__}: {e})")


def entries(table, reference):
    if not isinstance(table, dict):
        return table
    return f"{sum(table.get(k, None) == v for k, v in reference.items())} of 256 entries agree with gguftok's"


print("bytes_to_unicode():        ", entries(yours("bytes_to_unicode"), dict(enumerate(BYTE_TO_CHAR))))
print("unicode_to_bytes():        ", entries(yours("unicode_to_bytes"), CHAR_TO_BYTE))
print("encode_bytes(b' world'):   ", repr(yours("encode_bytes", b" world")), "| gguftok:", repr(world))
print("decode_token('ä¸ĸçķĮ'):    ", repr(yours("decode_token", "ä¸ĸçķĮ")), "| gguftok:",
      repr(text_to_bytes("ä¸ĸçķĮ")))

# %% [markdown]
# ## Five real Qwen2 tokens
#
# Five entries of the Qwen2 vocabulary (`ggml-vocab-qwen2.gguf`). The view takes only each id's stored
# string from the file and turns it into bytes with the table alone; the last column counts how many of
# those bytes needed a moved character (the space and the newline are drawn as `␣` and `↵`).

# %%
FIVE = [1879, 198, 90316, 99489, 9707]
vocab_entries_view(qwen2, FIVE)

# %% [markdown]
# What each line says:
#
# - `Ġworld` is a space and five ASCII letters; only the space had to move.
# - `Ċ` is the newline, alone.
# - `ĠðŁĺĢ` is a space plus the four UTF-8 bytes of 😀 (f0 9f 98 80). Three of the emoji's bytes are in
#   0x80..0x9F and moved; f0 kept its Latin-1 picture `ð`. Qwen2 spends a single token on "space + 😀".
# - `ä¸ĸçķĮ` is the six bytes of 世界. It looks like Latin-1 noise because every byte became one character.
# - `Hello` is ASCII and needs no moved character at all.
#
# Does the table alone decode a token the way llama.cpp does? For these five ids, compare with
# `token_to_piece` (gguftok's port of `llama_token_to_piece`); then do the same for every token of type
# normal in the vocabulary:

# %%
print([qwen2.token_to_piece(i) == text_to_bytes(qwen2.token_text(i)) for i in FIVE])
print("normal tokens checked, and agreeing:", vocab_roundtrip(qwen2))

# %% [markdown]
# And the full tokenizer finds two of these ids from plain text (no BOS: Qwen2 does not add one):

# %%
qwen2.encode("Hello world")

# %% [markdown]
# ## A character cut in two
#
# A byte-level vocabulary is free to cut *inside* a character. Take the string `ðŁ` on its own: two table
# characters, bytes f0 9f, the first half of a four-byte emoji. Those two bytes are not valid UTF-8, so a
# decoder that must produce text right away can only emit the replacement character U+FFFD. This is not a
# made-up string: `ðŁ` is a real Qwen2 token.

# %%
half = text_to_bytes("ðŁ")
print(half.hex(" "), ascii(half.decode("utf-8", errors="replace")), "id", qwen2.token_id("ðŁ"))

# %% [markdown]
# `ascii()` spells U+FFFD as `\ufffd`: that is the garbage a generation loop prints if it decodes token by
# token. Qwen2 has no single token for 🫠 (U+1FAE0, "melting face"), so its four bytes f0 9f ab a0 land in
# three tokens, the first of which is that very `ðŁ`. The chips keep the three tokens in one dashed frame
# because only together do they make a character. Below them, `Tokenizer.decode_stream` decodes token by
# token the right way: it prints nothing while it holds an unfinished character, and the whole emoji as
# soon as the last byte arrives.

# %%
split_character_view(qwen2, "🫠 melts")

# %% [markdown]
# The same happens with a leading space: `Ġ` and the emoji's first two bytes can share one token, and
# the stream prints the space at once but holds the two bytes.

# %%
split_character_view(qwen2, "I 🦙 you")

# %% [markdown]
# ## Try it
#
# Type any text: each character's code point and UTF-8 bytes, the table characters for those bytes
# (dashed and hatched when moved), then the Qwen2 ids with each token's stored string, and the tokens
# decoded (a character split over tokens shown as one group). Write `\n` for a newline and `\t` for a
# tab, since a text box cannot hold them.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.bytemap_view import byte_inspector  # noqa: E402

byte_inspector(qwen2)

# %% [markdown]
# The same view for one fixed text, which shows even where no kernel runs the widget:

# %%
text_bytes_view(qwen2, "Hi 😀\n世界\t")

# %% [markdown]
# ## Exercises
#
# This notebook's stage is [`mytok/bytemap.py`](mytok/bytemap.py): write the body of each function named below there, save, and
# run its check (notebook 00, *How the exercises work*, says what a check does).

# %%
from gguftok.exercises import check, rerun  # noqa: E402

# %% [markdown]
# ### Exercise 02.bytes_to_unicode: build GPT-2's byte-to-character table
#
# Build the table of this notebook from its rule: a `dict` from each byte value 0..255 to the one
# character that stands for it.
#
# 1. The bytes `!`..`~` (0x21..0x7E), `¡`..`¬` (0xA1..0xAC) and `®`..`ÿ` (0xAE..0xFF) keep their own
#    character, `chr(b)`.
# 2. Every other byte, in increasing order, gets the next character from U+0100 on.
#
# The cases: the table's keys, then its entry for each of the 256 bytes, against
# `gguftok.bytemap.BYTE_TO_CHAR`.
#
# Write it in [`mytok/bytemap.py`](mytok/bytemap.py).

# %%
check("02.bytes_to_unicode")

# %% [markdown]
# ### Exercise 02.unicode_to_bytes: the inverse table: character to byte
#
# Write `unicode_to_bytes()`, the inverse of your table: a `dict` from each of its 256 characters to
# the byte it stands for (`"Ġ"` gives 32). A character outside the table, such as the space itself,
# is not a key.
#
# The cases: the keys, the entry of each of the 256 characters, and seven characters that must be
# absent, against `gguftok.bytemap.CHAR_TO_BYTE`.
#
# Write it in [`mytok/bytemap.py`](mytok/bytemap.py).

# %%
check("02.unicode_to_bytes")

# %% [markdown]
# ### Exercise 02.encode_bytes: bytes to the vocabulary's text
#
# Before a stretch of text can be looked up in a byte-level vocabulary, its UTF-8 bytes are written with
# the table's characters. Write `encode_bytes(data)` that does it: one character per byte.
#
# The cases: ` world`, a tab, text with emoji and Chinese, every byte value, random bytes, and the bytes
# of 100 Qwen2 tokens, against `gguftok.bytemap.bytes_to_text`.
#
# Write it in [`mytok/bytemap.py`](mytok/bytemap.py).

# %%
check("02.encode_bytes")

# %% [markdown]
# ### Exercise 02.decode_token: a stored token back to its bytes
#
# A byte-level vocabulary stores each token as text in which every character stands for one byte.
# Write `decode_token(text)` that returns those bytes, with your inverse table. A character that is not
# in the table cannot come from a byte: raise `KeyError` for it (a dict lookup does).
#
# The cases: this notebook's five tokens and `ðŁ`, each of the 256 table characters, random tokens, a few
# texts with characters outside the table, and 150 normal tokens of Qwen2, against
# `gguftok.bytemap.text_to_bytes`.
#
# Write it in [`mytok/bytemap.py`](mytok/bytemap.py).

# %%
check("02.decode_token")

# %% [markdown]
# ## Recap
#
# - Byte-level BPE works on bytes, but GGUF stores tokens as strings: GPT-2's table gives each byte one
#   visible character.
# - 188 bytes (printable ASCII and Latin-1) keep their own character; the other 68 move to U+0100 and up,
#   in byte order: space `Ġ`, newline `Ċ`, tab `ĉ`.
# - Encoding looks up `bytes_to_text(...)` strings (`Ġworld` is id 1879); decoding turns each stored
#   character back into its byte, and for every normal Qwen2 token the table alone gives llama.cpp's bytes.
# - `ä¸ĸçķĮ` is 世界: each character of a stored token is one byte, and the bytes carry the meaning.
# - A token may hold half a character (`ðŁ` is f0 9f), so a decoder must collect bytes across tokens before
#   it makes text (notebook 08 builds one).

# %% [markdown]
# ## Self-check
#
# 1. Which character stands for byte 0x41 (`A`), and which for byte 0x0A?
#    <details><summary>Answer</summary><code>A</code> itself: printable ASCII keeps its character. 0x0A, the
#    newline, is moved: U+010A <code>Ċ</code> (0x0A + 256).</details>
# 2. Why does a stored token read as `Ã©` mean `é`?
#    <details><summary>Answer</summary><code>é</code> is the two UTF-8 bytes c3 a9, and both keep their
#    Latin-1 pictures, <code>Ã</code> and <code>©</code>. Read as bytes, they are <code>é</code>.</details>
# 3. Is `Ġ` a character a user could type and still get the space's token?
#    <details><summary>Answer</summary>No. Typed, <code>Ġ</code> is the character U+0120, whose UTF-8 bytes c4
#    a0 are spelled <code>Ä</code> and <code>ł</code>: other tokens. Only the byte 0x20 is written
#    <code>Ġ</code> in the vocabulary.</details>
# 4. A loop prints each token's text as soon as it arrives, decoded with `errors="replace"`. What goes wrong
#    with 🫠 in Qwen2?
#    <details><summary>Answer</summary>Its four bytes come in three tokens; the first two hold incomplete
#    UTF-8 and print U+FFFD. The decoder must hold the bytes until the character is whole.</details>

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# ## Going deeper
#
# ### The table as a picture
#
# The figure plots the same table as byte value against code point. Kept bytes sit on the diagonal; moved
# bytes are stacked just above U+00FF in byte order, in four runs that match the four gaps in the diagonal.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.bytemap_view import byte_map_figure  # noqa: E402

byte_map_figure();

# %% [markdown]
# ### Which bytes Qwen2's tokens use
#
# The moved characters are not only about whitespace. For each byte value, the figure below counts the
# Qwen2 tokens of type normal whose bytes contain it (log scale; moved bytes hatched). Three things stand
# out, and the printed counts give their exact values:
#
# - The space is in about a third of all tokens, because most word tokens start with one.
# - The shaded block 0x80..0xBF holds the UTF-8 continuation bytes, which every non-ASCII character
#   carries. A good half of it (0x80..0xA0) is moved, which is why Chinese, Cyrillic or emoji tokens are
#   full of `Ģ`..`ł`.
# - Some bytes are in exactly one token, their own single-byte token: 0xC0, 0xC1 and 0xF5..0xFF can never
#   occur in valid UTF-8, and the digits 0x30..0x39 never merge with anything, because Qwen2's
#   pre-tokenizer cuts every digit off on its own (notebook 04).

# %%
from gguftok.viz.bytemap_view import byte_usage  # noqa: E402

usage = byte_usage(qwen2)
print({f"0x{b:02x}": usage[b] for b in (0x20, 0x0A, 0x09, 0x80, 0x30, 0xC0, 0xF5, 0xFF)})

# %% tags=["nbval-ignore-output"]
from gguftok.viz.bytemap_view import byte_usage_figure  # noqa: E402

byte_usage_figure(usage);

# %% [markdown]
# ### A normal token that prints nothing
#
# The check of every normal token above asks `token_to_piece` for special tokens' text too. Without that,
# one of Qwen2's tokens would seem to disagree: `</s>` is stored as a normal token, but when llama.cpp loads
# the vocabulary it adds it to the end-of-generation set, and gives it the control attribute, so by default
# it prints nothing (notebook 07 explains that promotion). The last column is the attributes after loading:

# %%
from gguftok.viz.vocab import vocab_page  # noqa: E402

print(vocab_page(qwen2, "</s>").text)
print(qwen2.token_to_piece(128247), qwen2.token_to_piece(128247, special=True))

# %% [markdown]
# ### The table in llama.cpp
#
# llama.cpp builds the same table in `src/unicode.cpp` (`unicode_byte_to_utf8_map`, and its inverse
# `unicode_utf8_to_byte_map`), with the same three ranges. Decoding a byte-level token is
# `llama_decode_text` in `src/llama-vocab.cpp`: each code point of the stored text is looked up in the
# inverse map. A character outside the table does not raise there: it is written out as
# `[UNK_BYTE_0x` + its UTF-8 bytes in hex + the whole token text + `]`, and gguftok's `token_to_piece` does
# the same. Your `decode_token` raises `KeyError` instead, which is the honest answer for a vocabulary.
#
# ### Spelling a text in one call
#
# `bytes_to_text` builds the string a character at a time. Encoding long texts, gguftok uses
# `gguftok.bytemap.spell_text` instead: the table, written as one string of 256 characters, is exactly a
# table for Python's `codecs.charmap_decode`, which maps every byte of a text in a single C call.
