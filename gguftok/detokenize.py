"""From ids back to bytes: token pieces, ``llama_detokenize``'s rules, and its space clean-up.

Each token has a *piece*, the bytes it stands for: a byte-level BPE token's characters mapped back through
GPT-2's byte map, a SentencePiece token with ``▁`` turned back into a space, a ``<0x41>`` byte token as
that one byte, a control token as nothing (or its raw text when asked to render specials).
``detokenize`` joins the pieces, drops the leading space the tokenizer added (only for the first token),
removes a leading BOS and trailing EOS when asked, and, for most BPE vocabularies, tidies spaces before
punctuation and around apostrophes, exactly as llama.cpp does, on bytes.

>>> clean_spaces(b"Hello , world ! I ' m here . don ' t 's")
b"Hello, world! I'm here. don't's"
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable
from typing import Any

import numpy as np

from .bytemap import CHAR_TO_BYTE
from .pretokenize.unicode import MAX_CODE_POINT, decode_lax
from .vocab import BYTE, CONTROL, NORMAL, UNKNOWN, USER_DEFINED, Vocab

_SPECIAL = UNKNOWN | CONTROL
_RAW = UNKNOWN | CONTROL | USER_DEFINED
_TO_LATIN1 = {ord(c): chr(b) for c, b in CHAR_TO_BYTE.items()}  # GPT-2 character -> its byte, as latin-1
_MAP_CHARS = dict.fromkeys(map(ord, CHAR_TO_BYTE))  # deletes every GPT-2 character


def _raw(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


# ------------------------------------------------------------------------------------------ token ids
_NOT_IDS = (str, bytes, bytearray, memoryview)  # iterable, but a text: never a list of ids


def as_token_id(value: Any, position: int | None = None, where: str = "") -> int:
    """``value`` as a token id: an ``int``, or an integer that says it is one (a NumPy integer, anything with
    ``__index__``). A bool, a float, a string or anything else is a ``TypeError`` naming ``position``."""
    if type(value) is int:
        return value
    if not isinstance(value, (bool, np.bool_)):
        try:
            return operator.index(value)
        except TypeError:
            pass
    at = "" if position is None else f" at position {position}{where}"
    raise TypeError(f"the token id{at} is {type(value).__name__} {value!r:.40}, not an int")


def token_ids(ids: Iterable[Any]) -> list[int]:
    """``ids`` as a list of ints (see :func:`as_token_id`), or a ``TypeError`` naming the first position that holds
    something else. A list of ints costs one pass over the element types; a NumPy array, a check of its dtype."""
    if isinstance(ids, _NOT_IDS):
        raise TypeError(f"ids must be a sequence of token ids (ints), not {type(ids).__name__}")
    if isinstance(ids, np.ndarray):
        if ids.ndim == 1 and (ids.dtype.kind in "iu" or ids.size == 0):
            return ids.tolist() if ids.size else []
        if ids.ndim != 1:
            raise TypeError(f"ids must be a sequence of token ids (ints), not a {ids.ndim}-dimensional array")
        as_token_id(ids[0], 0)  # raises: a float or bool array has no int at position 0
    try:
        out = list(ids)
    except TypeError:
        raise TypeError(f"ids must be a sequence of token ids (ints), not {type(ids).__name__}") from None
    if not set(map(type, out)) <= {int}:  # bool is a type of its own, so True is caught here too
        for k, value in enumerate(out):
            if type(value) is not int:
                out[k] = as_token_id(value, k)
    return out


def gpt2_decode(text: str) -> bytes:
    """A byte-level token's bytes (``llama_decode_text``), including its ``[UNK_BYTE_0x..]`` for strays."""
    if not text.translate(_MAP_CHARS):
        return text.translate(_TO_LATIN1).encode("latin-1")
    out = bytearray()
    for cp in decode_lax(_raw(text)):
        if cp > MAX_CODE_POINT:
            raise ValueError(f"token text {text!r} holds a code point past U+10FFFF; llama.cpp aborts on it")
        ch = chr(cp)
        if ch in CHAR_TO_BYTE:
            out.append(CHAR_TO_BYTE[ch])
        else:
            utf8 = ch.encode("utf-8", "surrogatepass")
            out += b"[UNK_BYTE_0x" + utf8.hex().encode() + _raw(text) + b"]"
    return bytes(out)


def _byte_of(text: str) -> bytes:
    """``<0xXX>`` -> that byte (``strtol`` of characters 3-4, base 16: non-hex input gives what it gives)."""
    digits = text[3:5]
    value = 0
    for c in digits:  # strtol: stop at the first character that is not a hex digit
        if c not in "0123456789abcdefABCDEF":
            break
        value = value * 16 + int(c, 16)
    return bytes([value & 0xFF])


def rwkv_unescape(text: str) -> bytes:
    """An RWKV token's bytes: ``\\\\t \\\\n \\\\r``, ``\\\\xhh`` (lower-case hex only, upper case mis-read as
    llama.cpp does), ``\\\\c`` for any other ``c``. A text without a backslash is its own bytes (the loop would
    copy every byte of it).

    >>> rwkv_unescape("a\\\\tb"), rwkv_unescape("\\\\x41\\\\\\\\"), rwkv_unescape("héllo")
    (b'a\\tb', b'A\\\\', b'h\\xc3\\xa9llo')
    """
    raw = _raw(text)
    if b"\\" not in raw:
        return raw
    out = bytearray()
    escaping = False
    hex_left = hex_acc = 0
    for c in raw:
        if hex_left:
            value = (c - 0x61 + 10) if c >= 0x61 else (c - 0x30)
            hex_acc = ((hex_acc << 4) + value) & 0xFF
            hex_left -= 1
            if hex_left == 0:
                out.append(hex_acc)
                hex_acc = 0
        elif escaping:
            escaping = False
            if c == 0x78:  # x
                hex_left = 2
            else:
                out.append({0x74: 9, 0x6E: 10, 0x72: 13}.get(c, c))
        elif c == 0x5C:
            escaping = True
        else:
            out.append(c)
    return bytes(out)


def cached_piece(vocab: Vocab, token_id: int) -> bytes:
    """The piece llama.cpp caches at load time for a token (rendered as with ``special=True``)."""
    text = vocab.texts[token_id]
    attr = vocab.attrs[token_id]
    vtype = vocab.type
    if vtype in ("spm", "wpm", "ugm", "bpe"):
        if attr & _RAW:
            return _raw(text)
        if attr & NORMAL:
            if vtype != "bpe" or vocab.escape_whitespaces:
                return _raw(text).replace("▁".encode(), b" ")
            return gpt2_decode(text)
        if attr & BYTE:
            return _byte_of(text)
        return b""
    if vtype == "rwkv":
        return rwkv_unescape(text)
    if vtype == "test":
        return f"{token_id:x}".encode()
    if vtype == "plamo2":
        raw = _raw(text)
        if attr & BYTE and len(raw) == 6 and raw.startswith(b"<0x") and raw.endswith(b">"):
            hx = raw[3:5]
            if all(c in b"0123456789abcdefABCDEF" for c in hx):
                return bytes([int(hx, 16)])
        return raw
    return b""


class Pieces:
    """``llama_token_to_piece`` for every id, computed on first use and kept."""

    def __init__(self, vocab: Vocab) -> None:
        self.vocab = vocab
        self._cache: list[bytes | None] = [None] * vocab.n_vocab
        # piece(i, special) for every id, filled by join on first use (a control token is b"" when not special)
        self._special: list[bytes | None] = [None] * vocab.n_vocab
        self._plain: list[bytes | None] = [None] * vocab.n_vocab

    def check(self, token_id: int) -> int:
        """``token_id`` as an int: an ``IndexError`` for an id out of range, a ``TypeError`` for something that
        is no int (see :func:`as_token_id`)."""
        if type(token_id) is not int:
            token_id = as_token_id(token_id)
        if not 0 <= token_id < self.vocab.n_vocab:
            raise IndexError(f"token id {token_id} is out of range: the vocabulary has {self.vocab.n_vocab} "
                             f"tokens (ids 0 to {self.vocab.n_vocab - 1})")
        return token_id

    def join(self, ids: Iterable[int], special: bool = False) -> bytes:
        """The pieces of ``ids`` joined, as :meth:`piece` gives them: one C-level join over a table of
        pieces (each computed on first use), instead of a call per id."""
        return self._join(token_ids(ids), special)

    def _join(self, ids: list[int], special: bool) -> bytes:
        """:meth:`join` of ids already checked by :func:`token_ids`."""
        if not ids:
            return b""
        if not 0 <= min(ids) <= max(ids) < self.vocab.n_vocab:
            return b"".join(self.piece(i, special) for i in ids)  # raises for the first id out of range
        table = self._special if special else self._plain
        if None in (parts := [table[i] for i in ids]):
            for i in set(ids):
                if table[i] is None:
                    table[i] = self.piece(i, special)
            parts = [table[i] for i in ids]
        return b"".join(parts)

    def every(self, special: bool = False) -> list[bytes]:
        """The piece of every id, in id order: ``[piece(i, special) for i in range(n_vocab)]`` in one pass over the
        tables :meth:`join` reads, which keep them.

        >>> from gguftok import Tokenizer
        >>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
        >>> tok.pieces.every()[256:259] == [tok.token_to_piece(i) for i in range(256, 259)]
        True
        """
        table = self._special if special else self._plain
        if None in table:
            v, cache = self.vocab, self._cache
            attrs = v.attrs
            for i, p in enumerate(table):
                if p is None:
                    if not special and attrs[i] & _SPECIAL:
                        table[i] = b""
                        continue
                    p = cache[i]
                    if p is None:
                        p = cache[i] = cached_piece(v, i)
                    table[i] = p
        return list(table)

    def piece(self, token_id: int, special: bool = False, lstrip: int = 0) -> bytes:
        """The bytes of one token; ``special=False`` renders CONTROL and UNKNOWN tokens as nothing."""
        token_id = self.check(token_id)
        if not special and self.vocab.attrs[token_id] & _SPECIAL:
            return b""
        p = self._cache[token_id]
        if p is None:
            p = self._cache[token_id] = cached_piece(self.vocab, token_id)
        if lstrip:
            k = 0
            while k < lstrip and k < len(p) and p[k] == 0x20:
                k += 1
            p = p[k:]
        return p


def detokenize(pieces: Pieces, ids: Iterable[int], remove_special: bool = False,
               unparse_special: bool = False) -> bytes:
    """``llama_detokenize``: the bytes of ``ids`` (which need not be valid UTF-8). Ids are ints (NumPy integers
    too); anything else is a ``TypeError`` naming its position."""
    v = pieces.vocab
    ids = token_ids(ids)
    if v.type == "none":
        return b""
    remove_space = v.add_space_prefix
    if remove_special and v.add_bos and ids and ids[0] == v.special["bos"]:
        remove_space = False
        ids = ids[1:]
    if remove_special and v.add_eos and ids and ids[-1] == v.special["eos"]:
        ids = ids[:-1]
    out = b""
    if remove_space and ids:  # only the first piece loses its leading space
        out = pieces.piece(ids[0], special=unparse_special, lstrip=1)
        ids = ids[1:]
    out += pieces._join(ids, unparse_special)
    return clean_spaces(out) if v.clean_spaces else out


# clean_spaces's three passes as byte patterns. Each pass reads the bytes as they were before it (the loop
# writes only behind its read position), so a pass is a substitution over its input:
_SPACE_BEFORE_PUNCT = re.compile(rb" (?=[?!.,])")  # 1: " ?", " !", " .", " ," lose the space
_SPACED_QUOTE = re.compile(rb" ' ")  # 2: " ' " -> "'", left to right without overlap: the loop's NUL,
# written over the space after a match, keeps that space from starting the next one ("a ' ' b" -> "a'' b")
_SPACE_BEFORE_SUFFIX = re.compile(rb" (?='(?:[sm]|re|ve))")  # 3: " 's", " 'm", " 're", " 've" lose the space


def clean_spaces(data: bytes) -> bytes:
    """llama.cpp's three in-place passes over the bytes (ported literally as :func:`clean_spaces_loop`), as
    three substitutions; a test holds them to the loop."""
    data = _SPACE_BEFORE_PUNCT.sub(b"", data)
    data = _SPACED_QUOTE.sub(b"'", data)
    return _SPACE_BEFORE_SUFFIX.sub(b"", data)


def clean_spaces_loop(data: bytes) -> bytes:
    """llama.cpp's three in-place passes over the bytes, ported literally (the NUL written by pass 2 is read
    back by pass 2 itself, which is why ``"a ' ' b"`` becomes ``"a'' b"``)."""
    t = bytearray(data)
    # pass 1: " ?", " !", " .", " ," lose the space
    n = len(t)
    k = 1 if n else 0
    for i in range(1, n):
        x = t[i]
        if t[i - 1] == 0x20 and x in b"?!.,":
            k -= 1
        t[k] = x
        k += 1
    # pass 2: " ' " -> "'"
    n = k
    k = 1 if n else 0
    i = 1
    while i < n:
        x = t[i]
        if x == 0x27 and i + 1 < n and t[i - 1] == 0x20 and t[i + 1] == 0x20:
            k -= 1
            i += 1
            t[i] = 0
        t[k] = x
        k += 1
        i += 1
    # pass 3: " 's", " 'm", " 're", " 've" lose the space (" 't", " 'd", " 'll" keep it)
    n = k
    k = 1 if n else 0
    for i in range(1, n):
        x = t[i]
        if t[i - 1] == 0x20 and x == 0x27 and i + 1 < n and (
                t[i + 1] in b"sm" or (i + 2 < n and bytes(t[i + 1:i + 3]) in (b"re", b"ve"))):
            k -= 1
        t[k] = x
        k += 1
    return bytes(t[:k])
