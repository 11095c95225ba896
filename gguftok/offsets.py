"""Which characters of the text each token covers: the offsets that highlighting and constrained decoding need.

:func:`token_offsets` gives, for each id of ``tok.encode(text, add_special, parse_special)``, the half-open span
``(start, end)`` of *characters* (indices into the Python ``str``) that the token stands for:

>>> from gguftok import Tokenizer
>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> tok.encode("Hello world", add_special=False), token_offsets(tok, "Hello world")
([259, 264], [(0, 5), (5, 11)])
>>> token_offsets(tok, "é!")              # é is two bytes, two tokens here: both cover it
[(0, 1), (0, 1), (1, 2)]

The rules, the same for every vocabulary:

- A token covers the input bytes its piece was made from; its span is every character one of those bytes
  belongs to. A token that holds only part of a character's UTF-8 bytes (a byte-fallback token, a byte-level
  piece of an emoji) covers that whole character, so neighbouring tokens may share it.
- Spans are in token order and never go backwards: each starts at or after the previous one's start.
- A special token read out of the text (``parse_special``, or a user-defined token) covers its own text.
  Whitespace an LSTRIP/RSTRIP special token swallows is covered by no token.
- An added BOS (WordPiece's CLS) covers the empty span ``(0, 0)``; an added EOS (WordPiece's SEP) covers
  ``(len(text), len(text))``.
- SentencePiece (and Gemma 4, Unigram): a ``▁`` that escapes a space covers that space. The ``▁`` the
  tokenizer adds in front of a fragment (``add_space_prefix``) covers nothing: a token made only of it gets
  an empty span where it stands. Unigram with ``remove_extra_whitespaces`` writes one ``▁`` before each word
  for the run of spaces before it: that ``▁`` covers the whole run (spaces after the last word are dropped,
  covered by nothing).
- WordPiece: a word's characters are lower-cased and stripped of accents one code point to one, so each maps
  back to the character it came from; a dropped character (an accent mark, a control character, whitespace)
  is covered by nothing; the ``▁`` the model puts before each word covers nothing; an unknown word
  (``[UNK]``) covers the whole word.
- Unigram: the precompiled charsmap rewrites the longest match at each position; every byte it writes
  covers the characters it read (``ﬁ`` -> ``f`` ``i``: both tokens cover ``ﬁ``; ``e`` + U+0301 -> ``é``: the
  token covers both). An unknown run covers the code points it stands for. Where the same ids could tile
  the normalised text in two ways (two unknown runs around a repeated token), the first unknown run is taken
  as short as the rest allows.

Characters that yield no token (swallowed whitespace, a WordPiece accent mark or U+FFFD, a byte-level byte the
vocabulary has no token for, which llama.cpp drops, a leading byte-order mark in PLaMo-2) are in no span.
Supported: byte-level BPE, Gemma 4, SentencePiece BPE, WordPiece, Unigram, RWKV and PLaMo-2 (every pinned
vocabulary); the ``whitespace``, ``hybriddna`` and ``test`` models raise ``NotImplementedError``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .detokenize import rwkv_unescape
from .models.plamo2 import BYTE_TYPE
from .models.spm import UTF8_LEN
from .models.wpm import preprocess
from .pretokenize.unicode import decode_for_text, nfd_first, to_lower
from .vocab import BYTE

if TYPE_CHECKING:
    from .models.ugm import UGMModel
    from .tokenizer import Tokenizer

Span = tuple[int, int]
_ESCAPED = "\u2581".encode()
_SPACE = b" \t\n\v\f\r"  # what an LSTRIP/RSTRIP special token swallows (C isspace)
_INSERTED = -1  # a byte of the model's input that stands for no input byte


def token_offsets(tok: Tokenizer, text: str, add_special: bool = False, parse_special: bool = False) -> list[Span]:
    """The character span of ``text`` each token of ``tok.encode(text, add_special, parse_special)`` covers
    (the rules are in the module's docstring)."""
    return encode_with_offsets(tok, text, add_special, parse_special)[1]


def encode_with_offsets(tok: Tokenizer, text: str, add_special: bool = False,
                        parse_special: bool = False) -> tuple[list[int], list[Span]]:
    """``(ids, spans)``: the ids of ``tok.encode(text, add_special, parse_special)`` and their character spans.

    The ids are rebuilt fragment by fragment beside their spans and checked against ``tok.encode``: a
    ``RuntimeError`` says so if they ever differ (the spans would then belong to other ids)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str (offsets are character positions), not {type(text).__name__}")
    v = tok.vocab
    if tok.model is None or v.model in ("whitespace", "hybriddna") or v.type == "test":
        raise NotImplementedError(f"token offsets are not worked out for a {v.model!r} ({v.type}) vocabulary")
    data = text.encode("utf-8", "surrogatepass")
    ids: list[int] = []
    spans: list[Span] = []  # byte spans until the end
    bos = eos = False
    if add_special:
        bos = eos = v.type == "wpm"  # WordPiece: CLS and SEP always
        if v.type in ("spm", "bpe", "ugm"):
            bos, eos = v.add_bos, v.add_eos
    if bos:
        ids.append(v.special["bos"])
        spans.append((0, 0))
    fragments = tok.fragments(data, parse_special)
    after_special = True  # SentencePiece's prefix space: before a fragment that starts the text or follows a special
    for frag, (start, end) in zip(fragments, _fragment_spans(tok, data, fragments), strict=True):
        if isinstance(frag, int):
            ids.append(frag)
            spans.append((start, end))
            after_special = True
            continue
        frag_ids, frag_spans = _raw_fragment(tok, data, start, end, after_special)
        ids += frag_ids
        spans += frag_spans
        after_special = False
    if eos:
        ids.append(v.special["sep" if v.type == "wpm" else "eos"])
        spans.append((len(data), len(data)))
    if ids != tok.encode(text, add_special, parse_special):
        raise RuntimeError("gguftok.offsets rebuilt other ids than Tokenizer.encode for this text: please report it")
    return ids, _to_characters(text, spans)


# ------------------------------------------------------------------------------------ special tokens
def _fragment_spans(tok: Tokenizer, data: bytes, fragments: Sequence) -> list[Span]:
    """The byte span of each fragment: a raw run's own, a special token's text where it stands.

    Between two raw runs stand the special texts in order, with only the whitespace an LSTRIP or RSTRIP
    token swallowed between them; each is found at the first place it starts after skipping such whitespace."""
    out: list[Span] = []
    pos = 0
    for frag in fragments:
        if not isinstance(frag, int):
            out.append((frag[0], frag[0] + frag[1]))
            pos = frag[0] + frag[1]
            continue
        piece = tok.vocab.texts[frag].encode("utf-8", "surrogateescape")
        at = pos
        while not data.startswith(piece, at) and at < len(data) and data[at] in _SPACE:
            at += 1
        if not data.startswith(piece, at):
            at = max(data.find(piece, pos), pos)
        out.append((at, at + len(piece)))
        pos = at + len(piece)
    return out


# -------------------------------------------------------------------------------------- raw fragments
def _raw_fragment(tok: Tokenizer, data: bytes, start: int, end: int,
                  after_special: bool) -> tuple[list[int], list[Span]]:
    """The ids and byte spans of one raw fragment ``data[start:end]``, by the vocabulary's family."""
    v, raw = tok.vocab, data[start:end]
    if v.type == "bpe":
        return _bpe(tok, raw, start)
    if v.type == "spm":
        model_input, source = _escape_spaces(raw, start, v.add_space_prefix and after_special)
        ids = tok.model.encode(model_input)
        return ids, _through(source, _tile(model_input, [_model_piece(tok, i) for i in ids]), start)
    if v.type == "wpm":
        return _wordpiece(tok, raw, start)
    if v.type == "ugm":
        model_input, source = _unigram_normalized(tok.model, raw, start)
        ids = tok.model.encode(raw)
        pieces = [None if i == tok.model.unk else _model_piece(tok, i) for i in ids]
        return ids, _through(source, _tile(model_input, pieces), start)
    ids = tok.model.encode(raw)
    if v.type == "rwkv":
        pieces = [None if i == tok.model.unk else rwkv_unescape(v.texts[i]) for i in ids]
        return ids, _shift(_tile(raw, pieces, unknown=lambda _s, _p: 1), start)
    # plamo2: a leading byte-order mark is dropped; an unknown code point is its bytes as byte tokens
    skip = 3 if raw.startswith("\ufeff".encode()) else 0
    return ids, _shift(_tile(raw[skip:], [_model_piece(tok, i) for i in ids]), start + skip)


def _model_piece(tok: Tokenizer, tid: int) -> bytes:
    """The bytes token ``tid`` matches in the model's input: its text (``▁`` kept), or the byte of a byte token."""
    text = tok.vocab.texts[tid]
    if tok.vocab.attrs[tid] & BYTE or (tok.vocab.type == "plamo2" and tok.vocab.types[tid] == BYTE_TYPE):
        return _byte_token(text)
    return text.encode("utf-8", "surrogateescape")


def _byte_token(text: str) -> bytes:
    """``<0x41>`` -> ``b"A"`` (a byte token whose text is not of that form is its text)."""
    try:
        return bytes([int(text[3:5], 16)]) if len(text) == 6 and text.startswith("<0x") else text.encode()
    except ValueError:
        return text.encode("utf-8", "surrogateescape")


def _shift(spans: list[Span], by: int) -> list[Span]:
    return [(a + by, b + by) for a, b in spans]


def _escape_spaces(raw: bytes, start: int, prefix: bool) -> tuple[bytes, list[tuple[int, int]]]:
    """``raw`` with each space as ``▁`` (and one ``▁`` in front if ``prefix``), and for each of its bytes the
    input byte range it stands for (``_INSERTED`` for the prefix)."""
    out = bytearray(_ESCAPED if prefix else b"")
    source = [(_INSERTED, _INSERTED)] * len(out)
    for k, b in enumerate(raw):
        at = (start + k, start + k + 1)
        if b == 0x20:
            out += _ESCAPED
            source += [at] * 3
        else:
            out.append(b)
            source.append(at)
    return bytes(out), source


def _tile(model_input: bytes, pieces: Sequence[bytes | None],
          unknown: Callable[[bytes, int], int] | None = None) -> list[Span]:
    """Where each piece stands in ``model_input``, which they tile in order. ``None`` is an unknown run: one
    code point or more (Unigram merges runs of unknown code points into one token); ``unknown(input, pos)``,
    if given, fixes its length instead. A run is first tried as short as possible, and made longer only if
    the pieces after it cannot tile the rest (each state is tried once)."""
    n, m = len(model_input), len(pieces)
    spans: list[Span] = [(0, 0)] * m
    runs: list[tuple[int, int, int]] = []  # (piece index, start, end) of each unknown run on the current path
    failed: set[tuple[int, int]] = set()  # (piece index, position) from which the rest cannot tile

    def step(pos: int) -> int:
        return unknown(model_input, pos) if unknown else min(UTF8_LEN[model_input[pos] >> 4], n - pos)

    k = pos = 0
    while True:
        if k == m and pos == n:
            return spans
        piece = pieces[k] if k < m else b""
        if k < m and (k, pos) not in failed:
            if piece is None and pos < n:
                end = pos + step(pos)
                runs.append((k, pos, end))
                spans[k] = (pos, end)
                k, pos = k + 1, end
                continue
            if piece and model_input.startswith(piece, pos):
                spans[k] = (pos, pos + len(piece))
                k, pos = k + 1, pos + len(piece)
                continue
        # a dead end: lengthen the last unknown run that can grow
        while runs:
            run, run_start, run_end = runs.pop()
            failed.add((run + 1, run_end))
            if unknown is None and run_end < n:
                k, pos = run + 1, run_end + step(run_end)
                runs.append((run, run_start, pos))
                spans[run] = (run_start, pos)
                break
        else:
            raise RuntimeError(f"gguftok.offsets: the {m} token pieces do not tile the model's input ({n} bytes)")


def _through(source: Sequence[tuple[int, int]], spans: Sequence[Span], start: int) -> list[Span]:
    """Spans of the model's input as input byte spans: from the first byte's source start to the last byte's
    source end; a span of inserted bytes only is empty, where the previous token ended (``start`` at first)."""
    out: list[Span] = []
    prev = start
    for a, b in spans:
        kept = [source[k] for k in range(a, b) if source[k][0] != _INSERTED]
        if kept:
            out.append((kept[0][0], kept[-1][1]))
            prev = kept[-1][1]
        else:
            out.append((prev, prev))
    return out


# ---------------------------------------------------------------------------------------- BPE
def _bpe(tok: Tokenizer, raw: bytes, start: int) -> tuple[list[int], list[Span]]:
    """Byte-level BPE and Gemma 4: the pre-tokenizer's words, each merged into symbols; a symbol is one token
    over its bytes, or byte-fallback tokens (one per byte with a token; the other bytes are dropped, as
    llama.cpp drops them)."""
    v, model = tok.vocab, tok.model
    source: list[tuple[int, int]] | None = None
    if v.escape_whitespaces:
        raw, source = _escape_spaces(raw, start, prefix=False)
    byte_level = model.byte_encode
    ids: list[int] = []
    spans: list[Span] = []
    pos = 0  # in raw (escaped)
    for word in tok.pre.words(decode_for_text(raw, "input")):
        if not word:
            continue
        spelled = model.spell(word)
        for sym in model.symbols(spelled):
            width = len(sym) if byte_level else len(sym.encode("utf-8", "surrogatepass"))
            tid = v.token_to_id.get(sym)
            if tid is not None:
                ids.append(tid)
                spans.append((pos, pos + width))
            else:
                for k, b in enumerate(sym.encode("utf-8", "surrogatepass")):
                    fallback = model._fallback[b]
                    if fallback is not None:
                        ids.append(fallback)  # byte-level: a byte of the symbol's spelling, for the whole symbol
                        spans.append((pos, pos + width) if byte_level else (pos + k, pos + k + 1))
            pos += width
    if source is None:
        return ids, _shift(spans, start)
    return ids, _through(source, spans, start)


# ---------------------------------------------------------------------------------------- WordPiece
def _wordpiece(tok: Tokenizer, raw: bytes, start: int) -> tuple[list[int], list[Span]]:
    """WordPiece: the words :func:`~gguftok.models.wpm.preprocess` makes, each character found back in the
    input (one code point to one), then the model's ids laid over ``▁`` + word."""
    v, model = tok.vocab, tok.model
    text = raw.decode("utf-8", "surrogatepass")
    where = []  # input byte range of each character of text
    at = start
    for c in text:
        size = len(c.encode("utf-8", "surrogatepass"))
        where.append((at, at + size))
        at += size
    ids = model.encode(raw)
    spans: list[Span] = []
    k = j = 0  # next id, next input character
    for word in preprocess(raw, v.lowercase, v.strip_accents):
        chars = []
        for w in word:
            while _wordpiece_char(ord(text[j]), v.lowercase, v.strip_accents) != ord(w):
                j += 1
            chars.append(where[j])
            j += 1
        model_input = _ESCAPED + word.encode("utf-8", "surrogatepass")
        source = [(_INSERTED, _INSERTED)] * 3 + [chars[i] for i, w in enumerate(word)
                                                 for _ in w.encode("utf-8", "surrogatepass")]
        if ids[k] == model.unk and not model_input.startswith(_model_piece(tok, ids[k])):
            spans.append((chars[0][0], chars[-1][1]))  # an unknown word: one [UNK] for all of it
            k += 1
            continue
        pieces, size = [], 0
        while size < len(model_input):
            pieces.append(_model_piece(tok, ids[k + len(pieces)]))
            size += len(pieces[-1])
        spans += _through(source, _tile(model_input, pieces), chars[0][0])
        k += len(pieces)
    return ids, spans


def _wordpiece_char(cp: int, lowercase: bool, strip_accents: bool) -> int:
    """The code point :func:`~gguftok.models.wpm.preprocess` writes for input code point ``cp``."""
    if strip_accents:
        cp = nfd_first(cp)
    return to_lower(cp) if lowercase else cp


# ---------------------------------------------------------------------------------------- Unigram
def _unigram_normalized(model: UGMModel, raw: bytes, start: int) -> tuple[bytes, list[tuple[int, int]]]:
    """:meth:`UGMModel.normalize <gguftok.models.ugm.UGMModel.normalize>` of ``raw``, with the input byte range
    of every byte it writes."""
    deepest, replace = model.user_defined.depth, model.charsmap.replacer(raw)
    pieces: list[tuple[bytes, tuple[int, int]]] = []  # what each step writes, and the input it read
    i = 0
    while i < len(raw):
        k = deepest(raw, i)
        written, used = (raw[i:i + k], k) if k else replace(i)
        pieces.append((written, (start + i, start + i + used)))
        i += used
    out, source = bytearray(), []
    spaces: tuple[int, int] | None = None  # the run of spaces a word's ▁ stands for (remove_extra_whitespaces)
    in_word = prefixed = False
    for written, read in pieces:
        for ch in written:
            if ch == 0x20:
                in_word = False
                if model.merge:
                    spaces = read if spaces is None else (spaces[0], read[1])
                else:
                    out += _ESCAPED
                    source += [read] * 3
                continue
            if not in_word:
                in_word = True
                if model.merge or (model.prepend and not prefixed):
                    out += _ESCAPED
                    source += [spaces or (_INSERTED, _INSERTED)] * 3
                    prefixed = True
                spaces = None
            out.append(ch)
            source.append(read)
    if bytes(out) != model.normalize(raw):
        raise RuntimeError("gguftok.offsets: the Unigram alignment differs from UGMModel.normalize: please report it")
    return bytes(out), source


# ---------------------------------------------------------------------------------------- characters
def _to_characters(text: str, spans: Sequence[Span]) -> list[Span]:
    """Byte spans of ``text``'s UTF-8 (surrogates as 3 bytes) as character spans: a span covers every character
    one of its bytes belongs to; an empty span stays empty, at the character its byte offset starts."""
    char_of = []  # byte offset -> index of the character it belongs to
    for i, c in enumerate(text):
        char_of += [i] * len(c.encode("utf-8", "surrogatepass"))
    char_of.append(len(text))
    return [(char_of[a], char_of[b - 1] + 1) if b > a else (char_of[a], char_of[a]) for a, b in spans]
