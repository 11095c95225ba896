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
# # 08 · From ids back to text, and streaming it
#
# Encoding turns text into ids; a model generates ids, and something has to turn them back into text,
# often one id at a time while the reply is still being written. Going back is simple in principle: each
# id has a **piece** (its bytes), and the text is the pieces joined. Two details make it worth a notebook:
#
# 1. llama.cpp's `llama_detokenize` does a little more than joining: it can drop a leading space, drop
#    BOS/EOS, and tidy spaces before punctuation. `Tokenizer.decode_bytes` follows those rules.
# 2. A byte-level token can stop in the middle of a UTF-8 character. Decoding token by token then prints
#    replacement characters (`�`, U+FFFD) where an emoji or a Chinese character should be. A **streaming
#    decoder** holds the unfinished bytes back until the character is complete: `Tokenizer.stream()`,
#    built on `gguftok.stream.TextStream`.
#
# Every line printed below is computed here by `gguftok`; where the lesson (Example 8) shows the same
# experiment, the notebook says what matches and what differs.

# %%
from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.viz.queue_view import frames_text
from gguftok.viz.render import token_chips
from gguftok.viz.stream_view import (
    clean_spaces_table,
    detokenize_rules,
    mid_character_table,
    naive_vs_stream,
    stream_frames,
    stream_player,
    token_pieces,
)

qwen2 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf")
llama3 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-llama-bpe.gguf")
llama_spm = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-llama-spm.gguf")

# %% [markdown]
# ## Pieces
#
# `token_to_piece(id, special)` is `llama_token_to_piece`: the bytes one token stands for. For byte-level
# BPE the stored token text is in the byte alphabet of notebook 02 (`Ġ` for a space), and the piece is the
# real bytes. Some pieces are not text at all: Qwen2's token 9284, written `ðŁ`, is the two bytes `f0 9f`,
# the first half of every emoji from U+1F000 to U+1FFFF.

# %%
for tid in (9707, 90316, 9284, 236):
    piece = qwen2.token_to_piece(tid)
    print(f"{tid:6d}  {qwen2.token_text(tid)!r:12s} -> bytes {piece.hex(' ')}")

# %% [markdown]
# Control tokens have a piece only when asked for: with `special=False` (the default, and what a chat
# client usually wants) `<|endoftext|>` renders as nothing.

# %%
print(repr(qwen2.token_to_piece(qwen2.eos_id)), repr(qwen2.token_to_piece(qwen2.eos_id, special=True)))

# %% [markdown]
# ## `llama_detokenize`'s rules
#
# `decode_bytes(ids, remove_special, unparse_special)` returns bytes (they need not be valid UTF-8;
# `decode` adds `.decode("utf-8", "replace")`). The flags:
#
# - `unparse_special=True` renders control tokens such as `<s>` as their text, otherwise as nothing.
# - `remove_special=True` drops a leading BOS, but **only if the vocabulary adds BOS** (`add_bos`), and a
#   trailing EOS only if it adds EOS. A model that never adds BOS keeps a BOS you wrote yourself.
# - SentencePiece vocabularies with `add_space_prefix` put `▁` in front of the first word when encoding,
#   so decoding strips one space from the **first token's** piece. If that first token is BOS, the strip
#   lands on BOS's (empty) piece and the space of `▁Hello` survives; llama.cpp does exactly this, and so
#   does `gguftok`. If `remove_special` removed the BOS, the strip is switched off.
#
# The Llama SentencePiece vocabulary adds BOS but not EOS, so the EOS (id 2) stays in all four lines and
# only shows when `unparse_special` is on:

# %%
spm_ids = [*llama_spm.encode("Hello world"), llama_spm.eos_id]
print("add_bos:", llama_spm.add_bos, " add_eos:", llama_spm.add_eos)
detokenize_rules(llama_spm, spm_ids)

# %% [markdown]
# Without BOS the first token is `▁Hello`, and now its space is stripped: the text comes back exactly as
# it went in.

# %%
detokenize_rules(llama_spm, llama_spm.encode("Hello world", add_special=False))

# %% [markdown]
# Llama 3 (byte-level BPE) has no space prefix, but it adds BOS, so `remove_special` drops
# `<|begin_of_text|>`. Qwen2 does not add BOS: a BOS-looking token at the front would be kept.

# %%
detokenize_rules(llama3, llama3.encode("Hello world"))

# %% [markdown]
# The third rule is `clean_spaces` (the vocabulary's `tokenizer.ggml.clean_spaces`, set for Llama 3, not
# for Qwen2 or Llama SPM). It is three passes over the bytes, ported literally in
# `gguftok.detokenize.clean_spaces`: a space before `? ! . ,` goes; ` ' ` becomes `'`; and a space before
# `'s 'm 're 've` goes, while `'t 'd 'll` keep theirs. The second line shows a quirk that a literal port
# keeps: llama.cpp's second pass reads back a byte it has just blanked, so `a ' ' b` loses more than one
# might expect. (These lines come from `gguftok`'s port; the conformance tests compare decoding with the
# pinned llama.cpp.)

# %%
clean_spaces_table(["Hello , world !", "a ' ' b", "it 's what we 're after", "don 't , we 'll"])

# %% [markdown]
# ## Decoding token by token breaks characters
#
# First the lesson's own four pieces: a space with the first two bytes of 😀, the last two bytes, ` ok`,
# and the invalid byte `ff` followed by `x`. These are bytes chosen by hand, not a vocabulary's tokens.
# Each line shows the piece decoded alone (`bytes.decode(errors="replace")`) and what a `TextStream`
# emits for it, plus the bytes the stream still holds (`␣` is a space).

# %%
LESSON = [b" \xf0\x9f", b"\x98\x80", b" ok", b"\xffx"]
naive_vs_stream(LESSON)

# %% [markdown]
# The results agree with the lesson's Java program: token by token gives `␣���␣ok�x` (three replacement
# characters where the emoji was, a fourth for `ff`), the stream gives `␣😀␣ok�x`. The lesson counts the
# streamed emoji as 2 characters because Java strings count UTF-16 units (a surrogate pair); a Python
# string counts code points, so here 😀 is one character. Python's decoder also follows the same
# "one U+FFFD per maximal invalid subsequence" rule as Java's, which is why `f0 9f` alone gives one `�`
# and `98 80` gives two.
#
# The invalid byte `ff` does not block the stream: no UTF-8 character can start with it, so the stream
# replaces it at once. Bytes that *could* still become a character are held, and only at the very end,
# when `flush()` says no more bytes are coming, does an unfinished character become U+FFFD:

# %%
naive_vs_stream([b"ok \xf0\x9f", b"\x98"])

# %% [markdown]
# A held-back start followed by a byte that cannot continue it is replaced as soon as that byte arrives,
# and the new byte is decoded normally:

# %%
naive_vs_stream([b"\xe4\xb8", b"A"])

# %% [markdown]
# ## A real id stream
#
# Now real ids: a paragraph with emoji and Chinese, encoded with the Qwen2 and Llama 3 vocabularies and
# played back. In the chips, tokens that only together make a character are framed together and shown
# as their bytes.

# %%
PARAGRAPH = "The llama 🦙 said 你好, 世界! Then it waved 👋🏽 and left 🎉. Ünïcödé? Sure."
q_ids = qwen2.encode(PARAGRAPH)
l_ids = llama3.encode(PARAGRAPH, add_special=False)
token_chips(qwen2, q_ids, title=f"Qwen2: {len(q_ids)} ids")

# %%
token_chips(llama3, l_ids, title=f"Llama 3: {len(l_ids)} ids (without BOS)")

# %% [markdown]
# Both ways of decoding, token by token and streamed, for Qwen2:

# %%
naive_vs_stream(token_pieces(qwen2, q_ids), q_ids)

# %% [markdown]
# The per-token text is full of `�`; the streamed text is the paragraph. The same for Llama 3, whose
# vocabulary splits different characters:

# %%
naive_vs_stream(token_pieces(llama3, l_ids), l_ids)

# %% [markdown]
# For valid UTF-8 the joined stream is exactly `decode(ids)`, with no U+FFFD anywhere (the tests check
# this on random text). `decode_stream(ids)` gives the per-id strings directly, empty while a character is
# incomplete, and the flush last:

# %%
for name, tok, ids in (("qwen2", qwen2, q_ids), ("llama3", llama3, l_ids)):
    chunks = list(tok.decode_stream(ids))
    joined = "".join(chunks)
    print(f"{name}: {len(chunks)} chunks, {chunks.count('')} empty, joined == decode: {joined == tok.decode(ids)}, "
          f"U+FFFD: {joined.count(chr(0xFFFD))}")

# %% [markdown]
# One difference is by design: `decode` applies `llama_detokenize`'s rules (space strip, `clean_spaces`),
# the stream does not; it only joins pieces. For SentencePiece the first word's space therefore survives
# in the stream; here the stream starts with the space of `▁The`:

# %%
spm_para = llama_spm.encode(PARAGRAPH, add_special=False)
print(repr("".join(llama_spm.decode_stream(spm_para))[:12]), repr(llama_spm.decode(spm_para)[:12]))

# %% [markdown]
# ## Watching ids arrive
#
# The player below shows the Qwen2 stream one id at a time: the id's bytes, the text that id would give on
# its own, what the stream emits, the bytes it holds back (dashed), and everything shown so far. Frame 0
# is before the first id, so there is one frame more than there are ids. All frames are computed first
# and linked to the buttons in the browser.

# %% tags=["nbval-ignore-output"]
frames = stream_frames(token_pieces(qwen2, q_ids), q_ids)
stream_player(frames)

# %% [markdown]
# The same frames as text, for the three ids of ` 🦙`: the first two are held back, the third completes
# the character.

# %%
first = next(k for k, t in enumerate(q_ids) if qwen2.token_to_piece(t).startswith(b" \xf0"))
frames_text(frames, range(first + 1, first + 4))

# %% [markdown]
# ## How often does a token end mid-character?
#
# For each vocabulary and a few kinds of text: the tokens after which the stream is holding bytes, i.e.
# the tokens a per-token decoder would garble. English never splits; emoji and less common CJK characters
# often do. The Llama SentencePiece vocabulary falls back to one token per byte for characters it does not
# know, so an emoji costs it four tokens, three of which end mid-character.

# %%
TEXTS = {
    "English": "The quick brown fox jumps over the lazy dog, twice.",
    "Chinese": "大语言模型把文本切成词元，再逐个生成。",
    "emoji": "Party 🎉🥳🦙 wave 👋🏽 check ✅ rocket 🚀",
    "mixed": PARAGRAPH,
}
VOCABS = {"qwen2": qwen2, "llama3": llama3, "llama-spm": llama_spm}
mid_character_table(VOCABS, TEXTS)

# %% tags=["nbval-ignore-output"]
from gguftok.viz.stream_view import mid_character_figure  # noqa: E402

mid_character_figure(VOCABS, TEXTS);

# %% [markdown]
# The table above is the figure's static twin.
#
# ## What you can now explain
#
# - A piece is a token's bytes (`token_to_piece`), possibly part of a character; control tokens render as
#   nothing unless `special` / `unparse_special` is set.
# - `llama_detokenize`'s rules: the SentencePiece leading-space strip applies to the first token (and is
#   switched off when `remove_special` removed BOS), BOS/EOS are removed only when the vocabulary adds
#   them, and `clean_spaces` runs three literal passes.
# - Why decoding each token alone puts `�` into the text, and how a streaming decoder avoids it: it holds
#   the bytes of an unfinished character and emits them when the character is complete.
# - Invalid bytes do not block a stream: they become U+FFFD as soon as they cannot start or continue a
#   character; an unfinished character at the end becomes U+FFFD at `flush()`.
# - llama-server does the same on its side (the lesson points at `validate_utf8`), which is why streamed
#   chunks contain whole characters.

# %% [markdown]
# ## Exercises
#
# Write each function in the code cell under its statement, run that cell, then run the check below it.
# The check calls your function on this lesson's examples and on many generated inputs (seeded, so the
# same every time), compares each answer with gguftok's own, and shows the first input where they
# differ: the input, the expected answer, yours, and for a list the first index that differs. Until you
# write the body it says *not attempted*. `gguftok.exercises.show("NN.name")` prints a task again.
# The solutions are in `solutions/lesson08.py` at the top of the repository.

# %%
from gguftok.exercises import check  # noqa: E402


# %% [markdown]
# ### Exercise 08.held_back: how many bytes must wait
#
# A streaming decoder prints what it can and holds back the bytes at the end of its input that could
# still become a character. Write `held_back(data)` that returns how many bytes at the end of `data`
# must wait. They are the start of a UTF-8 character that is valid so far but not complete:
#
# - a lead byte announces the length: `C2`..`DF` two bytes, `E0`..`EF` three, `F0`..`F4` four
#   (`C0`, `C1`, `F5`..`FF` never start a character, and ASCII is complete on its own);
# - each following byte must be a continuation byte `80`..`BF`, with three exceptions right after the
#   lead byte: after `E0` it must be `A0`..`BF`, after `F0` `90`..`BF`, after `F4` `80`..`8F`. (`ED A0`
#   starts an encoded surrogate, which is never valid; Python's decoder still waits for its third byte
#   and rejects it then, so `ED` has no exception here.)
#
# So `held_back(b"ok \xf0\x9f")` is 2, `held_back(b"\xf0\x80")` is 0 (`80` cannot follow `F0`), and
# a complete character held nothing. The check compares with what gguftok's `TextStream` (Python's
# incremental UTF-8 decoder) holds after reading `data`, on the lesson's bytes and 300 random tails.

# %%
def held_back(data: bytes) -> int:
    """How many bytes at the end of ``data`` are an unfinished (still possible) UTF-8 character.

    >>> held_back(b"ok \\xf0\\x9f"), held_back("😀".encode())
    (2, 0)
    """
    raise NotImplementedError


# %%
check("08.held_back", held_back)


# %% [markdown]
# ### Exercise 08.stream_decode: decode a stream of pieces
#
# Write `stream_decode(pieces)`: the pieces (bytes) of tokens arrive one at a time; return, for each
# piece, the text a streaming decoder prints when it arrives, then one more string: what it prints at the
# end (an unfinished character becomes U+FFFD). So the answer has `len(pieces) + 1` strings, and invalid
# bytes become U+FFFD as soon as they cannot be part of a character.
#
# Python's standard library has the decoder: `codecs.getincrementaldecoder("utf-8")(errors="replace")`;
# call its `decode(piece)` for each piece and `decode(b"", final=True)` at the end. The check uses the
# lesson's four pieces, 250 random streams with invalid bytes, and the pieces of a paragraph in Qwen2,
# Llama 3 and Llama 2, against `gguftok.stream.TextStream`.

# %%
def stream_decode(pieces: list[bytes]) -> list[str]:
    """The text printed after each piece, then at the end (``len(pieces) + 1`` strings).

    >>> stream_decode([b" \\xf0\\x9f", b"\\x98\\x80", b" ok"])
    [' ', '😀', ' ok', '']
    """
    raise NotImplementedError


# %%
check("08.stream_decode", stream_decode)
