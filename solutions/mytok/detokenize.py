"""Stage 08: ids back to bytes, and bytes to text as they stream in.

A token's *piece* is the bytes it stands for; decoding joins the pieces. A piece can end in the middle of a
UTF-8 character, so a streaming decoder holds the start of an unfinished character back until the rest
arrives, and turns bytes that can never be a character into U+FFFD.
"""

from __future__ import annotations

from .bytemap import unicode_to_bytes

# Given: the token types of tokenizer.ggml.token_type (0 is "undefined").
UNDEFINED, NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 0, 1, 2, 3, 4, 5, 6
REPLACEMENT = "\ufffd"

_byte_of: dict[str, int] = {}  # the byte-level alphabet's character -> its byte, filled on first use


def piece(text: str, token_type: int, model: str) -> bytes:
    """The bytes of one token, as llama.cpp's llama_token_to_piece gives them without special tokens' text.

    >>> piece("Ġworld", 1, "gpt2"), piece("▁Hello", 1, "llama"), piece("<0x0A>", 6, "llama")
    (b' world', b' Hello', b'\\n')
    """
    if token_type in (UNKNOWN, CONTROL):
        return b""  # special tokens are not text
    if token_type == USER_DEFINED:
        return text.encode("utf-8")  # stored as written
    if token_type == BYTE:
        return bytes([int(text[3:5], 16)])  # "<0x0A>" -> the byte 0x0A
    if token_type != NORMAL:
        return b""  # unused and undefined tokens
    if model != "gpt2":
        return text.replace("▁", " ").encode("utf-8")  # SentencePiece's escaped space
    if not _byte_of:
        _byte_of.update(unicode_to_bytes())
    out = bytearray()
    for ch in text:  # byte-level BPE: each character stands for one byte
        if ch in _byte_of:
            out.append(_byte_of[ch])
        else:  # not a character of the alphabet: llama.cpp writes a marker with the whole token text
            out += b"[UNK_BYTE_0x" + ch.encode("utf-8").hex().encode() + text.encode("utf-8") + b"]"
    return bytes(out)


def detokenize(ids: list[int], texts: list[str], types: list[int], model: str,
               remove_space: bool = False) -> bytes:
    """The pieces of ``ids`` joined; ``remove_space`` takes one space off the front of the first token's piece
    (the space SentencePiece put in front of the text). An id outside the vocabulary raises IndexError.

    >>> detokenize([1, 2], ["<s>", "▁Hi", "▁there"], [3, 1, 1], "llama", remove_space=True)
    b'Hi there'
    """
    out = bytearray()
    for k, token_id in enumerate(ids):
        if not 0 <= token_id < len(texts):
            raise IndexError(f"token id {token_id} is not in the vocabulary (ids 0 to {len(texts) - 1})")
        data = piece(texts[token_id], types[token_id], model)
        if k == 0 and remove_space and data.startswith(b" "):
            data = data[1:]  # only the first token's piece, even when that piece is empty
        out += data
    return bytes(out)


# The second byte of a character has a narrower range after these lead bytes (the rest: 80..BF). They rule
# out over-long encodings (E0, F0), the surrogates D800..DFFF (ED) and code points past U+10FFFF (F4).
_SECOND_BYTE = {0xE0: (0xA0, 0xBF), 0xED: (0x80, 0x9F), 0xF0: (0x90, 0xBF), 0xF4: (0x80, 0x8F)}


def _continuations(lead: int) -> int:
    """How many continuation bytes follow this lead byte; 0 when it cannot start a character at all."""
    if 0xC2 <= lead <= 0xDF:
        return 1
    if 0xE0 <= lead <= 0xEF:
        return 2
    if 0xF0 <= lead <= 0xF4:
        return 3
    return 0


def _decode(data: bytes, final: bool) -> tuple[str, bytes]:
    """The text of ``data`` and the bytes at its end still waiting for the rest of their character."""
    out = []
    i, n = 0, len(data)
    while i < n:
        lead = data[i]
        if lead < 0x80:  # ASCII: one byte, one character
            out.append(chr(lead))
            i += 1
            continue
        need = _continuations(lead)
        if need == 0:  # a continuation byte, or C0, C1, F5..FF: never the start of a character
            out.append(REPLACEMENT)
            i += 1
            continue
        low, high = _SECOND_BYTE.get(lead, (0x80, 0xBF))
        j = i + 1
        while j < n and j - i <= need and low <= data[j] <= high:
            j += 1
            low, high = 0x80, 0xBF
        if j - i - 1 == need:  # a whole character
            code = lead & (0x7F >> (need + 1))
            for b in data[i + 1:j]:
                code = code << 6 | b & 0x3F
            out.append(chr(code))
            i = j
        elif not final and (j == n or (lead == 0xED and i + 2 == n and 0xA0 <= data[i + 1] <= 0xBF)):
            # valid so far, the rest may still come: hold it back. (Python also waits after ED A0..BF, the
            # start of a surrogate, and replaces it once the next byte or the end arrives.)
            return "".join(out), data[i:]
        else:  # the longest start of a character that went wrong: one U+FFFD for all of it
            out.append(REPLACEMENT)
            i = j
    return "".join(out), b""


class StreamDecoder:
    """Bytes in, text out: ``push`` returns the text that is complete so far, ``flush`` ends the stream.

    >>> d = StreamDecoder()
    >>> d.push(b" \\xf0\\x9f"), d.push(b"\\x98\\x80!"), d.push(b"\\xe4"), d.flush()
    (' ', '😀!', '', '�')
    """

    def __init__(self) -> None:
        self._held = b""

    def push(self, data: bytes) -> str:
        """The text that ``data`` completes; the start of an unfinished character waits for the next push."""
        text, self._held = _decode(self._held + data, final=False)
        return text

    def flush(self) -> str:
        """The end of the stream: what is still held becomes U+FFFD, and the decoder starts afresh."""
        text, _ = _decode(self._held, final=True)
        self._held = b""
        return text
