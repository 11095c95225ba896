"""WordPiece (``tokenizer.ggml.model = "bert"``) as a ``tokenizers`` pipeline.

llama.cpp cuts the text into words at whitespace and around punctuation and CJK ideographs, drops controls,
strips accents and lowercases (``gguftok.models.wpm``), and matches ``▁`` + each word greedily, longest token
first, over every token (GGUF keeps BERT's word starts as ``▁``, not its ``##`` continuations), a word that
cannot be matched to the end being one unknown token. Here: ``BertNormalizer`` and ``BertPreTokenizer`` for the
words, ``Metaspace`` (``prepend_scheme="always"``, no split) for the ``▁``, and ``WordPiece`` over the GGUF's
own token texts with an empty continuation prefix (the same greedy match over every token) and no limit on a
word's length. ``[CLS] $A [SEP]`` as llama.cpp adds them; the decoder joins the pieces and tidies the spaces
as ``llama_detokenize`` does.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from .common import Difference, Stages
from .pieces import clean_up_decoders

# What llama.cpp's tables (with lowercase and strip_accents) do to a code point otherwise than tokenizers'
# BertNormalizer and BertPreTokenizer (0.23) do, found by running every code point through both
# (tests/test_export_wpm.py does it again), as (first, last) ranges: read as a space, deleted, a word alone,
# and a character whose decomposition llama.cpp cuts to its first code point where NFD keeps a spacing mark.
AS_SPACE = (
    (0xB, 0xC), (0x85, 0x85),
)
DELETED = (
    (0x488, 0x489), (0x7FD, 0x7FD), (0x890, 0x891), (0x898, 0x89F), (0x8CA, 0x8E2), (0x903, 0x903), (0x93B, 0x93B),
    (0x93E, 0x940), (0x949, 0x94C), (0x94E, 0x94F), (0x982, 0x983), (0x9BE, 0x9C0), (0x9C7, 0x9C8), (0x9CB, 0x9CC),
    (0x9D7, 0x9D7), (0x9FE, 0x9FE), (0xA03, 0xA03), (0xA3E, 0xA40), (0xA83, 0xA83), (0xABE, 0xAC0), (0xAC9, 0xAC9),
    (0xACB, 0xACC), (0xAFA, 0xAFF), (0xB02, 0xB03), (0xB3E, 0xB3E), (0xB40, 0xB40), (0xB47, 0xB48), (0xB4B, 0xB4C),
    (0xB55, 0xB55), (0xB57, 0xB57), (0xBBE, 0xBBF), (0xBC1, 0xBC2), (0xBC6, 0xBC8), (0xBCA, 0xBCC), (0xBD7, 0xBD7),
    (0xC01, 0xC04), (0xC3C, 0xC3C), (0xC41, 0xC44), (0xC82, 0xC83), (0xCBE, 0xCBE), (0xCC0, 0xCC4), (0xCC7, 0xCC8),
    (0xCCA, 0xCCB), (0xCD5, 0xCD6), (0xCF3, 0xCF3), (0xD00, 0xD00), (0xD02, 0xD03), (0xD3B, 0xD3C), (0xD3E, 0xD40),
    (0xD46, 0xD48), (0xD4A, 0xD4C), (0xD57, 0xD57), (0xD81, 0xD83), (0xDCF, 0xDD1), (0xDD8, 0xDDF), (0xDF2, 0xDF3),
    (0xEBA, 0xEBA), (0xECE, 0xECE), (0xF3E, 0xF3F), (0xF7F, 0xF7F), (0x102B, 0x102C), (0x1031, 0x1031), (0x1038,
    0x1038), (0x103B, 0x103C), (0x1056, 0x1057), (0x1062, 0x1064), (0x1067, 0x106D), (0x1083, 0x1084), (0x1087,
    0x108C), (0x108F, 0x108F), (0x109A, 0x109C), (0x1715, 0x1715), (0x17B6, 0x17B6), (0x17BE, 0x17C5), (0x17C7,
    0x17C8), (0x180F, 0x180F), (0x1885, 0x1886), (0x1923, 0x1926), (0x1929, 0x192B), (0x1930, 0x1931), (0x1933,
    0x1938), (0x1A19, 0x1A1A), (0x1A55, 0x1A55), (0x1A57, 0x1A57), (0x1A61, 0x1A61), (0x1A63, 0x1A64), (0x1A6D,
    0x1A72), (0x1ABE, 0x1ACE), (0x1B04, 0x1B04), (0x1B35, 0x1B35), (0x1B3B, 0x1B3B), (0x1B3D, 0x1B41), (0x1B43,
    0x1B44), (0x1B82, 0x1B82), (0x1BA1, 0x1BA1), (0x1BA6, 0x1BA7), (0x1BAA, 0x1BAA), (0x1BE7, 0x1BE7), (0x1BEA,
    0x1BEC), (0x1BEE, 0x1BEE), (0x1BF2, 0x1BF3), (0x1C24, 0x1C2B), (0x1C34, 0x1C35), (0x1CE1, 0x1CE1), (0x1CF7,
    0x1CF7), (0x1DF6, 0x1DFB), (0x20DD, 0x20E0), (0x20E2, 0x20E4), (0x302E, 0x302F), (0xA670, 0xA672), (0xA823,
    0xA824), (0xA827, 0xA827), (0xA82C, 0xA82C), (0xA880, 0xA881), (0xA8B4, 0xA8C3), (0xA8C5, 0xA8C5), (0xA8FF,
    0xA8FF), (0xA952, 0xA953), (0xA983, 0xA983), (0xA9B4, 0xA9B5), (0xA9BA, 0xA9BB), (0xA9BD, 0xA9C0), (0xAA2F,
    0xAA30), (0xAA33, 0xAA34), (0xAA4D, 0xAA4D), (0xAA7B, 0xAA7B), (0xAA7D, 0xAA7D), (0xAAEB, 0xAAEB), (0xAAEE,
    0xAAEF), (0xAAF5, 0xAAF5), (0xABE3, 0xABE4), (0xABE6, 0xABE7), (0xABE9, 0xABEA), (0xABEC, 0xABEC), (0x10D24,
    0x10D27), (0x10EAB, 0x10EAC), (0x10EFD, 0x10EFF), (0x10F46, 0x10F50), (0x10F82, 0x10F85), (0x11000, 0x11000),
    (0x11002, 0x11002), (0x11070, 0x11070), (0x11073, 0x11074), (0x11082, 0x11082), (0x110B0, 0x110B2), (0x110B7,
    0x110B8), (0x110C2, 0x110C2), (0x110CD, 0x110CD), (0x1112C, 0x1112C), (0x11145, 0x11146), (0x11182, 0x11182),
    (0x111B3, 0x111B5), (0x111BF, 0x111C0), (0x111C9, 0x111C9), (0x111CE, 0x111CF), (0x1122C, 0x1122E), (0x11232,
    0x11233), (0x11235, 0x11235), (0x1123E, 0x1123E), (0x11241, 0x11241), (0x112E0, 0x112E2), (0x11302, 0x11303),
    (0x1133B, 0x1133B), (0x1133E, 0x1133F), (0x11341, 0x11344), (0x11347, 0x11348), (0x1134B, 0x1134D), (0x11357,
    0x11357), (0x11362, 0x11363), (0x11435, 0x11446), (0x1145E, 0x1145E), (0x114B0, 0x114B2), (0x114B9, 0x114B9),
    (0x114BB, 0x114BE), (0x114C1, 0x114C1), (0x115AF, 0x115B1), (0x115B8, 0x115BB), (0x115BE, 0x115BE), (0x11630,
    0x11632), (0x1163B, 0x1163C), (0x1163E, 0x1163E), (0x116AC, 0x116AC), (0x116AE, 0x116AF), (0x116B6, 0x116B6),
    (0x11720, 0x11721), (0x11726, 0x11726), (0x1182C, 0x1183A), (0x11930, 0x11935), (0x11937, 0x11938), (0x1193B,
    0x1193E), (0x11940, 0x11940), (0x11942, 0x11943), (0x119D1, 0x119D7), (0x119DA, 0x119E0), (0x119E4, 0x119E4),
    (0x11A01, 0x11A0A), (0x11A33, 0x11A39), (0x11A3B, 0x11A3E), (0x11A47, 0x11A47), (0x11A51, 0x11A5B), (0x11A8A,
    0x11A99), (0x11C2F, 0x11C36), (0x11C38, 0x11C3F), (0x11C92, 0x11CA7), (0x11CA9, 0x11CB6), (0x11D31, 0x11D36),
    (0x11D3A, 0x11D3A), (0x11D3C, 0x11D3D), (0x11D3F, 0x11D45), (0x11D47, 0x11D47), (0x11D8A, 0x11D8E), (0x11D90,
    0x11D91), (0x11D93, 0x11D97), (0x11EF3, 0x11EF6), (0x11F00, 0x11F01), (0x11F03, 0x11F03), (0x11F34, 0x11F3A),
    (0x11F3E, 0x11F42), (0x13430, 0x13440), (0x13447, 0x13455), (0x16F4F, 0x16F4F), (0x16F51, 0x16F87), (0x16FE4,
    0x16FE4), (0x16FF0, 0x16FF1), (0x1CF00, 0x1CF2D), (0x1CF30, 0x1CF46), (0x1D165, 0x1D166), (0x1D16D, 0x1D172),
    (0x1E000, 0x1E006), (0x1E008, 0x1E018), (0x1E01B, 0x1E021), (0x1E023, 0x1E024), (0x1E026, 0x1E02A), (0x1E08F,
    0x1E08F), (0x1E130, 0x1E136), (0x1E2AE, 0x1E2AE), (0x1E2EC, 0x1E2EF), (0x1E4EC, 0x1E4EF), (0x1E944, 0x1E94A),
)
ALONE = (
    (0x61D, 0x61D), (0x9FD, 0x9FD), (0xA76, 0xA76), (0xC77, 0xC77), (0xC84, 0xC84), (0x1B7D, 0x1B7E), (0x2E43,
    0x2E4F), (0x2E52, 0x2E5D), (0x10EAD, 0x10EAD), (0x10F55, 0x10F59), (0x10F86, 0x10F89), (0x1144B, 0x1144F),
    (0x1145A, 0x1145B), (0x1145D, 0x1145D), (0x11660, 0x1166C), (0x116B9, 0x116B9), (0x1183B, 0x1183B), (0x11944,
    0x11946), (0x119E2, 0x119E2), (0x11A3F, 0x11A46), (0x11A9A, 0x11A9C), (0x11A9E, 0x11AA2), (0x11B00, 0x11B09),
    (0x11C41, 0x11C45), (0x11C70, 0x11C71), (0x11EF7, 0x11EF8), (0x11F43, 0x11F4F), (0x11FFF, 0x11FFF), (0x12FF1,
    0x12FF2), (0x16E97, 0x16E9A), (0x16FE2, 0x16FE2), (0x1E95E, 0x1E95F),
)
FIRST_OF = {
    0xB92: ((0xB94, 0xB94),),
    0x1B05: ((0x1B06, 0x1B06),),
    0x1B07: ((0x1B08, 0x1B08),),
    0x1B09: ((0x1B0A, 0x1B0A),),
    0x1B0B: ((0x1B0C, 0x1B0C),),
    0x1B0D: ((0x1B0E, 0x1B0E),),
    0x1B11: ((0x1B12, 0x1B12),),
    0x1D157: ((0x1D15E, 0x1D15E),),
    0x1D158: ((0x1D15F, 0x1D164),),
    0x1D1B9: ((0x1D1BB, 0x1D1BB), (0x1D1BD, 0x1D1BD), (0x1D1BF, 0x1D1BF),),
    0x1D1BA: ((0x1D1BC, 0x1D1BC), (0x1D1BE, 0x1D1BE), (0x1D1C0, 0x1D1C0),),
}
# a Hangul syllable: its leading consonant (llama.cpp's NFD, first code point; tokenizers' NFD: all three jamo)
HANGUL, HANGUL_L, HANGUL_PER_L = 0xAC00, 0x1100, 588
WORD_START_MARK = "\u2581x"
# code points of Unicode 16 that tokenizers lowercases and llama.cpp does not: a difference only when the
# vocabulary has a token with one of them, or with its lower case
NEW_CASE = ((0x1C89, 0x1C89), (0xA7CB, 0xA7CC), (0xA7CE, 0xA7CE), (0xA7D2, 0xA7D2), (0xA7D4, 0xA7D4), (0xA7DA, 0xA7DA),
            (0xA7DC, 0xA7DC), (0x10D50, 0x10D65), (0x16EA0, 0x16EB8))
# the code points llama.cpp keeps inside a word and tokenizers reads as punctuation (a word alone): mended
# where no token holds one, as a word with one is then an unknown token in llama.cpp (first, last, example)
AS_UNKNOWN = ((0x166D, 0x166D, "x\u166dy"),)
# code points no vocabulary token is likely to hold, which BertPreTokenizer keeps inside a word (private use)
_NO_TOKEN = ("\U0010fffd", "\U0010fffc", "\U0010fffb")


_CHUNK = 1 << 12


@lru_cache(maxsize=1)
def word_chars() -> bytes:
    """The code points ``BertPreTokenizer`` keeps inside a word (neither whitespace nor punctuation to it), as a
    packed boolean array, found by cutting every code point between two letters."""
    from tokenizers.pre_tokenizers import BertPreTokenizer

    cps = np.arange(0x110000, dtype=np.int64)
    cps = cps[(cps < 0xD800) | (cps > 0xDFFF)]
    inside = np.zeros(0x110000, dtype=bool)
    pre = BertPreTokenizer()
    # in chunks: the pre-tokenizer's time grows faster than its text (all code points at once took three times
    # as long); it reads each code point alone, so where a chunk ends changes nothing
    for at in range(0, len(cps), _CHUNK):
        chunk = cps[at:at + _CHUNK]
        text = "a" + "a".join(map(chr, chunk.tolist())) + "a"
        for _, (start, end) in pre.pre_tokenize_str(text):
            if end - start > 1:  # code point k of the chunk stands at 2k + 1
                inside[chunk[(start + 1) // 2:end // 2]] = True
    return np.packbits(inside).tobytes()


def unknown_mends(texts: list[str]) -> tuple[list[Any], list[tuple[str, str, str]]]:
    """The steps, after ``BertNormalizer``, that turn into one unknown token what llama.cpp turns into one, and
    the rules left unmended as ``(stage, rule, example)``.

    - A word that starts with ``▁`` itself: llama.cpp matches ``▁▁...``, which no token starts (nor is ``▁``
      one), an unknown token; ``Metaspace`` adds no ``▁`` to it. Such a ``▁`` becomes a code point no token
      holds.
    - :data:`AS_UNKNOWN`: a code point no token holds, inside a word to llama.cpp: becomes one
      ``BertPreTokenizer`` keeps inside a word, which no token holds either.
    """
    from tokenizers import Regex, normalizers

    from .bpe import class_of

    chars = {c for t in texts for c in t}
    free = next((c for c in _NO_TOKEN if c not in chars), None)
    steps: list[Any] = []
    left = []
    starts = "\u2581" in texts or any(t.startswith("\u2581\u2581") for t in texts)
    if free is None or starts:
        left.append(("pre-tokenizer", "Metaspace puts no ▁ before a word that already starts with one; llama.cpp "
                     "always does", WORD_START_MARK))
    else:
        inside = np.unpackbits(np.frombuffer(word_chars(), dtype=np.uint8))[:0x110000].astype(bool)
        for a, b in ALONE:
            inside[a:b + 1] = False
        steps.append(normalizers.Replace(Regex(f"(?<!{class_of(inside)})\\x{{2581}}"), free))
    for a, b, example in AS_UNKNOWN:
        if free is None or any(chr(cp) in chars for cp in range(a, b + 1)):
            left.append(("normalizer", f"U+{a:04X}-U+{b:04X}: a symbol tokenizers reads as punctuation (a word "
                         "alone)", example))
        else:
            steps.append(normalizers.Replace(Regex(char_class(((a, b),))), free))
    return steps, left


def stages(tok: Any) -> Stages:
    """The stages of ``tok``'s WordPiece pipeline (``added_tokens`` left to the caller)."""
    from tokenizers import Regex, decoders, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    v = tok.vocab
    texts = list(v.texts)
    vocab = {t: i for i, t in enumerate(texts)}
    unk = v.special["unk"]
    model = WordPiece(vocab=vocab, unk_token=texts[unk], continuing_subword_prefix="",
                      max_input_chars_per_word=1 << 62)
    bert = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                      strip_accents=bool(v.strip_accents), lowercase=bool(v.lowercase))
    mended = bool(v.lowercase and v.strip_accents)
    after, left = unknown_mends(texts) if mended else ([], [])
    normalizer = normalizers.Sequence([*mends(), bert, *after]) if mended else bert
    words = [pre_tokenizers.BertPreTokenizer()]
    if mended:
        words.append(pre_tokenizers.Split(Regex(char_class(ALONE)), "isolated"))
    pre = pre_tokenizers.Sequence([*words, pre_tokenizers.Metaspace("\u2581", prepend_scheme="always", split=False)])
    dec = [decoders.Replace("\u2581", " "), decoders.Fuse()]
    if v.clean_spaces:
        dec += clean_up_decoders()
    cls, sep = texts[v.special["bos"]], texts[v.special["sep"]]
    post = processors.TemplateProcessing(single=f"{cls}:0 $A:0 {sep}:0", pair=f"{cls}:0 $A:0 {sep}:0 $B:1 {sep}:1",
                                         special_tokens=[(cls, v.special["bos"]), (sep, v.special["sep"])])
    differences = [Difference(stage, rule, example, "text with it") for stage, rule, example in left]
    if mended:
        chars = {c for t in texts for c in t}
        for a, b in NEW_CASE:
            for cp in range(a, b + 1):
                if chr(cp) in chars or bert.normalize_str(chr(cp)) in chars:
                    differences.append(Difference("normalizer", f"U+{cp:04X}: tokenizers lowercases it, llama.cpp does "
                                                  "not", f"x{chr(cp)}y", "code points new in Unicode 16"))
    else:
        differences.append(Difference("pre-tokenizer", "Metaspace puts no ▁ before a word that already starts with "
                                      "one; llama.cpp always does", WORD_START_MARK, "a word starting with U+2581"))
        differences.append(Difference(
            "normalizer", "llama.cpp's tables are mended only for lowercase with strip_accents: "
                          f"lowercase={v.lowercase}, strip_accents={v.strip_accents} is not verified"))
    return Stages(model=model, normalizer=normalizer, pre_tokenizer=pre, post_processor=post,
                  decoder=decoders.Sequence(dec), differences=differences)


def char_class(ranges: tuple[tuple[int, int], ...]) -> str:
    """An Oniguruma character class of ``ranges``.

    >>> print(char_class(((0x41, 0x43), (0x61, 0x61))))
    [\\x{41}-\\x{43}\\x{61}]
    """
    return "[" + "".join(f"\\x{{{a:X}}}" + (f"-\\x{{{b:X}}}" if b > a else "") for a, b in ranges) + "]"


def mends() -> list[Any]:
    """The normalizers that make tokenizers' Bert stages read every code point as llama.cpp's tables do."""
    from tokenizers import Regex, normalizers

    out = [normalizers.Replace(Regex(char_class(((HANGUL + HANGUL_PER_L * k, HANGUL + HANGUL_PER_L * (k + 1) - 1),))),
                               chr(HANGUL_L + k)) for k in range(19)]
    out += [normalizers.Replace(Regex(char_class(r)), chr(first)) for first, r in FIRST_OF.items()]
    out.append(normalizers.Replace(Regex(char_class(DELETED)), ""))
    out.append(normalizers.Replace(Regex(char_class(AS_SPACE)), " "))
    return out
