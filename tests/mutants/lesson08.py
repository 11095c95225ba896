"""Wrong variants of lesson 08's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

import codecs

from gguftok.bytemap import CHAR_TO_BYTE


def piece_user_defined_as_control(text: str, token_type: int, model: str) -> bytes:
    """A user-defined token taken for a special one: rendered as nothing, like control tokens."""
    if token_type in (2, 3, 4, 5, 0):
        return b""
    if token_type == 6:
        return bytes([int(text[3:5], 16)])
    if model != "gpt2":
        return text.replace("▁", " ").encode()
    return bytes(CHAR_TO_BYTE[c] for c in text)


def detokenize_strips_the_text(ids, texts, types, model, remove_space=False) -> bytes:
    """The space taken off the joined text, wherever the first space-led piece is (not the first token's)."""
    data = b"".join(piece_user_defined_as_control(texts[i], types[i], model) if types[i] != 4
                    else texts[i].encode() for i in ids)
    return data[1:] if remove_space and data.startswith(b" ") else data


class StreamDecoderForgetsAtFlush:
    """Holds an unfinished character back, but flush() drops it instead of giving U+FFFD."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def push(self, data: bytes) -> str:
        return self._decoder.decode(data)

    def flush(self) -> str:
        self._decoder.reset()
        return ""


WRONG = {
    "08.piece": piece_user_defined_as_control,
    "08.detokenize": detokenize_strips_the_text,
    "08.StreamDecoder": StreamDecoderForgetsAtFlush,
}
