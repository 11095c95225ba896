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
# Encoding turns text into ids; a model generates ids, and something has to turn them back into text,
# often one id at a time while the reply is still being written. Going back is simple in principle: each
# id has a **piece** (its bytes), and the text is the pieces joined. Three things make it worth a notebook,
# and you write all three in [`mytok/detokenize.py`](mytok/detokenize.py):
#
# 1. `piece`: what a token's bytes are depends on its type and on the vocabulary's family. Control tokens
#    have none, byte tokens are one byte, and a byte-level token is spelled in notebook 02's alphabet.
# 2. `detokenize`: joining the pieces, and taking off the one space that SentencePiece put in front of the
#    text, from the right token.
# 3. `StreamDecoder`: a byte-level token can stop in the middle of a UTF-8 character. Decoding token by
#    token then prints replacement characters (`�`, U+FFFD) where an emoji or a Chinese character should
#    be. A **streaming decoder** holds the unfinished bytes back until the character is complete.
#
# gguftok has all three (`Tokenizer.token_to_piece`, `decode_bytes`, `Tokenizer.stream()`); every line
# printed below comes from it, so you can compare your functions with what is shown here.

# %%
import codecs

from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.exercises.lesson08 import final_types
from gguftok.exercises.workspace import load
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
from gguftok.vocab import ATTR_NAMES

qwen2 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf")
llama3 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-llama-bpe.gguf")
llama_spm = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-llama-spm.gguf")
command_r = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-command-r.gguf")

# %% [markdown]
# ## Pieces
#
# `token_to_piece(id)` is llama.cpp's `llama_token_to_piece`: the bytes one token stands for. For
# byte-level BPE the stored token text is in the byte alphabet of notebook 02 (`Ġ` for a space), and the
# piece is the real bytes: each character maps back to the one byte it stands for. Some pieces are not text
# at all: Qwen2's token 9284, written `ðŁ`, is the two bytes `f0 9f`, the first half of every emoji from
# U+1F000 to U+1FFFF.

# %%
for tid in (9707, 90316, 9284, 236):
    piece = qwen2.token_to_piece(tid)
    print(f"{tid:6d}  {qwen2.token_text(tid)!r:12s} -> bytes {piece.hex(' ')}")

# %% [markdown]
# What a piece is depends first on the token's **type** (`tokenizer.ggml.token_type`, as llama.cpp holds it
# once loaded: notebook 06 showed it promoting some tokens to control). With special tokens not written out,
# which is what a chat client usually wants:
#
# | type | code | piece |
# |---|---|---|
# | normal | 1 | the text, decoded by the family's rule (below) |
# | unknown | 2 | nothing |
# | control | 3 | nothing (`<|endoftext|>`, `<s>`) |
# | user-defined | 4 | the text as written, in UTF-8 |
# | unused | 5 | nothing |
# | byte | 6 | the text is `<0xNN>`: that one byte |
#
# and for a normal token, on the family: byte-level BPE (`tokenizer.ggml.model` is `gpt2`) maps each
# character back through the byte alphabet; SentencePiece (`llama`), and the other vocabularies that write a
# space as `▁`, replace every `▁` by a space. A few tokens of three vocabularies, with their type as
# llama.cpp holds it:

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
# The last line is a quirk worth knowing. Command-R's vocabulary is byte-level, but some of its tokens are
# stored as the real character (`‼`) instead of its bytes spelled in the alphabet. `‼` is not one of the 256
# characters of the alphabet, so llama.cpp cannot map it back; it writes a marker instead:
# `[UNK_BYTE_0x`, the character's UTF-8 bytes in hex, the whole token text, `]`. A decoder that wants
# llama.cpp's bytes must write the same marker. How many such tokens there are:

# %%
marked = [i for i in range(command_r.n_vocab)
          if b"[UNK_BYTE_0x" in command_r.token_to_piece(i)]
print(f"command-r: {len(marked)} of {command_r.n_vocab} tokens decode to a marker, e.g. "
      f"{[command_r.token_text(i) for i in marked[:6]]}")
print(f"vocabularies in data/vocab: {len(list(vocab_dir().glob('ggml-vocab-*.gguf')))}")

# %% [markdown]
# Now write `piece(text, token_type, model)` in [`mytok/detokenize.py`](mytok/detokenize.py): the table
# above, with your `unicode_to_bytes()` from notebook 02 for the byte-level tokens. Exercise 08.piece at
# the end of this notebook checks it on tokens of every type from all 19 vocabularies.
#
# ## `llama_detokenize`'s rules
#
# `decode_bytes(ids, remove_special, unparse_special)` is llama.cpp's `llama_detokenize`. It returns bytes
# (they need not be valid UTF-8; `decode` adds `.decode("utf-8", "replace")`). Besides joining the pieces:
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
# The last rule is `clean_spaces` (the vocabulary's `tokenizer.ggml.clean_spaces`, set for Llama 3, not
# for Qwen2 or Llama SPM). It is three passes over the bytes, ported literally in
# `gguftok.detokenize.clean_spaces`: a space before `? ! . ,` goes; ` ' ` becomes `'`; and a space before
# `'s 'm 're 've` goes, while `'t 'd 'll` keep theirs. The second line shows a quirk that a literal port
# keeps: llama.cpp's second pass reads back a byte it has just blanked, so `a ' ' b` loses more than one
# might expect. (These lines come from gguftok's port, which is held to the pinned llama.cpp.)

# %%
clean_spaces_table(["Hello , world !", "a ' ' b", "it 's what we 're after", "don 't , we 'll"])

# %% [markdown]
# Now write `detokenize(ids, texts, types, model, remove_space)` in
# [`mytok/detokenize.py`](mytok/detokenize.py): the pieces of the ids joined, with `remove_space` taking one
# space off the first token's piece only (so `[BOS, ▁Hello]` keeps its space, as above). The BOS/EOS
# removal and `clean_spaces` stay outside it: they depend on the vocabulary's flags, and notebook 12 puts
# them around it.
#
# ## Decoding token by token breaks characters
#
# Four pieces chosen by hand (not a vocabulary's tokens): a space with the first two bytes of 😀, the last
# two bytes, ` ok`, and the invalid byte `ff` followed by `x`. Each line shows the piece decoded alone
# (`bytes.decode(errors="replace")`) and what a streaming decoder (gguftok's `TextStream`) emits for it,
# plus the bytes the stream still holds (`␣` is a space).

# %%
BY_HAND = [b" \xf0\x9f", b"\x98\x80", b" ok", b"\xffx"]
naive_vs_stream(BY_HAND)

# %% [markdown]
# Token by token gives `␣���␣ok�x`: three replacement characters where the emoji was (one for `f0 9f`, one
# each for `98` and `80`), a fourth for `ff`. The stream gives `␣😀␣ok�x`, where 😀 is one character (a
# Python string counts code points; a language whose strings count UTF-16 units would count two).
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
# ## What a streaming decoder has to know about UTF-8
#
# UTF-8 writes a character as one to four bytes. The first byte, the **lead byte**, says how many follow:
#
# | lead byte | continuation bytes | code points | bits of the code point in the lead byte |
# |---|---|---|---|
# | `00`..`7F` | 0 | U+0000..U+007F | 7 |
# | `C2`..`DF` | 1 | U+0080..U+07FF | 5 |
# | `E0`..`EF` | 2 | U+0800..U+FFFF | 4 |
# | `F0`..`F4` | 3 | U+10000..U+10FFFF | 3 |
#
# Every continuation byte is `80`..`BF` and carries 6 bits. Some sequences that follow this pattern are still
# not allowed, and the rule that excludes them is on the **first** continuation byte: after `E0` it must be
# `A0`..`BF` (otherwise the character would fit in fewer bytes, an "over-long" form), after `F0` `90`..`BF`
# (the same), after `F4` `80`..`8F` (nothing past U+10FFFF), after `ED` `80`..`9F` (U+D800..U+DFFF are
# the surrogates, not characters). `C0`, `C1` and `F5`..`FF` can never appear. Here is `世` (U+4E16) put
# together from its three bytes:

# %%
lead, b1, b2 = "世".encode()
code = (lead & 0x0F) << 12 | (b1 & 0x3F) << 6 | (b2 & 0x3F)
print(f"bytes {lead:08b} {b1:08b} {b2:08b} -> {lead & 0x0F:04b} {b1 & 0x3F:06b} {b2 & 0x3F:06b} = "
      f"U+{code:04X} {chr(code)}")

# %% [markdown]
# Bytes that do not form a character become U+FFFD, and *how many* U+FFFD matters if the text is to match
# Python's (which follows the Unicode standard's recommendation, as most decoders do): one U+FFFD for each **maximal start** of a character, that is a
# lead byte with the continuation bytes that fitted, up to the first byte that does not fit; decoding goes
# on at that byte. A stray byte is one U+FFFD on its own.
#
# A streaming decoder adds one question: at the end of the bytes it has, is there a start that is valid so
# far? Then it waits. Python's incremental decoder (`codecs.getincrementaldecoder("utf-8")(errors=
# "replace")`, what gguftok's stream uses) on a few byte strings, pushed in one piece and then flushed:

# %%
for data in (b"\xe4\xb8\x96", b"\xe4\xb8", b"\xe4\xb8A", b"\xf0\x9f\x98", b"\xf0\x80\x80", b"\xc0\xaf", b"\xff\xfe",
             b"\xf4\x90", b"\xed\xa0\x80", b"\xed\xa0"):
    python = codecs.getincrementaldecoder("utf-8")(errors="replace")
    now = python.decode(data)
    held = python.getstate()[0]
    print(f"{data.hex(' '):9s} push -> {now!r:16s} held: {held.hex(' ') or '-':9s} flush -> "
          f"{python.decode(b'', final=True)!r}")

# %% [markdown]
# Line by line: `e4 b8 96` is 世. `e4 b8` is valid so far: held, and at the flush one U+FFFD. `e4 b8 41`: the
# `41` cannot continue, so `e4 b8` is one U+FFFD and `A` follows. `f0 80 80`: `80` cannot follow `F0`, so
# `f0` alone is a U+FFFD, and each stray `80` another. `c0 af` and `ff fe`: bytes that never start a
# character. `f4 90`: past U+10FFFF, two U+FFFD at once.
#
# The last two lines show the one irregular case. `ED A0 80` would be the surrogate U+D800, which is never
# a character: three U+FFFD (`ed` alone, since `a0` does not fit after it, then `a0` and `80`). But
# `ED A0` at the end of the bytes is *held*, although nothing can complete it: Python keeps it so that a
# handler that lets surrogates through could still see the third byte. At the flush, or when the next
# bytes arrive, it is decoded by the rules above: two U+FFFD. Your decoder has to wait there too.
#
# Now write the class `StreamDecoder` in [`mytok/detokenize.py`](mytok/detokenize.py): `push(data)` adds
# the held bytes in front of `data`, decodes by the rules above, and keeps the valid start at the end for
# the next push; `flush()` turns what is held into U+FFFD. Write the rules yourself, with `chr` for the
# characters; exercise 08.StreamDecoder compares every answer with Python's decoder on hundreds of streams.
#
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
# For valid UTF-8 the joined stream is exactly `decode(ids)`, with no U+FFFD anywhere. `decode_stream(ids)`
# gives the per-id strings directly, empty while a character is incomplete, and the flush last:

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
# ## Your decoder beside Python's
#
# Once your `piece` and `StreamDecoder` are written, this cell streams the paragraph through them: your
# pieces of Qwen2's ids, pushed one at a time into your decoder, beside gguftok's pieces through Python's
# decoder. It reads your file afresh each time it runs.

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
# - A piece is a token's bytes, possibly part of a character: by type (control and unknown render as
#   nothing, byte tokens are one byte, user-defined tokens their text) and by family (byte-level characters
#   mapped back through the alphabet, with llama.cpp's `[UNK_BYTE_0x…]` marker for a stray character;
#   `▁` as a space for SentencePiece).
# - `llama_detokenize`'s rules: the SentencePiece leading-space strip applies to the first token (and is
#   switched off when `remove_special` removed BOS), BOS/EOS are removed only when the vocabulary adds
#   them, and `clean_spaces` runs three literal passes.
# - UTF-8's structure: lead bytes and their lengths, continuation bytes, the narrower first continuation
#   after `E0`, `ED`, `F0`, `F4`, and one U+FFFD per maximal invalid start.
# - Why decoding each token alone puts `�` into the text, and how a streaming decoder avoids it: it holds
#   the bytes of an unfinished character and emits them when the character is complete; invalid bytes
#   become U+FFFD at once; an unfinished character at the end becomes U+FFFD at `flush()`.
# - llama-server does the same on its side (its `validate_utf8`), which is why streamed chunks contain
#   whole characters.

# %% [markdown]
# ## Exercises
#
# Your own tokenizer lives in `mytok/`, a package of yours beside these notebooks, one module per
# stage. This notebook's stage is [`mytok/detokenize.py`](mytok/detokenize.py):
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
# ### Exercise 08.piece: one token's bytes
#
# Write `piece(text, token_type, model)`: the bytes of one token, as llama.cpp's `llama_token_to_piece`
# gives them when special tokens are not written out. `text` is the token's text from
# `tokenizer.ggml.tokens`; `model` is the file's `tokenizer.ggml.model` (`"gpt2"` for byte-level BPE,
# `"llama"` for SentencePiece); `token_type` is the token's type once llama.cpp has loaded it, with the
# codes of `tokenizer.ggml.token_type`: 1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte,
# 0 undefined (a token llama.cpp promoted to control when loading, such as an end-of-turn, is 3).
#
# - unknown, control, unused, undefined: nothing, `b""`;
# - user-defined: the text as written, in UTF-8;
# - byte: the text is `<0xNN>`, and the piece is that one byte;
# - normal, model `"gpt2"`: every character stands for one byte of the byte-level alphabet of
#   notebook 02; map it back with your `unicode_to_bytes()`. A character outside the alphabet (Command-R
#   has such tokens) becomes llama.cpp's marker instead: `[UNK_BYTE_0x`, the character's UTF-8 bytes in
#   lower-case hex, the whole token text, `]`;
# - normal, any other model (`"llama"`, and `"gemma4"`, `"bert"`, `"t5"`, which also write a space as
#   `▁`): the text with every `▁` replaced by a space, in UTF-8.
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
# Write `detokenize(ids, texts, types, model, remove_space=False)`: the bytes of a list of ids, the `piece`
# of each id joined. `texts` and `types` are the vocabulary's token texts and types, indexed by id, and
# `model` is passed on to `piece`. With `remove_space`, one space is taken off the front of the *first
# token's* piece, and only of that one: SentencePiece put a space in front of the text when encoding. When
# the first token is BOS, whose piece is empty, nothing is removed and the space of a `▁Hello` after it
# stays, as in llama.cpp. An id outside `0` to `len(texts) - 1` raises `IndexError` (a negative id too,
# although `texts[-1]` would be the last token).
#
# The result is bytes and need not be valid UTF-8. (llama.cpp then tidies spaces before punctuation for
# most byte-level vocabularies, the `clean_spaces` pass above; that pass is not part of this function.)
# The check uses a few ids of two small vocabularies, and random ids and encoded mixed-script texts of all
# 19 vocabularies, with and without `remove_space`, against gguftok's `Tokenizer.decode_bytes` without
# that clean-up.
#
# Write it in [`mytok/detokenize.py`](mytok/detokenize.py).

# %%
check("08.detokenize")

# %% [markdown]
# ### Exercise 08.StreamDecoder: a streaming UTF-8 decoder
#
# Write the class `StreamDecoder`: `push(data)` takes the next bytes of a stream and returns the text that
# is now complete; `flush()` ends the stream, returns what is left and starts afresh. Between pushes keep
# only the bytes of one unfinished character. The rules are those of Python's `decode("utf-8",
# errors="replace")`, applied as the bytes arrive:
#
# - a byte `00`..`7F` is a character;
# - a lead byte says how many continuation bytes (`80`..`BF`) follow: `C2`..`DF` one, `E0`..`EF` two,
#   `F0`..`F4` three. Right after `E0` only `A0`..`BF` fits, after `ED` `80`..`9F`, after `F0` `90`..`BF`,
#   after `F4` `80`..`8F`;
# - a lead byte with all its continuation bytes is one character: its code point is the lead byte's low
#   bits (5, 4 or 3 of them), then 6 bits from each continuation byte; `chr` gives the character;
# - a byte that cannot start a character (`80`..`BF`, `C0`, `C1`, `F5`..`FF`) becomes one U+FFFD. A lead
#   byte followed by a byte that does not fit becomes one U+FFFD together with the continuation bytes
#   that did fit, and decoding goes on at the byte that did not fit (`F0 80` is two U+FFFD, `E4 B8 41`
#   is U+FFFD then `A`);
# - a start that is valid so far but runs into the end of the bytes waits for the next push. Python also
#   waits after `ED` followed by `A0`..`BF` at the end, although nothing can complete it; the next bytes
#   then decode by the rules above (`ED A0` gives two U+FFFD);
# - `flush()`: a waiting start becomes one U+FFFD (`ED A0`: two).
#
# Write the rules yourself: a decoder that hands the work to Python (`codecs`, or `decode` with an
# `errors=` handler) does not pass. The check pushes the bytes shown above, 300 random byte streams cut at
# random places, and the pieces of mixed-script texts in five vocabularies, one token at a time, and
# compares every answer with Python's incremental decoder
# `codecs.getincrementaldecoder("utf-8")(errors="replace")`, which gguftok's `TextStream` uses. Then it
# pushes 4,000 bytes one at a time and looks at what your decoder keeps.
#
# Write it in [`mytok/detokenize.py`](mytok/detokenize.py).

# %%
check("08.StreamDecoder")
