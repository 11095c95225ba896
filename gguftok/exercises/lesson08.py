"""Lesson 08 · streamed decoding: how many bytes to hold back, and a whole stream."""

from __future__ import annotations

from ..stream import TextStream
from ._core import Case, Exercise
from ._data import random_text, rng, tokenizer

_LESSON = [b" \xf0\x9f", b"\x98\x80", b" ok", b"\xffx"]
_PARAGRAPH = "The llama 🦙 said 你好, 世界! Then it waved 👋🏽 and left 🎉. Ünïcödé? Sure."


def _random_pieces(r) -> list[bytes]:
    data = random_text(r, "ab 😀世é\n", 0, 10).encode()
    if r.random() < 0.3:  # invalid bytes too
        k = r.randint(0, len(data))
        data = data[:k] + bytes([r.choice([0x80, 0xBF, 0xC0, 0xE4, 0xF0, 0xFF])]) + data[k:]
    if r.random() < 0.2:
        data = data[:-1]  # maybe an unfinished character at the end
    cuts = sorted(r.sample(range(1, len(data)), min(len(data) - 1, r.randint(0, 6)))) if len(data) > 1 else []
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)] if data else []


# -------------------------------------------------------------------------------------------- held_back
def _ref_held(data: bytes) -> int:
    """The bytes gguftok's ``TextStream`` is still holding after it was given ``data``."""
    stream = TextStream(lambda i: data)
    stream.push(0)
    return len(stream._decoder.getstate()[0])


def _held_generated() -> list[Case]:
    r = rng(801)
    cases = [Case((bytes(r.choice([0x41, 0x80, 0x9F, 0xBF, 0xC2, 0xC0, 0xE0, 0xE4, 0xED, 0xF0, 0xF4, 0xF5, 0xFF])
                         for _ in range(r.randint(0, 5))),)) for _ in range(300)]
    cases += [Case(("😀世é".encode()[:k],)) for k in range(10)]
    return cases


held_back = Exercise(
    id="08.held_back",
    title="how many bytes must wait",
    statement=(
        "A streaming decoder prints what it can and holds back the bytes at the end of its input that could\n"
        "still become a character. Write `held_back(data)` that returns how many bytes at the end of `data`\n"
        "must wait. They are the start of a UTF-8 character that is valid so far but not complete:\n\n"
        "- a lead byte announces the length: `C2`..`DF` two bytes, `E0`..`EF` three, `F0`..`F4` four\n"
        "  (`C0`, `C1`, `F5`..`FF` never start a character, and ASCII is complete on its own);\n"
        "- each following byte must be a continuation byte `80`..`BF`, with three exceptions right after the\n"
        "  lead byte: after `E0` it must be `A0`..`BF`, after `F0` `90`..`BF`, after `F4` `80`..`8F`. (`ED A0`\n"
        "  starts an encoded surrogate, which is never valid; Python's decoder still waits for its third byte\n"
        "  and rejects it then, so `ED` has no exception here.)\n\n"
        "So `held_back(b\"ok \\xf0\\x9f\")` is 2, `held_back(b\"\\xf0\\x80\")` is 0 (`80` cannot follow `F0`), and\n"
        "a complete character held nothing. The check compares with what gguftok's `TextStream` (Python's\n"
        "incremental UTF-8 decoder) holds after reading `data`, on the lesson's bytes and 300 random tails."),
    template='''def held_back(data: bytes) -> int:
    """How many bytes at the end of ``data`` are an unfinished (still possible) UTF-8 character.

    >>> held_back(b"ok \\\\xf0\\\\x9f"), held_back("😀".encode())
    (2, 0)
    """
    raise NotImplementedError''',
    reference=_ref_held,
    reference_name="gguftok.stream.TextStream",
    examples=lambda: [Case((b,)) for b in (b"ok \xf0\x9f", "😀".encode(), b"\xf0\x80", b"", b"\xe4\xb8", b"\xe4\xb8A",
                                            b" \xf0\x9f\x98")],
    generated=_held_generated,
)


# ------------------------------------------------------------------------------------------ stream_decode
def _ref_stream(pieces: list[bytes]) -> list[str]:
    return list(TextStream(pieces.__getitem__).feed(range(len(pieces))))


def _stream_generated() -> list[Case]:
    r = rng(802)
    cases = [Case((_random_pieces(r),)) for _ in range(250)]
    for name in ("qwen2", "llama-bpe", "llama-spm"):
        tok = tokenizer(name)
        if tok is not None:
            ids = tok.encode(_PARAGRAPH, add_special=False)
            cases.append(Case(([tok.token_to_piece(i) for i in ids],),
                              f"stream_decode(<the {len(ids)} pieces of {name} for {_PARAGRAPH!r}>)"))
    return cases


stream_decode = Exercise(
    id="08.stream_decode",
    title="decode a stream of pieces",
    statement=(
        "Write `stream_decode(pieces)`: the pieces (bytes) of tokens arrive one at a time; return, for each\n"
        "piece, the text a streaming decoder prints when it arrives, then one more string: what it prints at the\n"
        "end (an unfinished character becomes U+FFFD). So the answer has `len(pieces) + 1` strings, and invalid\n"
        "bytes become U+FFFD as soon as they cannot be part of a character.\n\n"
        "Python's standard library has the decoder: `codecs.getincrementaldecoder(\"utf-8\")(errors=\"replace\")`;\n"
        "call its `decode(piece)` for each piece and `decode(b\"\", final=True)` at the end. The check uses the\n"
        "lesson's four pieces, 250 random streams with invalid bytes, and the pieces of a paragraph in Qwen2,\n"
        "Llama 3 and Llama 2, against `gguftok.stream.TextStream`."),
    template='''def stream_decode(pieces: list[bytes]) -> list[str]:
    """The text printed after each piece, then at the end (``len(pieces) + 1`` strings).

    >>> stream_decode([b" \\\\xf0\\\\x9f", b"\\\\x98\\\\x80", b" ok"])
    [' ', '😀', ' ok', '']
    """
    raise NotImplementedError''',
    reference=_ref_stream,
    reference_name="gguftok.stream.TextStream",
    examples=lambda: [Case((list(_LESSON),)), Case(([b"ok \xf0\x9f", b"\x98"],)), Case(([b"\xe4\xb8", b"A"],)),
                      Case(([],))],
    generated=_stream_generated,
)

EXERCISES = [held_back, stream_decode]
