"""The decoder of vocabularies that write a space as ``▁`` and keep ``<0xNN>`` byte tokens (SentencePiece, Gemma 4).

llama.cpp turns each id into its piece (a NORMAL token's text with ``▁`` read as a space, a BYTE token's one
byte, a CONTROL, UNKNOWN or USER_DEFINED token's text as it is), joins the bytes of every piece and only then
reads them as UTF-8, one U+FFFD for each maximal invalid sequence. ``tokenizers``' ``ByteFallback`` decoder
instead reads each run of byte tokens alone and gives one U+FFFD *per byte* of a run that is not valid UTF-8
(``<0x13> <0xE2>`` is ``"\\x13\\ufffd"`` in llama.cpp, ``"\\ufffd\\ufffd"`` there). The decoder built here
follows llama.cpp exactly, with the one decoder that reads the bytes of all tokens at once, ``ByteLevel``:

1. every token that is not a byte token gets a marker (a Unicode noncharacter that no token holds) in front,
   so that ``ByteLevel`` reads it as text, never as GPT-2's byte alphabet;
2. ``▁`` becomes a space (added tokens that hold ``▁`` are rewritten first so that theirs stay);
3. each byte token from ``<0x80>`` to ``<0xFF>`` becomes the character GPT-2's map gives that byte, and
   ``ByteFallback`` turns the ASCII ones (each valid alone) into their character;
4. ``ByteLevel`` joins the bytes of every token and reads them as UTF-8 as llama.cpp does; the markers go.

The price is one ``Replace`` step per high byte: decoding is about 40 times slower than with ``ByteFallback``
(tens of microseconds a token), still far below a model's time per token.

>>> from tokenizers import decoders
>>> d = decoder(["<0x13>", "<0xE2>", "\\u2581caf\\u00e9"], byte_texts={"<0x13>", "<0xE2>"}, raw=[])
>>> d.decode(["<0x13>", "<0xE2>", "\\u2581caf\\u00e9"])
'\\x13\\ufffd café'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..bytemap import BYTE_TO_CHAR

BYTE_TOKEN = r"<0x[0-9A-F]{2}>"
_BYTE_TOKEN = re.compile(BYTE_TOKEN)
_NONCHARACTERS = [chr(c) for c in range(0xFDD0, 0xFDF0)]


def free_marks(texts: Iterable[str], n: int = 2) -> list[str]:
    """``n`` noncharacters (U+FDD0...) that no text holds."""
    joined = "".join(texts)
    free = [c for c in _NONCHARACTERS if c not in joined]
    if len(free) < n:
        raise ValueError("every noncharacter U+FDD0..U+FDEF is in some token")
    return free[:n]


CLEAN_UP = ((" (?=[?!.,])", ""), (" ' ", "'"), (" (?='(?:[sm]|re|ve))", ""))  # gguftok.detokenize.clean_spaces


def clean_up_decoders() -> list[Any]:
    """llama.cpp's clean-up of spaces (``clean_spaces``: three passes over the joined text) as ``Replace`` steps,
    run after the decoder has joined every token into one string."""
    from tokenizers import Regex, decoders

    return [decoders.Replace(Regex(p), c) for p, c in CLEAN_UP]


def whole_token(text: str) -> str:
    """An Oniguruma pattern that matches exactly ``text``, as a whole token (a decoder sees one token at a time)."""
    return "\\A" + "".join(f"\\x{{{ord(c):X}}}" for c in text) + "\\z"


def decoder(texts: Iterable[str], byte_texts: Iterable[str], raw: Iterable[str], strip_first_space: bool = False,
            tail: Iterable[Any] = ()) -> Any:
    """The ``tokenizers`` decoder of a ``▁``-escaped vocabulary with byte tokens.

    ``texts`` are every token's text (to choose markers no token holds), ``byte_texts`` the texts of its byte
    tokens, ``raw`` the texts that llama.cpp renders as they are (CONTROL, UNKNOWN, USER_DEFINED) when they hold
    a ``▁``; ``strip_first_space`` drops one leading space of the whole text (SentencePiece's
    ``add_space_prefix``), ``tail`` are decoders run last (llama.cpp's clean-up of spaces)."""
    from tokenizers import Regex, decoders

    texts = list(texts)
    mark, keep = free_marks(texts)
    byte_texts = set(byte_texts)
    steps = [decoders.Replace(Regex(whole_token(t)), t.replace("\u2581", keep)) for t in raw if "\u2581" in t]
    # a token that is not a byte token but is spelled like one is text: marked by name
    steps += [decoders.Replace(Regex(whole_token(t)), mark + t) for t in texts
              if t.startswith("<0x") and t not in byte_texts and _BYTE_TOKEN.fullmatch(t)]
    steps.append(decoders.Replace(Regex(rf"\A(?!{BYTE_TOKEN}\z)"), mark))
    steps.append(decoders.Replace("\u2581", " "))
    for b in range(0x80, 0x100):
        name = f"<0x{b:02X}>"
        if name in byte_texts:
            steps.append(decoders.Replace(Regex(whole_token(name)), BYTE_TO_CHAR[b]))
    steps += [decoders.ByteFallback(), decoders.ByteLevel(), decoders.Replace(mark, "")]
    if any("\u2581" in t for t in raw):
        steps.append(decoders.Replace(keep, "\u2581"))
    if strip_first_space:
        steps.append(decoders.Strip(" ", 1, 0))
    steps += list(tail)
    return decoders.Sequence(steps)
