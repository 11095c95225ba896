"""Tokens that their own text does not encode to: the raw material of "glitch tokens", and the trailing-space pitfall.

A vocabulary holds tokens that encoding a text never, or hardly ever, produces: a merge that the pre-tokenizer
never lets happen (``"Ġ("`` when the pre-tokenizer cuts the space off), a single byte of a character, a word
that a longer merge always swallows. A model sees such a token rarely in training, if at all. :func:`unreachable`
finds every one whose own text, encoded alone, does not give back exactly that token:

>>> from gguftok import Tokenizer
>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> found = check_reachability(tok)
>>> found.counts()                       # byte 0x80 alone is no text: it is only ever part of a character
{'part of a character': 128}
>>> found.unreachable[0]
Unreachable(id=128, text='Ģ', piece=b'\x80', encodes_to=[239, 191, 189], reason='part of a character')
>>> trailing_space_ids(tok, ["Hello"])   # "Hello", "Hello ", " Hello": a space of its own, 32
[('Hello', [259], [259, 32], [32, 259])]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .vocab import BYTE, CONTROL, NORMAL, UNKNOWN, UNUSED, USER_DEFINED

if TYPE_CHECKING:
    from .tokenizer import Tokenizer

_NOT_CONSIDERED = CONTROL | USER_DEFINED | UNUSED | BYTE | UNKNOWN
# why a token's text encodes to something else, in the order they are tested
PART_OF_A_CHARACTER = "part of a character"
NOT_SPELLED = "not a byte-level spelling"
SPECIAL_TAKES_IT = "a special token takes its text"
PRE_TOKENIZER_CUTS = "cut by the pre-tokenizer"
ENCODES_OTHERWISE = "encodes to other tokens"
REASONS = (PART_OF_A_CHARACTER, NOT_SPELLED, SPECIAL_TAKES_IT, PRE_TOKENIZER_CUTS, ENCODES_OTHERWISE)


def considered(tok: Tokenizer) -> list[int]:
    """The ids :func:`unreachable` examines: every token whose final attributes (after llama.cpp's load-time
    rewrites) include NORMAL and none of CONTROL, USER_DEFINED, UNUSED, BYTE or UNKNOWN. In SentencePiece,
    WordPiece and Unigram vocabularies, only those whose text starts with ``▁`` (a word's first piece): these
    tokenizers put ``▁`` before every fragment or word, so a piece without it never starts a text, and
    encoding it alone says nothing about it."""
    v = tok.vocab
    word_start_only = v.type in ("spm", "wpm", "ugm")
    return [i for i, a in enumerate(v.attrs) if a & NORMAL and not a & _NOT_CONSIDERED
            and (not word_start_only or v.texts[i].startswith("\u2581"))]


def piece_text(tok: Tokenizer, token_id: int) -> bytes:
    """The text that should encode to ``token_id`` alone: its piece (``llama_token_to_piece``, without the
    detokenizer's space clean-up); where the vocabulary adds a space prefix (SentencePiece, Unigram), without
    the one leading space the tokenizer will put back."""
    piece = tok.token_to_piece(token_id)
    if tok.vocab.add_space_prefix and piece.startswith(b" ") and len(piece) > 1:
        return piece[1:]
    return piece


@dataclass(frozen=True)
class Unreachable:
    """One token whose text encodes to something else: ``encodes_to`` are the ids, ``reason`` one of ``REASONS``."""

    id: int
    text: str
    piece: bytes
    encodes_to: list[int]
    reason: str


@dataclass
class Reachability:
    """What :func:`check_reachability` found for one vocabulary."""

    considered: int
    unreachable: list[Unreachable] = field(default_factory=list)

    @property
    def ids(self) -> list[int]:
        return [u.id for u in self.unreachable]

    def counts(self) -> dict[str, int]:
        """How many unreachable tokens for each reason (only reasons that occur, in ``REASONS`` order)."""
        c = Counter(u.reason for u in self.unreachable)
        return {r: c[r] for r in REASONS if c[r]}

    def summary(self) -> dict[str, int]:
        """``{"considered": n, "unreachable": m, <reason>: k, ...}``: one row of :func:`counts`."""
        return {"considered": self.considered, "unreachable": len(self.unreachable), **self.counts()}


def check_reachability(tok: Tokenizer, ids: Iterable[int] | None = None, *, workers: int = 1) -> Reachability:
    """Encode the :func:`piece_text` of each id (default: :func:`considered`) with ``add_special=False`` and
    keep those that do not give back ``[id]``, with why.

    The texts go through :meth:`Tokenizer.encode_batch <gguftok.Tokenizer.encode_batch>`; ``workers`` as there.
    On Qwen2 (151,642 tokens considered) one process takes about 2-3 s, and two workers on two cores are
    slower (each worker loads the vocabulary and every answer is sent back). The texts pass through the
    tokenizer's word cache, which they fill with words no text of yours holds.
    """
    ids = considered(tok) if ids is None else list(ids)
    pieces = [piece_text(tok, i) for i in ids]
    encoded = tok.encode_batch(pieces, add_special=False, workers=workers)
    found = [Unreachable(i, tok.vocab.texts[i], p, e, reason(tok, p))
             for i, p, e in zip(ids, pieces, encoded, strict=True) if e != [i]]
    return Reachability(len(ids), found)


def unreachable(tok: Tokenizer, *, workers: int = 1) -> list[int]:
    """The ids of the :func:`considered` tokens that ``tok.encode(piece_text, add_special=False)`` does not give
    back alone (see :func:`check_reachability` for what each encodes to, and why)."""
    return check_reachability(tok, workers=workers).ids


def reason(tok: Tokenizer, piece: bytes) -> str:
    """Why ``piece`` does not encode to the one token it is the text of: one of ``REASONS``, tested in order."""
    v = tok.vocab
    try:
        text = piece.decode("utf-8")
    except UnicodeDecodeError:
        return PART_OF_A_CHARACTER
    # a byte-level token whose stored text is no GPT-2 spelling has the piece [UNK_BYTE_0x..] (valid UTF-8)
    if v.type == "bpe" and tok.model.byte_encode and b"[UNK_BYTE_0x" in piece:
        return NOT_SPELLED
    if any(isinstance(f, int) for f in tok.fragments(piece)):
        return SPECIAL_TAKES_IT
    if tok.pre is not None and len(tok.words(text)) > 1:
        return PRE_TOKENIZER_CUTS
    return ENCODES_OTHERWISE


def counts(toks: Mapping[str, Tokenizer], *, workers: int = 1) -> dict[str, dict[str, int]]:
    """``{vocabulary: {"considered": n, "unreachable": m, <reason>: k, ...}}`` for many vocabularies."""
    return {name: check_reachability(tok, workers=workers).summary() for name, tok in toks.items()}


def trailing_space_ids(tok: Tokenizer, words: Sequence[str]) -> list[tuple[str, list[int], list[int], list[int]]]:
    """For each word: the ids of ``word``, ``word + " "`` and ``" " + word`` (``add_special=False``).

    A prompt that ends in a space ends in a token the model rarely saw there: in text, the space usually
    starts the next word (``" world"`` is one token), so the model has to continue after a lone space."""
    return [(w, tok.encode(w, add_special=False), tok.encode(w + " ", add_special=False),
             tok.encode(" " + w, add_special=False)) for w in words]
