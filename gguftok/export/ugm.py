"""Unigram (``tokenizer.ggml.model = "t5"``: T5, XLM-R, nomic-bert-moe) as a ``tokenizers`` pipeline.

llama.cpp (``llm_tokenizer_ugm``) runs three rules on each raw fragment, and each becomes stages here:

**The character map.** At each position the longest key of ``tokenizer.ggml.precompiled_charsmap`` that
starts there is replaced by its value, else one code point is copied, and the scan goes on after it.
``tokenizers``' ``Precompiled`` reads the same map otherwise: per grapheme cluster, the *shortest* key that
starts the cluster replaces the whole cluster, and a cluster of six bytes or more goes code point by code
point (``"e\\u0304\\u0300"`` is one cluster, ``ē``, where llama.cpp gives ``ḕ``; ``"🅉\\u0301"`` goes by code
points to ``Z\\u0301``, where llama.cpp gives ``Ź``). The map's keys of several code points are SentencePiece's
NFKC compositions: each one's value is the NFC of its code points each mapped alone (checked at export), so:

1. ``Replace`` puts a mark (``U``, a control character the map deletes) after each *unit* of llama.cpp's scan,
   found by one regex with ``\\K``: the longest key of several code points (a trie of them, its equal
   branches merged into classes), else one code point;
2. ``Replace`` puts a second such mark (``S``) wherever two code points could be one grapheme cluster
   (:data:`CLUSTER_EDGES`), so that each is a cluster alone (a control character is always one) and
   ``Precompiled`` maps each one alone, as llama.cpp does outside the keys of several code points; ``S`` is
   deleted by the map, ``U`` is kept (the map is given a value for it, :func:`with_value`);
3. ``NFC`` composes each unit (a unit mark is a starter that composes with nothing, so no composition crosses
   units), and the unit marks go.

A control character the map deletes is a unit alone in llama.cpp too, so that one in the text that is also a
mark is read just as llama.cpp reads it.

**The spaces.** The map writes tabs and newlines (and more) as spaces; then every run of non-spaces gets a
``▁`` in front and the spaces go (``remove_extra_whitespaces``), or every space becomes ``▁`` and the first
run gets one more (``add_space_prefix``): ``Replace`` steps and ``Prepend`` (``tokenizers`` normalizes each
piece between two added tokens alone, as llama.cpp each fragment).

**The model.** Viterbi over the normalised text, a user-defined token scoring 0 and an unknown code point
``min score - 10`` (in float), consecutive unknowns fused into one: ``tokenizers``' ``Unigram`` does the same
sums in the same order with the same strict comparisons, over every token of its vocabulary and with the
minimum over all of them. So the tokens that llama.cpp's trie lacks must not be matched, and must not lower
the minimum:

- an added one (control, unknown: ``<s>``, ``<unk>``) keeps its text, since an added token takes the model's
  id for its text; a character of it (``<``) is written as a control character the map deletes, both in the
  normalised text (a last ``Replace``) and in every other token (:func:`escapes`), so no text reaches it;
- the others (byte and undefined ones, and the unused ones no best path can take, :func:`dead_unused`) are
  renamed to a text with a space, which no normalised text holds;
- all of them get the minimum score of the normal tokens.

The decoder writes the escaped character back, renders a renamed token as nothing, reads ``▁`` as a space and
strips the first token's one (``Metaspace``).

>>> from gguftok import Tokenizer
>>> tok = Tokenizer.from_gguf("data/vocab/ggml-vocab-nomic-bert-moe.gguf")
>>> st = stages(tok)
>>> st.normalizer.normalize_str("  ＡＢＣ \\t e\\u0304\\u0300!") == "\\u2581ABC\\u2581\\u1e15!"
True
>>> [d.stage for d in st.differences]
['decoder']
"""

from __future__ import annotations

import struct
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import numpy as np

from ..vocab import BYTE, CONTROL, NORMAL, UNKNOWN, UNUSED, USER_DEFINED
from .common import Difference, Stages

SPACE = "\u2581"
ANY = "[\\s\\S]"
# control characters a SentencePiece map deletes: the marks are taken from them
_MARK_CANDIDATES = [chr(c) for c in (*range(0x01, 0x09), *range(0x0E, 0x20), 0x7F)]
_DEAD = " \x01"  # a renamed token's text starts so: a space, which no normalised text holds
_MAX_KEY = 64  # bytes: a longer key means the array has a cycle


class CharsmapError(ValueError):
    """The character map is not one the pipeline can follow (the message says why)."""


# ------------------------------------------------------------------------------------------ the map
def _base(u: int) -> int:
    return ((u >> 10) << ((u & 0x200) >> 6)) & 0xFFFFFFFF


def _parse(blob: bytes) -> tuple[list[int], bytes]:
    (size,) = struct.unpack_from("<I", blob)
    if size + 4 >= len(blob) or size % 4:
        raise CharsmapError("the XCDA size is out of the map's bounds")
    return list(struct.unpack_from(f"<{size // 4}I", blob, 4)), blob[4 + size:]


def charsmap_keys(blob: bytes) -> dict[bytes, bytes]:
    """Every key of a precompiled character map and its replacement, by a walk of the whole XCDA. Raises
    :class:`CharsmapError` where llama.cpp's walk would abort (an index out of the array) or a key never ends.

    A walk in node ``n`` reads byte ``c`` at unit ``n ^ c``, which must carry the label ``c``: so the children
    of every node are found at once, each labelled unit ``x`` being a child of ``x ^ label``.

    >>> charsmap_keys(with_value(_ONE_KEY, b"b", "c"))
    {b'a': b'x', b'b': b'c'}
    """
    nodes, replacements = _parse(blob)
    size = len(nodes)
    units = np.asarray(nodes, dtype=np.int64)
    labels = units & 0x800000FF
    x = np.flatnonzero((labels >= 1) & (labels <= 0xFF))  # the walk stops at a NUL byte
    parent = x ^ labels[x]
    order = np.argsort(parent, kind="stable")
    x, parent = x[order].tolist(), parent[order].tolist()
    children: dict[int, list[int]] = {}
    for p, c in zip(parent, x, strict=True):
        children.setdefault(p, []).append(c)
    keys: dict[bytes, bytes] = {}
    stack = [(_base(nodes[0]), b"")]
    while stack:
        node, prefix = stack.pop()
        if len(prefix) > _MAX_KEY:
            raise CharsmapError("a key longer than 64 bytes: the array has a cycle")
        if (node | 0xFF) - (node & 0xFF == 0xFF) >= size:
            raise CharsmapError(f"the walk after {prefix!r} can leave the array (llama.cpp aborts)")
        for at in children.get(node, ()):
            u = nodes[at]
            child = at ^ _base(u)
            key = prefix + bytes([u & 0xFF])
            if (u >> 8) & 1:
                if child >= size:
                    raise CharsmapError(f"the value of {key!r} is out of the array (llama.cpp aborts)")
                offset = nodes[child] & 0x7FFFFFFF
                end = replacements.find(b"\0", offset)
                if offset >= len(replacements) or end < 0:
                    raise CharsmapError(f"the replacement of {key!r} is out of the map (llama.cpp aborts)")
                keys[key] = replacements[offset:end]
            stack.append((child, key))
    return dict(sorted(keys.items()))


@lru_cache(maxsize=4)
def _map_keys(blob: bytes) -> dict[bytes, bytes]:
    """:func:`charsmap_keys` once per map, for this package's readers (which do not change the dict)."""
    return charsmap_keys(blob)


def with_value(blob: bytes, key: bytes, value: str) -> bytes:
    """``blob`` with the one-byte ``key`` (a key of the map) replaced by ``value``: its node is pointed at a
    new value unit past the end of the array (a value unit is shared between keys with one value), at a
    multiple of 256 followed by 255 empty units, so that a walk on from it stays in the array and stops.

    >>> charsmap_keys(with_value(with_value(_ONE_KEY, b"b", "y"), b"b", "z"))[b"b"]
    b'z'
    """
    nodes, replacements = _parse(blob)
    x = _base(nodes[0]) ^ key[0]
    u = nodes[x]
    if len(key) != 1 or x >= len(nodes) or u & 0x800000FF != key[0] or not (u >> 8) & 1:
        raise CharsmapError(f"{key!r} is not a one-byte key of the map")
    at = -(-len(nodes) // 256) * 256
    base = x ^ at
    if base >= 1 << 21:
        raise CharsmapError("the map is too large to take a new value")
    nodes[x] = base << 10 | (u & 0x1FF)  # the label and the leaf bit, an unshifted base
    nodes += [0] * (at - len(nodes)) + [0x80000000 | len(replacements)] + [0] * 255
    return struct.pack(f"<I{len(nodes)}I", 4 * len(nodes), *nodes) + replacements + value.encode() + b"\0"


def _one_key() -> bytes:
    """A map with the keys ``a -> x`` and ``b -> x`` (one shared value unit), for the doctests."""
    # root 0 (base 0x100); 'a' at 0x100 ^ 0x61, 'b' at 0x100 ^ 0x62, both leaves whose base leads to unit 0x200
    nodes = [0] * 0x300
    nodes[0] = 0x100 << 10
    for c in (0x61, 0x62):
        x = 0x100 ^ c
        nodes[x] = ((x ^ 0x200) << 10) | 0x100 | c
    nodes[0x200] = 0x80000000
    return struct.pack(f"<I{len(nodes)}I", 4 * len(nodes), *nodes) + b"x\0"


_ONE_KEY = _one_key()


# ------------------------------------------------------------------------------------ the unit regex
def char_class(chars: Iterable[str]) -> str:
    """An Oniguruma class of ``chars``, runs of code points as ranges.

    >>> print(char_class("abcx"))
    [\\x{61}-\\x{63}\\x{78}]
    """
    cps = sorted(set(map(ord, chars)))
    parts, at = [], 0
    while at < len(cps):
        end = at
        while end + 1 < len(cps) and cps[end + 1] == cps[end] + 1:
            end += 1
        parts.append(f"\\x{{{cps[at]:X}}}" + (f"-\\x{{{cps[end]:X}}}" if end > at else ""))
        at = end + 1
    return "[" + "".join(parts) + "]"


def trie_pattern(keys: Iterable[str]) -> str:
    """A regex that matches the longest of ``keys`` (each of two code points or more) at a position: their
    trie, each node's children with the same subpattern merged into one class.

    >>> print(trie_pattern(["ab", "abc", "xb", "xbc"]))
    [\\x{61}\\x{78}]\\x{62}(?:\\x{63})?
    """
    trie: dict = {}
    for key in keys:
        node = trie
        for ch in key:
            node = node.setdefault(ch, {})
        node[""] = {}

    def pattern(node: dict) -> str:
        groups: dict[str, list[str]] = {}
        for ch, child in node.items():
            if ch:  # a leaf (the most of them) without a call
                groups.setdefault("" if len(child) == 1 and "" in child else pattern(child), []).append(ch)
        if not groups:
            return ""
        alts = [(char_class(chs) if len(chs) > 1 else f"\\x{{{ord(chs[0]):X}}}") + sub
                for sub, chs in sorted(groups.items(), key=lambda g: min(g[1]))]
        body = "(?:" + "|".join(alts) + ")" if len(alts) > 1 or "" in node else alts[0]
        return body + "?" if "" in node else body

    return pattern(trie)


def unit_pattern(keys: list[str]) -> str:
    """The regex of one unit of llama.cpp's scan, ended by ``\\K`` (the match is the place after it): the longest
    key of several code points (only tried where the next code point can continue one), else one code point."""
    if not keys:
        return f"{ANY}\\K"
    second = char_class({k[1] for k in keys})
    return f"(?:(?={ANY}{second}){trie_pattern(keys)}|{ANY})\\K"


# ------------------------------------------------------------------------------------- the normalizer
@lru_cache(maxsize=1)
def _nfc_suspects() -> list[int]:
    """The code points NFC may change alone: those Python's NFC changes, and those its Unicode does not know in
    the planes where a later Unicode has put characters (0 to 3 and 14; the others are unassigned or private)."""
    out = []
    for plane in (0, 1, 2, 3, 14):
        for c in range(plane << 16, (plane + 1) << 16):
            if not 0xD800 <= c < 0xE000:
                ch = chr(c)
                if unicodedata.category(ch) == "Cn" or not unicodedata.is_normalized("NFC", ch):
                    out.append(c)
    return out


def _nfc_checks(single: dict[str, str], multi: dict[str, str], mark: str) -> list[Difference]:
    """Where NFC (tokenizers' own) would not give llama.cpp's output: a key of several code points whose value is
    not the NFC of its code points each mapped alone, or a code point's own output that NFC changes (each tested
    between two ``mark``, which composes with nothing)."""
    from tokenizers import normalizers

    nfc = normalizers.NFC()
    diffs = []
    keys = list(multi)
    got = nfc.normalize_str(mark.join("".join(single.get(c, c) for c in k) for k in keys)).split(mark)
    for k, g in zip(keys, got, strict=True):
        if g != multi[k]:
            diffs.append(Difference("normalizer", f"the character map's key {k!r} gives {multi[k]!r}, not the NFC "
                                    f"of its code points mapped alone ({g!r})", k, "text with that sequence"))
            break
    outs = [single.get(chr(c), chr(c)) for c in _nfc_suspects()]
    got = nfc.normalize_str(mark.join(outs)).split(mark)
    for c, o, g in zip(_nfc_suspects(), outs, got, strict=True):
        if o != g:
            diffs.append(Difference("normalizer", f"NFC changes U+{c:04X}'s output {o!r} to {g!r}", chr(c),
                                    "text with that code point"))
            break
    return diffs


@lru_cache(maxsize=4)
def _charsmap_parts(blob: bytes) -> tuple[str, bytes, str, list[str], tuple[Difference, ...]]:
    """What :func:`charsmap_steps` builds from the map (the slow part, once per map): the unit regex (``""``:
    the map has no key of several code points), the map given to ``Precompiled``, the mark deleted after each
    code point, the control characters left free, and the differences."""
    text_keys: dict[str, str] = {}
    for k, v in _map_keys(blob).items():
        try:
            text_keys[k.decode("utf-8")] = v.decode("utf-8")
        except UnicodeDecodeError:
            raise CharsmapError(f"the key {k!r} or its value {v!r} is not UTF-8: tokenizers reads text only") from None
    single = {k: v for k, v in text_keys.items() if len(k) == 1}
    multi = {k: v for k, v in text_keys.items() if len(k) > 1}
    starts = {k[0] for k in multi}
    values = "".join(text_keys.values())
    free = [c for c in _MARK_CANDIDATES if single.get(c) == "" and c not in starts and c not in values]
    if len(free) < 2:
        raise CharsmapError("the map deletes too few control characters to mark its units with")
    alone, unit, *free = free
    if not multi:
        return "", blob, alone, free, ()
    diffs = tuple(_nfc_checks(single, multi, unit))
    return unit_pattern(sorted(multi)), with_value(blob, unit.encode(), unit), alone + unit, free, diffs


# Where a mark must go so that every code point is a grapheme cluster alone: after a code point that is not
# ASCII, before one, and between CR and LF (two other ASCII code points are always two clusters, and a mark, a
# control character, is a cluster alone). ASCII text gets no marks: one mark after every code point cost
# 730 us of the 2.6 ms a 1 KB English prompt took.
CLUSTER_EDGES = f"(?<=[^\\x00-\\x7F])|(?<={ANY})(?=[^\\x00-\\x7F])|(?<=\\r)(?=\\n)"


def charsmap_steps(blob: bytes) -> tuple[list[Any], list[str], list[Difference]]:
    """The normalizers that apply the character map as llama.cpp does (see the module's docstring), the control
    characters the map deletes that they leave free (no normalised text holds them), and the differences."""
    from tokenizers import Regex, normalizers

    pattern, blob, marks, free, diffs = _charsmap_parts(blob)
    steps = [normalizers.Replace(Regex(CLUSTER_EDGES), marks[0]), normalizers.Precompiled(blob)]
    if pattern:
        unit = marks[1]
        steps = [normalizers.Replace(Regex(pattern), unit), *steps, normalizers.NFC(), normalizers.Replace(unit, "")]
    return steps, list(free), list(diffs)


def space_steps(add_space_prefix: bool, remove_extra_whitespaces: bool) -> list[Any]:
    """llama.cpp's spaces after the map: ``▁`` before each run of non-spaces and no spaces (merged), or each
    space a ``▁`` and one more before the first run (``add_space_prefix``).

    >>> from tokenizers import normalizers
    >>> [normalizers.Sequence(space_steps(p, m)).normalize_str(" a  b ") for p, m in ((True, True), (True, False))]
    ['▁a▁b', '▁▁a▁▁b▁']
    """
    from tokenizers import Regex, normalizers

    if remove_extra_whitespaces:
        return [normalizers.Replace(Regex("\\A +| +\\z"), ""), normalizers.Replace(Regex(" +"), SPACE),
                normalizers.Prepend(SPACE)]
    steps = [normalizers.Replace(Regex(f"\\A(?={ANY}*[^ ])"), SPACE)] if add_space_prefix else []
    return [*steps, normalizers.Replace(" ", SPACE)]


# ----------------------------------------------------------------------------------------- the model
def candidates(kinds: np.ndarray) -> np.ndarray:
    """Which tokens llama.cpp's trie holds: normal, user-defined and unused ones, by their GGUF type."""
    return (kinds & (NORMAL | USER_DEFINED | UNUSED)) != 0


def dead_unused(texts: list[str], scores: np.ndarray, kinds: np.ndarray, unknown_score: float) -> set[int]:
    """The unused tokens no best path can take: its score is below what any path through its code points scores
    (each code point a step of at least ``w``: the unknown step's score, or the lowest score of a one-code-point
    candidate), by more than a rounding can make up. llama.cpp's Viterbi keeps the strictly best score at each
    place, so such a token never is on the result, whichever the text.

    >>> sorted(dead_unused(["a", "[PAD]"], np.array([-1.0, -1e4]), np.array([NORMAL, UNUSED]), -11.0))
    [1]
    """
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    one = candidates(kinds) & (lengths == 1)
    step = min(unknown_score, float(path_scores(scores, kinds)[one].min(initial=np.inf)))
    floor = lengths * step
    dead = (kinds & UNUSED != 0) & (lengths > 0) & (scores < floor - 1.0 - 1e-9 * np.abs(floor))
    return set(np.flatnonzero(dead).tolist())


def path_scores(scores: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """What each token adds to a path in llama.cpp's Viterbi: its score, 0 for a user-defined token."""
    return np.where(kinds & USER_DEFINED != 0, 0.0, scores)


def escapes(texts: list[str], hidden: list[int], shown: list[int], free: list[str]) -> dict[str, str]:
    """Characters to write otherwise (to one of ``free``) in the normalised text and the model's tokens, so that
    the model holds the ``hidden`` tokens' texts (an added token takes the model's id for its text) yet can never
    match them: each hidden text holds one of the characters; no ``shown`` text (the user-defined tokens, matched
    as they are) holds one. Empty if that cannot be done.

    >>> escapes(["<s>", "</s>", "x"], [0, 1], [2], ["\\x03"])
    {'<': '\\x03'}
    """
    forbidden = {c for i in shown for c in texts[i]} | {" ", SPACE}
    todo = [i for i in hidden if texts[i]]
    out: dict[str, str] = {}
    while todo:
        counts: dict[str, int] = {}
        for i in todo:
            for c in set(texts[i]) - forbidden:
                counts[c] = counts.get(c, 0) + 1
        if not counts or len(out) == len(free):
            return {}
        c = max(sorted(counts), key=counts.__getitem__)
        out[c] = free[len(out)]
        todo = [i for i in todo if c not in texts[i]]
    return out


def _not_utf8(texts: list[str]) -> list[int]:
    """The tokens whose text is not UTF-8 (gguftok holds their bytes as surrogate escapes)."""
    try:
        "".join(texts).encode("utf-8")
    except UnicodeEncodeError:
        return [i for i, t in enumerate(texts) if any(0xD800 <= ord(c) <= 0xDFFF for c in t)]
    return []


def _translated(texts: list[str], table: dict[int, Any]) -> list[str]:
    """``[t.translate(table) for t in texts]``, in one pass over the texts joined by NUL where no text holds a NUL
    and the table neither reads nor writes one.

    >>> _translated(["<s>", "a<b", ""], str.maketrans({"<": "\\x03"}))
    ['\\x03s>', 'a\\x03b', '']
    """
    if not table:
        return list(texts)
    joined = "\0".join(texts)
    if 0 not in table and not any("\0" in str(c) for c in table.values()) and joined.count("\0") == len(texts) - 1:
        return joined.translate(table).split("\0")
    return [t.translate(table) for t in texts]


def _unigram(tok: Any, escape: dict[str, str], hidden: set[int]) -> tuple[Any, set[int], list[Difference]]:
    """The ``Unigram`` model, the renamed ids, and the model's differences. ``hidden``: the added tokens that are
    no candidates, kept by their text (unmatched through ``escape``)."""
    from tokenizers.models import Unigram

    v = tok.vocab
    texts = list(v.texts)
    scores = np.asarray(v.scores, dtype=np.float64)
    kinds = np.asarray(v.gguf_attrs, dtype=np.int64)  # llama.cpp builds its trie from the GGUF types
    diffs = []
    if np.isnan(scores).any():
        diffs.append(Difference("model", "NaN scores: llama.cpp's comparisons with them have no counterpart"))
    normal = scores[kinds & NORMAL != 0]
    if not len(normal):
        diffs.append(Difference("model", "no normal token: llama.cpp's unknown score is FLT_MAX - 10"))
        normal = np.zeros(1)
    unknown = float(np.float32(normal.min()) - np.float32(10.0))  # llama.cpp computes it in float
    bad = _not_utf8(texts)
    dead_mask = ~candidates(kinds) | (np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) == 0)
    dead_mask[bad] = True
    dead_mask[list(hidden)] = False
    dead = set(np.flatnonzero(dead_mask).tolist()) | dead_unused(texts, scores, kinds, unknown)
    alive_unused = [i for i in np.flatnonzero(kinds & UNUSED).tolist() if i not in dead]
    if alive_unused:
        i = alive_unused[0]
        diffs.append(Difference("decoder", f"unused token {i} ({texts[i]!r}) can be on a best path: llama.cpp "
                                "renders it as nothing, the decoder by its text", "", "ids with that token"))
    path = path_scores(scores, kinds)
    matched = np.ones(len(texts), dtype=bool)
    matched[list(dead | hidden)] = False
    lowest = float(path[matched].min(initial=np.inf))
    # tokenizers' unknown score is its minimum score - 10 (in double): the renamed tokens carry that minimum
    low = next((m for m in (float(normal.min()), unknown + 10.0) if m - 10.0 == unknown and m <= lowest), None)
    if low is None:
        diffs.append(Difference("model", f"llama.cpp's unknown score {unknown!r} (min score - 10 in float) is no "
                                "minimum score - 10 in double", "", "text with a code point that is no token"))
        low = float(normal.min())
    vocab = list(zip(_translated(texts, str.maketrans(escape)), path.tolist(), strict=True))
    for i in hidden:
        vocab[i] = (texts[i], low)
    for i in dead:
        vocab[i] = (f"{_DEAD}{i}", low)
    unk = v.special["unk"]
    if not 0 <= unk < len(texts):
        diffs.append(Difference("model", "no unknown token: llama.cpp writes the id -1 for an unknown code point",
                                "", "text with a code point that is no token"))
        unk = None
    if bad:
        diffs.append(Difference("decoder", f"token {bad[0]}'s text is not UTF-8: tokenizers holds only text", "",
                                "ids with that token"))
    if (np.asarray(v.attrs, dtype=np.int64) & BYTE).any():
        diffs.append(Difference("decoder", "byte tokens: llama.cpp renders their byte, the renamed token nothing",
                                "", "ids with a byte token"))
    return Unigram(vocab, unk, byte_fallback=False), dead, diffs


# --------------------------------------------------------------------------------------- the decoder
def _decoder(tok: Any, dead: set[int], escape: dict[str, str]) -> tuple[Any, list[Difference]]:
    """The escaped characters back, the renamed tokens as nothing, ``▁`` as a space and the first token's one
    stripped: llama.cpp strips one space from the first token's piece, ``Metaspace`` drops every ``▁`` of the
    first token, the same where a token has ``▁`` only in front."""
    from tokenizers import Regex, decoders

    v = tok.vocab
    attrs = np.asarray(v.attrs, dtype=np.int64)
    diffs = []
    raw = [i for i in v.special_cache if v.texts[i]]  # rendered raw: their texts, from the added tokens
    shown = [i for i in range(len(v.texts)) if i not in dead]
    inner = next((i for i in shown if SPACE in v.texts[i][1:] or v.texts[i].startswith(" ")), None)
    if v.add_space_prefix and inner is not None:
        diffs.append(Difference("decoder", f"token {inner} ({v.texts[inner]!r}): Metaspace drops every ▁ of the "
                                "first token, llama.cpp strips one leading space", "", "ids starting with it"))
    marked = next((i for i in raw if SPACE in v.texts[i]), None)
    if marked is not None:
        diffs.append(Difference("decoder", f"token {marked} ({v.texts[marked]!r}) renders raw in llama.cpp, its ▁ "
                                "read as a space here", "", "ids with that token"))
    specials = [i for i in raw if attrs[i] & (CONTROL | UNKNOWN)]
    if v.add_space_prefix and specials:
        bos = v.special["bos"] if v.add_bos else -1
        example = "hello" if bos >= 0 else f"{v.texts[specials[0]]}hello"
        diffs.append(Difference(
            "decoder", "llama.cpp strips the space prefix from the first token's piece only, and a control or unknown "
                       "token rendered as nothing (unparse_special=False) is that first token: tokenizers skips it "
                       "before the decoder, which strips the next token's ▁ instead (gguftok.export.decode mends "
                       "this by decoding after a plain token and cutting its text off)", example,
            "ids starting with a control or unknown token (a BOS), decoded with unparse_special=False"))
    steps = [decoders.Replace(Regex(f"\\A{_DEAD}[0-9]+\\z"), "")]
    steps += [decoders.Replace(p, c) for c, p in escape.items()]
    steps.append(decoders.Metaspace(SPACE, prepend_scheme="always" if v.add_space_prefix else "never", split=False))
    return decoders.Sequence(steps), diffs


def stages(tok: Any) -> Stages:
    """The stages of ``tok``'s Unigram pipeline (``added_tokens`` and BOS/EOS left to the caller)."""
    from tokenizers import normalizers

    v = tok.vocab
    differences: list[Difference] = []
    steps: list[Any] = []
    free: list[str] = []
    blob = v.charsmap()
    if blob:
        try:
            steps, free, differences = charsmap_steps(blob)
        except (CharsmapError, struct.error) as e:
            differences = [Difference("normalizer", f"the character map cannot be followed: {e}", "", "any text")]
    steps += space_steps(v.add_space_prefix, v.remove_extra_whitespaces)
    kinds = np.asarray(v.gguf_attrs, dtype=np.int64)
    cand = candidates(kinds)
    added = [i for i in v.special_cache if v.texts[i]]
    hidden = [i for i in added if not cand[i]]
    texts = v.texts
    used = set("".join(texts))
    free = [c for c in free if c not in used]
    escape = escapes(texts, hidden, [i for i in added if cand[i]], free)
    if hidden and not escape:
        i = hidden[0]
        differences.append(Difference("model", f"no character to keep token {i} ({texts[i]!r}) from the model: it "
                                      "is no candidate in llama.cpp's trie", texts[i], "text with its text"))
    steps += [normalizers.Replace(c, p) for c, p in escape.items()]
    model, dead, diffs = _unigram(tok, escape, set(hidden) if escape else set())
    differences += diffs
    decoder, diffs = _decoder(tok, dead, escape)
    differences += diffs
    return Stages(model=model, normalizer=normalizers.Sequence(steps), decoder=decoder, differences=differences)
