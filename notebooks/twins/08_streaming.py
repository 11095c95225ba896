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
# # 08 · From ids back to text, and streaming it
#
# A model generates ids, and something has to turn them back into text, often one id at a time while the
# reply is being written. Each id has a **piece**, its bytes, and the text is the pieces joined. But a piece
# can stop in the middle of a UTF-8 character, and decoding each piece on its own prints `�` where an emoji
# or a Chinese character should be. Going back also tells which characters of the input each token came
# from, the map that highlighting and constrained decoding need. Every line below is printed by `gguftok`
# on the real vocabularies.
#
# After this notebook you can:
#
# * give any token's piece, from its type and the vocabulary's family;
# * join pieces into text as `llama_detokenize` does, with its leading-space rule;
# * say which characters of a text each token covers, even a token that holds part of a character;
# * explain where `�` comes from when decoding token by token, and how a streaming decoder avoids it;
# * write `piece`, `detokenize` and a streaming UTF-8 decoder in `mytok/detokenize.py`.

# %%
from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.exercises.lesson08 import final_types
from gguftok.exercises.workspace import load
from gguftok.stream import TextStream
from gguftok.viz.queue_view import frames_text
from gguftok.viz.render import token_chips
from gguftok.viz.stream_view import (
    clean_spaces_table,
    detokenize_rules,
    mid_character_figure,
    mid_character_table,
    naive_vs_stream,
    offsets_table,
    stream_frames,
    stream_player,
    token_pieces,
)
from gguftok.vocab import ATTR_NAMES

qwen2 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf")
llama3 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-llama-bpe.gguf")
llama_spm = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-llama-spm.gguf")
command_r = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-command-r.gguf")

# %% [markdown]
# ## Pieces
#
# `token_to_piece(id)` is llama.cpp's `llama_token_to_piece`: the bytes one token stands for. For byte-level
# BPE each character of the token text maps back to one byte (notebook 02's alphabet, `Ġ` for a space). A
# piece need not be text: Qwen2's token 9284, `ðŁ`, is `f0 9f`, the start of every emoji from U+1F000 to
# U+1FFFF.

# %%
for tid in (9707, 90316, 9284, 236):
    piece = qwen2.token_to_piece(tid)
    print(f"{tid:6d}  {qwen2.token_text(tid)!r:12s} -> bytes {piece.hex(' ')}")

# %% [markdown]
# What a piece is depends first on the token's **type**, as llama.cpp holds it once loaded. With special
# tokens not written out, control, unknown and unused tokens are nothing, a byte token `<0xNN>` is that
# byte, and a user-defined token is its text. A normal token is decoded by its family's rule: through the
# byte alphabet for byte-level BPE, with `▁` read as a space for SentencePiece. Tokens of three vocabularies:

# %%
def type_names(tok, tid):
    attr = int(tok.vocab.attrs[tid])
    return "+".join(name for bit, name in ATTR_NAMES.items() if attr & bit) or "undefined"


for name, tok, tid in (("qwen2", qwen2, 9707), ("qwen2", qwen2, 151643), ("qwen2", qwen2, 151646),
                       ("llama-spm", llama_spm, 15043), ("llama-spm", llama_spm, 1), ("llama-spm", llama_spm, 13),
                       ("llama-spm", llama_spm, 0), ("command-r", command_r, 265)):
    print(f"{name:10s} {tid:6d} {tok.token_text(tid)!r:16s} {type_names(tok, tid):13s} -> "
          f"{tok.token_to_piece(tid)!r}")

# %% [markdown]
# The last line is Command-R's quirk (Going deeper): `‼` is not in the byte alphabet, so llama.cpp writes a
# marker. Your `piece` (exercise 08.piece) is these rules.
#
# ## Joining pieces: `llama_detokenize`
#
# `decode_bytes(ids, remove_special, unparse_special)` is llama.cpp's `llama_detokenize`, returning bytes
# (`decode` decodes them). Besides joining the pieces:
#
# - `unparse_special=True` writes control tokens such as `<s>` as their text, otherwise as nothing;
# - `remove_special=True` drops a leading BOS only if the vocabulary adds BOS, a trailing EOS only if it
#   adds EOS;
# - SentencePiece put a `▁` in front of the text when encoding, so decoding strips one space from the
#   **first token's** piece. If that token is BOS, the strip lands on BOS's empty piece and the space of
#   `▁Hello` survives; if `remove_special` removed the BOS, nothing is stripped.
#
# Llama's SentencePiece vocabulary adds BOS but not EOS, so its EOS (id 2) stays in all four lines:

# %%
spm_ids = [*llama_spm.encode("Hello world"), llama_spm.eos_id]
print("add_bos:", llama_spm.add_bos, " add_eos:", llama_spm.add_eos)
detokenize_rules(llama_spm, spm_ids)

# %% [markdown]
# Without BOS the first token is `▁Hello`, and its space is stripped: the text comes back as it went in.

# %%
detokenize_rules(llama_spm, llama_spm.encode("Hello world", add_special=False))

# %% [markdown]
# Your `detokenize` (exercise 08.detokenize) joins your pieces and strips that space. Removing BOS/EOS and
# `clean_spaces` (Going deeper) depend on the vocabulary's flags: notebook 12 puts them around it.
#
# ## Which characters each token covers
#
# The map the other way, for each token the characters of the input it came from, is the **offsets**:
# highlighting a token needs it, and so does constrained decoding, to know which characters a token would
# write. `gguftok.offsets.token_offsets(tok, text)` gives one span `(start, end)` per token, indices into the
# Python string: the token covers `text[start:end]`. A token holding only some of a character's bytes covers
# the whole character, so neighbours can share it. Byte-level BPE (Qwen2) splits the emoji and `說`:

# %%
OFFSETS_TEXT = "llama 🦙 說你好"
offsets_table(qwen2, OFFSETS_TEXT)

# %% [markdown]
# SentencePiece (Llama 2) has no token for `🦙` or `說`: it falls back to one token per byte, each covering
# the whole character. The `▁` it put in front of the text covers nothing: the piece ` ll` spans `ll`.

# %%
offsets_table(llama_spm, OFFSETS_TEXT)

# %% [markdown]
# ## Decoding token by token breaks characters
#
# Four pieces chosen by hand: a space with the first two bytes of 😀, its last two bytes, ` ok`, and the
# invalid byte `ff` with `x`. Each row: the piece decoded alone (`bytes.decode(errors="replace")`), what
# gguftok's streaming decoder emits, and the bytes it holds (`␣` is a space).

# %%
BY_HAND = [b" \xf0\x9f", b"\x98\x80", b" ok", b"\xffx"]
naive_vs_stream(BY_HAND)

# %% [markdown]
# Token by token gives three U+FFFD where the emoji was (one for `f0 9f`, one each for `98` and `80`) and a
# fourth for `ff`; the stream gives 😀 whole, and replaces `ff` at once, since no character starts with it.
# Bytes that *could* still become a character are held; only `flush()`, the end of the stream, turns an
# unfinished character into U+FFFD:

# %%
naive_vs_stream([b"ok \xf0\x9f", b"\x98"])

# %% [markdown]
# A held start followed by a byte that cannot continue it is replaced as soon as that byte arrives:

# %%
naive_vs_stream([b"\xe4\xb8", b"A"])

# %% [markdown]
# ## What a streaming decoder has to know about UTF-8
#
# UTF-8 writes a character as one to four bytes. The first, the **lead byte**, says how many follow:
#
# | lead byte | continuation bytes | code points | code-point bits in the lead byte |
# |---|---|---|---|
# | `00`..`7F` | 0 | U+0000..U+007F | 7 |
# | `C2`..`DF` | 1 | U+0080..U+07FF | 5 |
# | `E0`..`EF` | 2 | U+0800..U+FFFF | 4 |
# | `F0`..`F4` | 3 | U+10000..U+10FFFF | 3 |
#
# Every continuation byte is `80`..`BF` and carries 6 bits, but the first one is narrower after four lead
# bytes: after `E0` only `A0`..`BF` (shorter forms are not allowed), after `F0` `90`..`BF` (the same), after
# `F4` `80`..`8F` (nothing past U+10FFFF), after `ED` `80`..`9F` (no surrogates). `C0`, `C1` and `F5`..`FF`
# never appear. `世` (U+4E16) from its bytes:

# %%
lead, b1, b2 = "世".encode()
code = (lead & 0x0F) << 12 | (b1 & 0x3F) << 6 | (b2 & 0x3F)
print(f"bytes {lead:08b} {b1:08b} {b2:08b} -> {lead & 0x0F:04b} {b1 & 0x3F:06b} {b2 & 0x3F:06b} = "
      f"U+{code:04X} {chr(code)}")

# %% [markdown]
# Bytes that form no character become U+FFFD, one (as in Python, and as the Unicode standard recommends) for
# each **maximal start**: a lead byte with the continuation bytes that fitted; decoding goes on at the first
# byte that did not fit. A stream waits when its bytes end in a start that is valid so far. gguftok's stream,
# fed a few byte strings in one push and then flushed:

# %%
for data in (b"\xe4\xb8\x96", b"\xe4\xb8", b"\xe4\xb8A", b"\xf0\x9f\x98", b"\xf0\x80\x80", b"\xc0\xaf", b"\xff\xfe",
             b"\xf4\x90", b"\xed\xa0\x80", b"\xed\xa0"):
    stream = TextStream(bytes)  # its pieces are the bytes pushed
    now = stream.push(data)
    print(f"{data.hex(' '):9s} push -> {now!r:16s} held: {stream.pending.hex(' ') or '-':9s} flush -> "
          f"{stream.flush()!r}")

# %% [markdown]
# `e4 b8` is held, and one U+FFFD at the flush. In `e4 b8 41` the `41` cannot continue: U+FFFD, then `A`.
# In `f0 80 80`, `80` cannot follow `F0`: three U+FFFD. `ed a0` is held although nothing can complete it:
# the one irregular case (Going deeper). Your `StreamDecoder` must answer exactly so.
#
# ## A real id stream
#
# A paragraph with emoji and Chinese, encoded by Qwen2 and by Llama 3. In the chips, tokens that only
# together make a character are framed together and shown as their bytes.

# %%
PARAGRAPH = "The llama 🦙 said 你好, 世界! Then it waved 👋🏽 and left 🎉. Ünïcödé? Sure."
q_ids = qwen2.encode(PARAGRAPH)
l_ids = llama3.encode(PARAGRAPH, add_special=False)
token_chips(qwen2, q_ids, title=f"Qwen2: {len(q_ids)} ids")

# %%
token_chips(llama3, l_ids, title=f"Llama 3: {len(l_ids)} ids (without BOS)")

# %% [markdown]
# Both ways of decoding, for Qwen2 and then Llama 3: the rows around ` 🦙`, all of them behind the toggle.

# %%
def around_llama(tok, ids):
    """The rows around the token that starts ` 🦙` (a space and the emoji's first bytes)."""
    at = next(k for k, t in enumerate(ids) if tok.token_to_piece(t).startswith(b" \xf0"))
    return range(at - 1, at + 5)


naive_vs_stream(token_pieces(qwen2, q_ids), q_ids, keep=around_llama(qwen2, q_ids))

# %%
naive_vs_stream(token_pieces(llama3, l_ids), l_ids, keep=around_llama(llama3, l_ids))

# %% [markdown]
# The per-token text is full of `�`; the streamed text is the paragraph, exactly `decode(ids)`.
# `decode_stream(ids)` gives the per-id strings directly, empty while a character is incomplete, and the
# flush last:

# %%
for name, tok, ids in (("qwen2", qwen2, q_ids), ("llama3", llama3, l_ids)):
    chunks = list(tok.decode_stream(ids))
    joined = "".join(chunks)
    print(f"{name}: {len(chunks)} chunks, {chunks.count('')} empty, joined == decode: {joined == tok.decode(ids)}, "
          f"U+FFFD: {joined.count(chr(0xFFFD))}")

# %% [markdown]
# ## Your decoder beside Python's
#
# Once your `piece` and `StreamDecoder` are written, this cell streams Qwen2's paragraph through them beside
# gguftok's stream, reading your file afresh each time.

# %%
def yours_beside_python(name, tok, ids):
    mine = load("detokenize")
    texts, types, model = tok.vocab.texts, final_types(name), tok.vocab.model  # types as llama.cpp holds them
    try:
        pieces = [mine.piece(texts[i], types[i], model) for i in ids]
        decoder = mine.StreamDecoder()
        got = [decoder.push(p) for p in pieces] + [decoder.flush()]
    except NotImplementedError:
        print("not written yet: write piece and StreamDecoder in mytok/detokenize.py (piece also needs your\n"
              "unicode_to_bytes from notebook 02), save, and run this cell again")
        return
    expected = list(tok.decode_stream(ids))
    wrong = [k for k, (a, b) in enumerate(zip(got, expected, strict=True)) if a != b]
    if not wrong:
        print(f"all {len(expected)} answers agree: {''.join(got)!r}")
    else:
        k = wrong[0]
        print(f"{len(wrong)} of {len(expected)} answers differ; the first at push {k}: expected {expected[k]!r}, "
              f"yours {got[k]!r}")


yours_beside_python("qwen2", qwen2, q_ids)

# %% [markdown]
# ## Watching ids arrive
#
# The player plays the Qwen2 stream one id at a time: its bytes, its text alone, what the stream emits, the
# bytes held back (dashed), and all shown so far. Frame 0 is before the first id.

# %% tags=["nbval-ignore-output"]
frames = stream_frames(token_pieces(qwen2, q_ids), q_ids)
stream_player(frames)

# %% [markdown]
# The same frames without a widget, for the three ids of ` 🦙`: the first two are held back, the third
# completes the character.

# %%
first = next(k for k, t in enumerate(q_ids) if qwen2.token_to_piece(t).startswith(b" \xf0"))
frames_text(frames, range(first + 1, first + 4))

# %% [markdown]
# ## Exercises
#
# This notebook's stage is [`mytok/detokenize.py`](mytok/detokenize.py): write the body of each function named below there, save, and
# run its check (notebook 00, *How the exercises work*, says what a check does).

# %%
from gguftok.exercises import check, rerun  # noqa: E402

# %% [markdown]
# ### Exercise 08.piece: one token's bytes
#
# Write `piece(text, token_type, model)`: the bytes of one token, as llama.cpp's `llama_token_to_piece`
# gives them with special tokens not written out. `text` is the token's text, `model` the file's
# `tokenizer.ggml.model`, `token_type` the token's type once loaded (1 normal, 2 unknown, 3 control,
# 4 user-defined, 5 unused, 6 byte, 0 undefined):
#
# - unknown, control, unused, undefined: nothing, `b""`;
# - user-defined: the text as written, in UTF-8;
# - byte: the text is `<0xNN>`, and the piece is that one byte;
# - normal, model `"gpt2"`: each character is one byte of notebook 02's alphabet (your
#   `unicode_to_bytes()`); a character outside it (Command-R has such tokens) becomes llama.cpp's marker:
#   `[UNK_BYTE_0x`, its UTF-8 bytes in lower-case hex, the whole token text, `]`;
# - normal, any other model (`"llama"`, `"gemma4"`, `"bert"`, `"t5"`): the text with every `▁`
#   replaced by a space, in UTF-8.
#
# So `piece("Ġworld", 1, "gpt2")` is `b" world"` and `piece("ðŁ", 1, "gpt2")` is `b"\xf0\x9f"`,
# half of an emoji. The check uses the tokens above and tokens of every type from all 19 vocabularies,
# against gguftok's `Tokenizer.token_to_piece`.
#
# Write it in [`mytok/detokenize.py`](mytok/detokenize.py).

# %%
check("08.piece")

# %% [markdown]
# ### Exercise 08.detokenize: ids back to bytes
#
# Write `detokenize(ids, texts, types, model, remove_space=False)`: the `piece` of each id joined, as bytes
# (they need not be valid UTF-8). `texts` and `types` are the vocabulary's token texts and types, indexed
# by id; `model` is passed on to `piece`. With `remove_space`, one space is taken off the front of the
# *first token's* piece only: after a BOS, whose piece is empty, the space of a `▁Hello` stays, as in
# llama.cpp. An id outside `0` to `len(texts) - 1` raises `IndexError` (a negative one too). Removing
# BOS/EOS and `clean_spaces` are not part of it. The check uses a few ids of two small vocabularies, and
# random ids and encoded mixed-script texts of all 19 vocabularies, with and without `remove_space`,
# against gguftok's `Tokenizer.decode_bytes` without `clean_spaces`.
#
# Write it in [`mytok/detokenize.py`](mytok/detokenize.py).

# %%
check("08.detokenize")

# %% [markdown]
# ### Exercise 08.StreamDecoder: a streaming UTF-8 decoder
#
# Write the class `StreamDecoder`, a UTF-8 decoder for bytes that arrive in pieces: `push(data)` takes the
# next bytes and returns the text they complete; `flush()` ends the stream, returns what is left and
# starts afresh. What it must return:
#
# - **the same text as decoding at once:** a stream's answers joined (every push, then the flush) equal
#   `b"".join(pieces).decode("utf-8", errors="replace")`, U+FFFD for U+FFFD;
# - **nothing late:** a push returns every character whose last byte has arrived, and every U+FFFD that
#   no later byte can change;
# - **nothing early:** the start of a character that later bytes could still complete waits for them, for
#   a byte that cannot continue it, or for the flush; like Python's decoder, yours also waits on `ED`
#   followed by `A0`..`BF` at the end (it then gives two U+FFFD);
# - **little kept:** between pushes it keeps only the bytes it holds back.
#
# Do the UTF-8 work yourself, from the rules above: handing it to Python (`codecs`, or `decode` with an
# `errors=` handler) does not pass. The check pushes the streams above, 300 random byte streams cut at
# random places and the pieces of mixed-script texts in five vocabularies, and compares every answer
# with Python's own decoder fed the same pushes; then it pushes 4,000 bytes one at a time and looks at
# what your decoder keeps.
#
# Write it in [`mytok/detokenize.py`](mytok/detokenize.py).

# %%
check("08.StreamDecoder")

# %% [markdown]
# ## Recap
#
# - A piece is a token's bytes, possibly part of a character, by its type and its vocabulary's family.
# - `llama_detokenize` joins the pieces, strips SentencePiece's space from the first token's piece, and
#   removes BOS/EOS only when the vocabulary adds them.
# - Offsets map each token to the characters it covers; a token with part of a character covers all of it.
# - In UTF-8 the lead byte says how many continuation bytes follow; bytes that form no character become one
#   U+FFFD per maximal start.
# - A streaming decoder holds an unfinished character until it is complete, replaces invalid bytes at
#   once, and turns what it holds into U+FFFD at `flush()`.

# %% [markdown]
# ## Self-check
#
# 1. Qwen2's token 9284 decoded on its own prints `�`. Is the token broken?
#
# <details><summary>Answer</summary>No. Its piece is <code>f0 9f</code>, the first two bytes of a four-byte emoji; the
# next tokens bring the rest.</details>
#
# 2. In Llama's SentencePiece vocabulary `[<s>, ▁Hello]` decodes to ` Hello`, but `[▁Hello]` to `Hello`.
#    Why?
#
# <details><summary>Answer</summary>The space strip applies to the first token's piece only. When BOS comes
# first, it lands on BOS's empty piece, and the space of <code>▁Hello</code> stays.</details>
#
# 3. A stream holds `e4 b8`. What does the next push return if it brings `41`, and if it brings `96`?
#
# <details><summary>Answer</summary><code>41</code> cannot continue <code>e4 b8</code>: one U+FFFD for the held start, then <code>A</code>.
# <code>96</code> completes it: <code>世</code>.</details>
#
# 4. In Llama 2's encoding of `🦙`, four tokens have the same span. Why?
#
# <details><summary>Answer</summary>The vocabulary has no token for <code>🦙</code>: it falls back to one byte token for
# each of its four UTF-8 bytes, and a token with part of a character covers all of it.</details>

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# ## Going deeper
#
# The rest of llama.cpp's detokenizer and of Python's UTF-8 decoder: every token type, Command-R's marker,
# `clean_spaces`, the irregular `ED A0`, and how the stream differs from `decode`.

# %% [markdown]
# ### Token types and their pieces
#
# With special tokens not written out:
#
# | type | code | piece |
# |---|---|---|
# | normal | 1 | the text, decoded by the family's rule |
# | unknown | 2 | nothing |
# | control | 3 | nothing (`<|endoftext|>`, `<s>`) |
# | user-defined | 4 | the text as written, in UTF-8 |
# | unused | 5 | nothing |
# | byte | 6 | the text is `<0xNN>`: that one byte |
#
# The type is the one llama.cpp holds once loaded: notebook 06 showed it promoting some tokens to control.
# For a normal token, byte-level BPE (`tokenizer.ggml.model` is `gpt2`) maps each character back through the
# byte alphabet; SentencePiece (`llama`), and the other vocabularies that write a space as `▁`, replace every
# `▁` by a space.
#
# ### Command-R's `[UNK_BYTE_0x…]` marker
#
# Command-R's vocabulary is byte-level, but some of its tokens are stored as the real character (`‼`)
# instead of its bytes spelled in the alphabet. `‼` is not one of the 256 characters of the alphabet, so
# llama.cpp cannot map it back; it writes a marker instead: `[UNK_BYTE_0x`, the character's UTF-8 bytes in
# hex, the whole token text, `]`. A decoder that wants llama.cpp's bytes must write the same marker. How many
# such tokens there are:

# %%
marked = [i for i in range(command_r.n_vocab)
          if b"[UNK_BYTE_0x" in command_r.token_to_piece(i)]
print(f"command-r: {len(marked)} of {command_r.n_vocab} tokens decode to a marker, e.g. "
      f"{[command_r.token_text(i) for i in marked[:6]]}")
print(f"vocabularies in data/vocab: {len(list(vocab_dir().glob('ggml-vocab-*.gguf')))}")

# %% [markdown]
# ### BOS removal on Llama 3, and `clean_spaces` ported literally
#
# Llama 3 (byte-level BPE) has no space prefix, but it adds BOS, so `remove_special` drops
# `<|begin_of_text|>`; Qwen2 does not add BOS, and would keep a BOS-looking token at the front.

# %%
detokenize_rules(llama3, llama3.encode("Hello world"))

# %% [markdown]
# The last rule is `clean_spaces`. No key of the file holds it: llama.cpp sets this flag from the vocabulary
# type and the pre-tokenizer, on for WordPiece and most byte-level pre-tokenizers, off for SentencePiece,
# Unigram and some byte-level ones (Qwen2 among them):

# %%
print({name: tok.vocab.clean_spaces for name, tok in [("llama-bpe", llama3), ("qwen2", qwen2),
                                                       ("llama-spm", llama_spm)]})

# %% [markdown]
# It is three passes over the bytes, ported literally in `gguftok.detokenize.clean_spaces`: a space before
# `? ! . ,` goes; ` ' ` becomes `'`; and a space before `'s 'm 're 've` goes, while `'t 'd 'll` keep theirs.
# The second line shows a quirk that a literal port keeps: llama.cpp's second pass reads back a byte it has
# just blanked, so `a ' ' b` loses more than one might expect. (These lines come from gguftok's port, which is
# held to the pinned llama.cpp.)

# %%
clean_spaces_table(["Hello , world !", "a ' ' b", "it 's what we 're after", "don 't , we 'll"])

# %% [markdown]
# ### Python's irregular case: `ED A0`
#
# `ED A0 80` would be the surrogate U+D800, which is never a character: three U+FFFD (`ed` alone, since `a0`
# does not fit after it, then `a0` and `80`). But `ED A0` at the end of the bytes is *held*, although nothing
# can complete it: Python keeps it so that an error handler that lets surrogates through could still see the
# third byte. At the flush, or when the next bytes arrive, it is decoded by the usual rules: two U+FFFD. A
# decoder that must match Python's has to wait there too.
#
# gguftok's `TextStream` hands the decoding to Python's incremental decoder,
# `codecs.getincrementaldecoder("utf-8")(errors="replace")`, and exercise 08.StreamDecoder compares yours
# with it, on every push. A Python string counts code points, so 😀 is one character; a language whose
# strings count UTF-16 units would count two.
#
# ### The stream does not apply `llama_detokenize`'s rules
#
# `decode` applies `llama_detokenize`'s rules (space strip, `clean_spaces`); the stream does not, it only
# joins pieces. For SentencePiece the first word's space therefore survives in the stream; here the stream
# starts with the space of `▁The`:

# %%
spm_para = llama_spm.encode(PARAGRAPH, add_special=False)
print(repr("".join(llama_spm.decode_stream(spm_para))[:12]), repr(llama_spm.decode(spm_para)[:12]))

# %% [markdown]
# ### How often does a token end mid-character?
#
# For each vocabulary and a few kinds of text: the tokens after which the stream holds bytes, the ones a
# per-token decoder would garble. English never splits; emoji and less common CJK characters often do.
# Llama's SentencePiece vocabulary falls back to one token per byte for characters it does not know, so an
# emoji costs it four tokens, three of which end mid-character.

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
mid_character_figure(VOCABS, TEXTS);

# %% [markdown]
# llama-server holds back an unfinished character on its side too (its `validate_utf8`), which is why its
# streamed chunks contain whole characters.
