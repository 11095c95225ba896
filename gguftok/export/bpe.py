"""Byte-level BPE as a ``tokenizers`` pipeline, stage by stage from llama.cpp's rules as gguftok holds them.

- **normalizer**: none, or ``Replace(" ", "▁")`` for a vocabulary that escapes whitespace (Gemma 4).
- **pre-tokenizer**: the pre-type's regexes in order, each a ``Split(Regex(...), "isolated")``. A regex is
  rewritten for Oniguruma (:func:`onig_pattern`): each single-character atom (a class, an escape, ``.``, a
  literal) becomes the explicit class of the code points it matches *in llama.cpp*, computed from llama.cpp's
  own Unicode 15.1 tables (:data:`~gguftok.pretokenize.regex_split.COLLAPSE_TABLE`), so the two engines agree
  on every code point whatever Oniguruma's Unicode version. A hand-written llama.cpp splitter is taken from
  its exact pattern in :mod:`gguftok.pretokenize.fast`, or from one written here for it (AFMoE's digits,
  Kimi K2's Han-aware words). Then ``ByteLevel(add_prefix_space=False,
  use_regex=False)``, and a ``Split(..., "removed")`` of the byte characters that are no token (llama.cpp
  keeps such a character as a symbol no merge touches, then drops it: removing it where it stands is the same).
- **model**: ``BPE(vocab, merges, ignore_merges=...)``; a token whose llama.cpp piece is not what the
  ``ByteLevel`` decoder makes of its text (``[UNK_BYTE_0x...]`` for a character outside GPT-2's map) is
  renamed to the spelling of that piece, which no merge and no word can reach.
- **decoder**: ``Replace`` of whole added tokens whose raw text ``ByteLevel`` would misread, ``ByteLevel``
  (Gemma 4: ``Replace("▁", " ")``, ``ByteFallback``, ``Fuse``), and llama.cpp's clean-up of spaces as three
  ``Replace`` steps (:func:`gguftok.detokenize.clean_spaces`) where the vocabulary uses it.

>>> from gguftok import Tokenizer
>>> st = stages(Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf"))
>>> type(st.model).__name__, st.differences
('BPE', [])
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate, count
from operator import add

import numpy as np
import regex

from ..bytemap import BYTE_TO_CHAR, CHAR_TO_BYTE, bytes_to_text, spell_text
from ..detokenize import cached_piece
from ..models.bpe import merge_word, split_merge
from ..pretokenize.fast import FAST
from ..pretokenize.regex_split import COLLAPSE_TABLE, collapse_pattern, uses_categories
from ..pretokenize.splitters import CUSTOM
from ..vocab import BYTE, CONTROL, NORMAL, UNKNOWN, USER_DEFINED
from .common import Difference, Stages, not_utf8, utf8
from .pieces import clean_up_decoders, decoder, whole_token

_MAX = 0x10FFFF
_SURROGATES = slice(0xD800, 0xE000)


class Unsupported(ValueError):
    """A regex construct :func:`onig_pattern` does not rewrite (the export then names the regex)."""


# ------------------------------------------------------------------------------------- code point classes
def class_of(members: np.ndarray) -> str:
    """An Oniguruma class of the code points where ``members`` (a boolean array over U+0000..U+10FFFF) is true;
    surrogates, which no Rust string holds, are left out. ``(?!)`` when there are none."""
    members = members.copy()
    members[_SURROGATES] = False
    edges = np.flatnonzero(np.diff(np.concatenate(([False], members, [False])).astype(np.int8)))
    if not len(edges):
        return "(?!)"
    parts = []
    for a, b in zip(edges[::2].tolist(), (edges[1::2] - 1).tolist(), strict=True):
        parts.append(f"\\x{{{a:X}}}" if a == b else f"\\x{{{a:X}}}-\\x{{{b:X}}}")
    return "[" + "".join(parts) + "]"


def _all_code_points() -> str:
    cps = np.arange(_MAX + 1, dtype=np.uint32)
    return cps.tobytes().decode("utf-32-le", "surrogatepass")


@lru_cache(maxsize=1)
def _wide_alphabet() -> str:
    """Every code point as ``std::wregex`` sees it in llama.cpp (non-ASCII whitespace as ``\\v``)."""
    from ..pretokenize.regex_split import wide

    return wide(_all_code_points())


@lru_cache(maxsize=512)
def _atom_members(atom: str, mode: str, flags: int) -> bytes:
    """The code points one single-character atom matches, as a packed boolean array.

    ``collapsed``: the atom runs on llama.cpp's collapsed text (one character per code point naming its
    category), so it is tried on the 256 possible collapsed characters; ``wide``: on the code points
    themselves, non-ASCII whitespace read as ``\\v``.
    """
    compiled = regex.compile(atom, flags)
    if mode == "collapsed":
        accepted = [b for b in range(256) if compiled.fullmatch(chr(b))]
        members = np.isin(COLLAPSE_TABLE, accepted)
    else:
        alphabet = _wide_alphabet()
        marker = "\x00"  # every match becomes NUL; the NUL code point itself is tried alone
        marked = compiled.sub(marker, alphabet)
        if len(marked) != len(alphabet):
            raise Unsupported(f"atom {atom!r} does not match exactly one character")
        arr = np.frombuffer(marked.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        members = arr == 0
        members[0] = bool(compiled.fullmatch("\x00"))
    return np.packbits(members).tobytes()


def _members(atom: str, mode: str, flags: int) -> np.ndarray:
    return np.unpackbits(np.frombuffer(_atom_members(atom, mode, flags), dtype=np.uint8))[:_MAX + 1].astype(bool)


# ---------------------------------------------------------------------------------------------- rewriting
_GROUP_OPENERS = ("(?:", "(?=", "(?!", "(?<=", "(?<!")
_QUANT = re.compile(r"[*+?]|\{\d+(?:,\d*)?\}")


def _split_atoms(pattern: str) -> list[tuple[str, str]]:
    """``pattern`` as ``(kind, text)`` pieces: ``atom`` (matches one character), ``full`` (``(?s:.)``),
    ``end`` (``$``), ``start`` (``^``) and ``syntax`` (groups, alternation, quantifiers), kept as written."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("(?s:.)", i):
            out.append(("full", "(?s:.)"))
            i += 6
        elif c == "(":
            opener = next((g for g in _GROUP_OPENERS if pattern.startswith(g, i)), None)
            if opener is None and pattern.startswith("(?", i):
                raise Unsupported(f"group {pattern[i:i + 4]!r}")
            out.append(("syntax", opener or "(?:"))
            i += len(opener) if opener else 1
        elif c in ")|":
            out.append(("syntax", c))
            i += 1
        elif c == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                raise Unsupported("a class that starts with ]")
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            if j >= n:
                raise Unsupported("an unclosed class")
            out.append(("atom", pattern[i:j + 1]))
            i = j + 1
        elif c == "\\":
            if i + 1 >= n:
                raise Unsupported("a trailing backslash")
            e = pattern[i + 1]
            if e in "bBAzZG123456789kpPQE":
                raise Unsupported(f"escape \\{e}")
            if e == "x":
                out.append(("atom", pattern[i:i + 4]))
                i += 4
            elif e == "u":
                out.append(("atom", pattern[i:i + 6]))
                i += 6
            else:
                out.append(("atom", pattern[i:i + 2]))
                i += 2
        elif c == "$":
            out.append(("end", c))
            i += 1
        elif c == "^":
            out.append(("start", c))
            i += 1
        elif (m := _QUANT.match(pattern, i)) is not None:
            out.append(("syntax", m.group()))
            i = m.end()
        elif c in "{}":
            raise Unsupported(f"a bare {c!r}")
        else:
            out.append(("atom", c))
            i += 1
    return out


def rewrite(pattern: str, mode: str, flags: int) -> str:
    """``pattern`` (a pattern on llama.cpp's collapsed or wide text) as an Oniguruma pattern on the text itself."""
    out = []
    for kind, text in _split_atoms(pattern):
        if kind == "atom":
            cls = class_of(_members(text, mode, flags))
            out.append("(?:(?!))" if cls == "(?!)" else cls)
        elif kind == "full":
            out.append("[\\x{0}-\\x{D7FF}\\x{E000}-\\x{10FFFF}]")
        elif kind == "end":
            out.append("\\z")  # llama.cpp's $: the end of the piece (Oniguruma's $ is an end of line)
        elif kind == "start":
            out.append("\\A")
        else:
            out.append(text)
    return "".join(out)


# A hand-written splitter of llama.cpp's -> a regex that cuts as it does. AFMoE's digits: a run of digits is cut
# in threes from the right, and the text before the run (back to the previous cut) joins its first group: each
# piece is the text up to a digit group whose remaining digits come in threes, or a tail with no digit.
EQUIVALENT = {"afmoe_digits": r"[^\p{N}]*\p{N}{1,3}(?=(?:\p{N}{3})*(?!\p{N}))|[^\p{N}]+"}


def _kimi_k2() -> str:
    """Kimi K2's splitter as an Oniguruma pattern. llama.cpp's loop tries, at each cut, in this order:

    1. a run of Han (its own block list, unassigned code points in the blocks included);
    2. a run of non-Han letters, after at most one code point that is no CR, LF, letter or number, then
       ``'s 't 'm 'd 're 've 'll`` in any case of its lowercase table;
    3. one to three numbers;
    4. an optional space, a run of code points that are no whitespace, letter or number, then CRs and LFs;
    5. whitespace: up to its last CR or LF if it has one, else all but its last code point when more follows
       in the piece, else all of it.

    Each step is one alternative, with the classes from llama.cpp's own tables; every code point starts one of
    them, so the loop's last resort (one code point alone) never comes.
    """
    from ..pretokenize.splitters import _HAN_RANGES
    from ..pretokenize.unicode import _LOWER, CATEGORY, LETTER, NUMBER, WHITESPACE_SET

    cat = np.frombuffer(CATEGORY, dtype=np.uint8)
    letter, number = (cat & LETTER) != 0, (cat & NUMBER) != 0
    space = np.zeros(_MAX + 1, dtype=bool)
    space[list(WHITESPACE_SET)] = True
    han = np.zeros(_MAX + 1, dtype=bool)
    for a, b in _HAN_RANGES:
        han[a:b + 1] = True
    crlf = np.zeros(_MAX + 1, dtype=bool)
    crlf[[0x0D, 0x0A]] = True

    def lower_is(c: str) -> str:
        members = np.zeros(_MAX + 1, dtype=bool)
        members[[ord(c), *(k for k, v in _LOWER.items() if v == ord(c))]] = True
        return class_of(members)

    s, t, m, d, r, e, v, ll = map(lower_is, "stmdrevl")
    w, nl = class_of(space), class_of(crlf)
    return (f"{class_of(han)}+|{class_of(~(letter | number | crlf))}?{class_of(letter & ~han)}+"
            f"(?:'(?:{s}|{t}|{m}|{d}|{r}{e}|{v}{e}|{ll}{ll}))?|{class_of(number)}{{1,3}}"
            f"| ?{class_of(~(space | letter | number))}+{nl}*|{w}*{nl}|{w}+(?!{class_of(~space)})|{w}+")


# A hand-written splitter -> its pattern, written directly for Oniguruma (classes no llama.cpp regex names).
BUILT = {"kimi_k2": _kimi_k2}


@lru_cache(maxsize=64)
def onig_pattern(llama_regex: str) -> str:
    """The Oniguruma pattern that cuts as llama.cpp cuts with ``llama_regex`` (one of a pre-type's regexes).

    >>> import tokenizers
    >>> p = tokenizers.pre_tokenizers.Split(tokenizers.Regex(onig_pattern("\\\\p{N}")), "isolated")
    >>> [w for w, _ in p.pre_tokenize_str("ab12٣")]
    ['ab', '1', '2', '٣']

    Raises :class:`Unsupported` for a hand-written splitter with no exact pattern (every one has one now)
    or a construct it does not rewrite.
    """
    fast = FAST.get(llama_regex)
    if fast is not None:
        return rewrite(fast.pattern, "collapsed", regex.VERSION0)
    if llama_regex in CUSTOM and CUSTOM[llama_regex].__name__ in EQUIVALENT:
        return onig_pattern(EQUIVALENT[CUSTOM[llama_regex].__name__])
    if llama_regex in CUSTOM and CUSTOM[llama_regex].__name__ in BUILT:
        return BUILT[CUSTOM[llama_regex].__name__]()
    if llama_regex in CUSTOM:
        raise Unsupported(f"llama.cpp's hand-written splitter {CUSTOM[llama_regex].__name__}() has no regex")
    if uses_categories(llama_regex):
        return rewrite(collapse_pattern(llama_regex), "collapsed", regex.ASCII | regex.VERSION0)
    return rewrite(llama_regex, "wide", regex.ASCII | regex.VERSION0)


# ------------------------------------------------------------------------------------------------ stages
def stages(tok) -> Stages:
    """The stages of a byte-level (or Gemma 4's ``▁``-escaped) BPE vocabulary, with what they cannot follow.

    The added tokens and the BOS/EOS post-processor are the dispatcher's (:func:`gguftok.export.plan`)."""
    from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers

    v = tok.vocab
    diffs: list[Difference] = []
    if v.type != "bpe":
        raise ValueError(f"not a BPE vocabulary: {v.model!r}")
    config = v.pre_config
    byte_level = config.byte_encode
    if v.model == "hybriddna":
        diffs.append(Difference("pre-tokenizer", "hybriddna: the text inside <dna>...</dna> is cut into upper-cased "
                                "6-mers, outside it BPE: no pipeline stage switches models mid-text",
                                "<dna>acgtac</dna>", "any text with <dna>"))
    if v.model == "whitespace":
        diffs.append(Difference("pre-tokenizer", "the whitespace model drops llama.cpp's whitespace code points and "
                                "lowercases with llama.cpp's table; not exported", "A b", "any text"))
    t2i = v.token_to_id
    texts = list(v.texts)

    # -- normalizer
    normalizer = normalizers.Replace(" ", "\u2581") if v.escape_whitespaces else None

    # -- pre-tokenizer
    steps = []
    for rx in config.regexes:
        try:
            steps.append(pre_tokenizers.Split(Regex(onig_pattern(rx)), behavior="isolated"))
        except (Unsupported, Exception) as e:
            diffs.append(Difference("pre-tokenizer", f"regex {rx!r}: {e}", "",
                                    "text the splitter cuts"))
    if byte_level:
        steps.append(pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False))
        missing = [c for c in BYTE_TO_CHAR if c not in t2i]
        if missing:
            fallback = tok.model.symbol_ids(missing)  # llama.cpp's fallback of such a symbol: its bytes' tokens
            if fallback:
                diffs.append(Difference("model", "a byte character that is no token falls back to single-byte "
                                        f"tokens {fallback} in llama.cpp", bytes([CHAR_TO_BYTE[missing[0]]]).decode(
                                            "latin-1"), "bytes with no token"))
            members = np.zeros(_MAX + 1, dtype=bool)
            members[[ord(c) for c in missing]] = True
            steps.append(pre_tokenizers.Split(Regex(class_of(members)), behavior="removed"))
    else:
        # a character that is no token stays a symbol in llama.cpp that no merge reaches, then becomes its bytes'
        # <0xNN> tokens (those that exist); tokenizers' BPE would drop it from the word and merge across it: cut
        # alone, it is its own word, and the same
        singles = np.zeros(_MAX + 1, dtype=bool)
        singles[[ord(t) for t in t2i if len(t) == 1]] = True
        steps.append(pre_tokenizers.Split(Regex(class_of(~singles)), behavior="isolated"))
        have = [f"<0x{b:02X}>" in t2i for b in range(256)]
        if any(have) and not all(have):
            diffs.append(Difference("model", f"only {sum(have)} of the 256 <0xNN> byte tokens: llama.cpp keeps those "
                                    "a character's bytes have, tokenizers' byte_fallback all or none", "",
                                    "characters that are no token"))
        if not v.escape_whitespaces:
            diffs.append(Difference("model", "a space reaches the merges (the vocabulary neither escapes it nor is "
                                    "byte-level): llama.cpp aborts on a word of two characters or more with a space, "
                                    "tokenizers gives ids", "a  b", "text with a space beside another character in "
                                    "one word"))
    pre = pre_tokenizers.Sequence(steps) if steps else None

    # -- model
    vocab: dict[str, int] = {}
    renamed: dict[str, str] = {}
    # only these tokens can be renamed or left out; the runs of ids between them go in as they are, in id order
    odd = _outside_map(texts) if byte_level else []
    at = 0
    for i in sorted({*odd, *not_utf8(texts)}):
        vocab.update(zip(texts[at:i], range(at, i), strict=True))
        at = i + 1
        text = texts[i]
        if byte_level and _OUTSIDE_MAP.search(text) and v.attrs[i] & NORMAL and \
                not v.attrs[i] & (CONTROL | USER_DEFINED | UNKNOWN):
            piece = cached_piece(v, i)
            if not _decodes_as(text, piece):
                spelled = bytes_to_text(piece)
                if spelled in t2i or spelled in vocab:
                    diffs.append(Difference("decoder", f"token {i}'s piece is spelled as another token's text",
                                            "", "decoding this token"))
                else:
                    renamed[text] = spelled
                    text = spelled
        if utf8(text) is None:
            diffs.append(Difference("model", f"token {i}'s text is not UTF-8, which no tokenizers vocabulary holds",
                                    "", "text that makes this token"))
            continue
        vocab[text] = i
    vocab.update(zip(texts[at:], range(at, len(texts)), strict=True))
    merges = []
    for line in v.merges:
        sides = split_merge(line)
        if sides is None or " " in sides[0] or " " in sides[1]:
            continue  # unreachable in llama.cpp too: a symbol never holds a space
        a, b = sides
        if a in renamed or b in renamed or (a + b) in renamed:
            diffs.append(Difference("model", f"merge {line!r} touches a renamed token", a + b, "words with it"))
            continue
        if a not in t2i or b not in t2i or a + b not in t2i:
            diffs.append(Difference("model", f"merge {line!r}: a side or the result is no token, which llama.cpp "
                                    "merges as text and tokenizers cannot hold", _unspell(a + b, byte_level),
                                    "words that merge through it"))
            continue
        merges.append((a, b))
    merges = list(dict.fromkeys(merges))  # llama.cpp: the first rank of a repeated merge wins
    if renamed and v.ignore_merges:
        diffs.append(Difference("model", "ignore_merges looks a word up whole, and a renamed token could be a word",
                                "", "words that spell a renamed token"))
    model = models.BPE(vocab, merges, ignore_merges=v.ignore_merges, byte_fallback=not byte_level, fuse_unk=False)
    if config.type == "GEMMA4":  # a run of newlines that is a token stays whole: the merges agree, checked here
        for text, tid in t2i.items():
            if text and not text.strip("\n") and tok.model.symbol_ids(merge_word(text, tok.model.ranks)) != [tid]:
                diffs.append(Difference("model", f"Gemma 4 keeps the newline run {text!r} whole; the merges do not",
                                        text, "runs of newlines"))

    # -- decoder
    tail = clean_up_decoders() if v.clean_spaces else []
    if not byte_level and not v.escape_whitespaces:
        # llama.cpp reads a NORMAL token through GPT-2's byte map whenever the vocabulary does not escape spaces,
        # byte-level pre-tokenizer or not
        odd = [i for i, t in enumerate(texts) if _OUTSIDE_MAP.search(t) and v.attrs[i] & NORMAL and not v.attrs[i] &
               (CONTROL | USER_DEFINED | UNKNOWN) and utf8(t) is not None and not _decodes_as(t, cached_piece(v, i))]
        if odd:
            diffs.append(Difference("decoder", f"{len(odd)} tokens (first {texts[odd[0]]!r}) that GPT-2's byte map "
                                    "cannot read, which llama.cpp writes as [UNK_BYTE_0x...]", "", "decoding them"))
    if not v.escape_whitespaces:
        fixes = []
        for i in v.special_cache:
            raw = utf8(texts[i])
            if raw is not None and not _decodes_as(texts[i], raw):
                fixes.append(decoders.Replace(Regex(whole_token(texts[i])), spell_text(texts[i])))
        dec = decoders.Sequence([*fixes, decoders.ByteLevel(), *tail])
    else:
        dec = decoder(texts, [t for t, a in zip(texts, v.attrs, strict=True) if a & BYTE],
                      [texts[i] for i in v.special_cache], tail=tail)
    if v.add_space_prefix:
        diffs.append(Difference("decoder", "add_space_prefix: llama.cpp drops the first token's leading space", "",
                                "decoding"))
    return Stages(model=model, normalizer=normalizer, pre_tokenizer=pre, decoder=dec,
                  differences=diffs)


def _outside_map(texts: list[str]) -> list[int]:
    """The ids whose text has a character outside GPT-2's byte map, found in the texts joined by ``!`` (in the
    map).

    >>> _outside_map(["a", "\u2581b", "c", "dé\u4e00"])
    [1, 3]
    """
    ends = list(map(add, accumulate(map(len, texts)), count()))  # where the "!" after each text stands
    return list(dict.fromkeys(bisect_right(ends, m.start()) for m in _OUTSIDE_MAP.finditer("!".join(texts))))


# a character outside GPT-2's byte map: a token without one decodes through the map as llama.cpp decodes it
_OUTSIDE_MAP = re.compile("[^" + "".join(re.escape(c) for c in CHAR_TO_BYTE) + "]")


def _decodes_as(text: str, piece: bytes) -> bool:
    """Whether tokenizers' ``ByteLevel`` decoder makes ``piece`` of the token ``text``: each character through
    GPT-2's map if all are in it, else the text's own UTF-8."""
    if all(c in CHAR_TO_BYTE for c in text):
        return bytes(CHAR_TO_BYTE[c] for c in text) == piece
    return utf8(text) == piece


def _unspell(spelled: str, byte_level: bool) -> str:
    if not byte_level:
        return spelled.replace("\u2581", " ")
    try:
        return bytes(CHAR_TO_BYTE[c] for c in spelled).decode("utf-8")
    except (KeyError, UnicodeDecodeError):
        return ""
