"""Stage 08: ids back to bytes, and bytes to text as they stream in.

A token's *piece* is the bytes it stands for; decoding joins the pieces. A piece can end in the middle of a
UTF-8 character, so a streaming decoder holds the start of an unfinished character back until the rest
arrives, and turns bytes that can never be a character into U+FFFD.

Notebook 08 explains each function. ``piece`` uses the byte map you wrote in notebook 02.
"""

from __future__ import annotations

# Given: the token types of tokenizer.ggml.token_type (0 is "undefined").
UNDEFINED, NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 0, 1, 2, 3, 4, 5, 6
REPLACEMENT = "\ufffd"


def piece(text: str, token_type: int, model: str) -> bytes:
    """The bytes of one token, as llama.cpp's llama_token_to_piece gives them without special tokens' text.

    >>> piece("Ġworld", 1, "gpt2"), piece("▁Hello", 1, "llama"), piece("<0x0A>", 6, "llama")
    (b' world', b' Hello', b'\\n')
    """
    raise NotImplementedError


def detokenize(ids: list[int], texts: list[str], types: list[int], model: str,
               remove_space: bool = False) -> bytes:
    """The pieces of ``ids`` joined; ``remove_space`` takes one space off the front of the first token's piece
    (the space SentencePiece put in front of the text). An id outside the vocabulary raises IndexError.

    >>> detokenize([1, 2], ["<s>", "▁Hi", "▁there"], [3, 1, 1], "llama", remove_space=True)
    b'Hi there'
    """
    raise NotImplementedError


class StreamDecoder:
    """Bytes in, text out: ``push`` returns the text that is complete so far, ``flush`` ends the stream.

    >>> d = StreamDecoder()
    >>> d.push(b" \\xf0\\x9f"), d.push(b"\\x98\\x80!"), d.push(b"\\xe4"), d.flush()
    (' ', '😀!', '', '�')
    """

    def __init__(self) -> None:
        raise NotImplementedError

    def push(self, data: bytes) -> str:
        """The text that ``data`` completes; the start of an unfinished character waits for the next push."""
        raise NotImplementedError

    def flush(self) -> str:
        """The end of the stream: what is still held becomes U+FFFD, and the decoder starts afresh."""
        raise NotImplementedError
