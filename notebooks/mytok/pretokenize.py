"""Stage 04: cut text into words (pre-tokenization) with each model's regular expressions (notebook 04).

Byte-level BPE never merges across a word boundary, so the text is first cut into words. A model's rule is a
list of regular expressions, named in the GGUF file by ``tokenizer.ggml.pre``, and applied as llama.cpp does:
the first regex cuts the whole text; each next regex cuts every word the previous ones left, one word at a
time; the text between two matches (or before the first, or after the last) stays a word of its own; a
match of no characters makes no word. Use the third-party ``regex`` module (``import regex``): it knows
``\\p{L}`` (any letter) and ``\\p{N}`` (any number), which Python's own ``re`` does not.
"""

from __future__ import annotations

import regex  # noqa: F401  (you will need it)

# Write your three patterns here, each one string with its alternatives joined by |, as notebook 04 builds
# them. The lists below use GPT2: several models run GPT-2's pattern after a rule of their own.
GPT2 = ""
LLAMA3 = ""
QWEN2 = ""

# Given: the regex lists of the other byte-level BPE vocabularies that llama.cpp tests, exactly as llama.cpp
# writes them (where a list holds GPT-2's pattern, it is GPT2 above).
OTHER_REGEXES: dict[str, list[str]] = {
    # every digit alone, then GPT-2's pattern on what is left
    "starcoder": [r"\p{N}", GPT2],
    "refact": [r"\p{N}", GPT2],
    "command-r": [r"\p{N}", GPT2],
    # GPT-2's pattern as it is
    "mpt": [GPT2],
    # a file that names no pre-tokenizer: punctuation runs, GPT-2's pattern without its last alternative,
    # digit runs, then numbers cut into threes
    "default": [r"[\p{P}\$\+<=>\^~\|]+", r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)",
                r"\p{N}+", r"[0-9][0-9][0-9]"],
    # runs of punctuation and symbols first, then GPT-2's pattern, then numbers cut into threes
    "falcon": [r"[\p{P}\$\+<=>\^~\|`]+", GPT2, r"[0-9][0-9][0-9]"],
    # Qwen3.5: like Llama 3's pattern, with combining marks (\p{M}) kept inside words and single digits
    "qwen35": [r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}"
               r"| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"],
    # DeepSeek: newlines, letter runs, punctuation runs, CJK runs, digits, each step on what is left
    "deepseek-coder": [r"[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", r"[一-龥ࠀ-一가-\ud7ff]+", r"\p{N}"],
    "deepseek-llm": [
        r"[\r\n]",
        # a space or none, then a run of cased letters (Latin, Greek, Cyrillic, Armenian, Georgian, Cherokee, ...)
        r"\s?[A-Za-z\u00b5\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u01ba\u01bc-\u01bf\u01c4-\u0293\u0295-\u02af\u0370"
        r"-\u0373\u0376\u0377\u037b-\u037d\u037f\u0386\u0388-\u038a\u038c\u038e-\u03a1\u03a3-\u03f5\u03f7-"
        r"\u0481\u048a-\u052f\u0531-\u0556\u10a0-\u10c5\u13a0-\u13f5\u13f8-\u13fd\u1c90-\u1cba\u1cbd-\u1cbf"
        r"\u1d00-\u1d2b\u1d6b-\u1d77\u1d79-\u1d9a\u1e00-\u1f15\u1f18-\u1f1d\u1f20-\u1f45\u1f48-\u1f4d\u1f50-"
        r"\u1f57\u1f59\u1f5b\u1f5d\u1f5f-\u1f7d\u1f80-\u1fb4\u1fb6-\u1fbc\u1fbe\u1fc2-\u1fc4\u1fc6-\u1fcc"
        r"\u1fd0-\u1fd3\u1fd6-\u1fdb\u1fe0-\u1fec\u1ff2-\u1ff4\u1ff6-\u1ffc\u2102\u2107\u210a-\u2113\u2115"
        r"\u2119-\u211d\u2124\u2126\u2128\u212a-\u212d\u212f-\u2134\u2139\u213c-\u213f\u2145-\u2149\u214e"
        r"\u2183\u2184\u2c00-\u2c7b\u2c7e-\u2ce4\u2ceb-\u2cee\u2cf2\u2cf3\ua640-\ua66d\ua680-\ua69b\ua722-"
        r"\ua76f\ua771-\ua787\ua78b-\ua78e\uab70-\uabbf\ufb00-\ufb06\ufb13-\ufb17\uff21-\uff3a\uff41-\uff5a"
        r"\U00010400-\U0001044f\U000104b0-\U000104d3\U000104d8-\U000104fb\U00010c80-\U00010cb2\U00010cc0-"
        r"\U00010cf2\U000118a0-\U000118df\U0001e900-\U0001e943]+",
        r"\s?[!-/:-~！-／：-～‘-‟\u3000-。]+",
        r"\s+$",
        r"[一-龥ࠀ-一가-\ud7ff]+",
        r"\p{N}+",
    ],
}

# Given: every tokenizer.ggml.pre value that selects one of the eleven lists, mapped to the list's name. Several
# models share a rule: llama.cpp gives "llama3", "falcon3" and "pixtral" the same regexes as "llama-bpe".
SAME_AS: dict[str, str] = {
    **dict.fromkeys(["gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0",
                     "mellum", "modern-bert", "jina-v1-en", "jina-v2-code", "roberta-bpe", "exaone4"], "gpt-2"),
    **dict.fromkeys(["llama-bpe", "llama3", "llama-v3", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2",
                     "jina-v5-nano"], "llama-bpe"),
    **dict.fromkeys(["qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "megrez"], "qwen2"),
    **{name: name for name in OTHER_REGEXES},
}


def split(text: str, regexes: list[str]) -> list[str]:
    """The words of ``text`` after each regex of ``regexes`` in turn has cut every current word: the
    matches, and the text between them, in order; a match of no characters makes no word. The words join
    back to ``text``; an empty text has none.

    >>> split("a1b22c", [r"\\d+"])
    ['a', '1', 'b', '22', 'c']
    >>> split("ab  12", [r"\\d", r"\\s+(?!\\S)"])
    ['ab', '  ', '1', '2']
    """
    raise NotImplementedError


def regexes_for(pre: str) -> list[str]:
    """The regex list of a ``tokenizer.ggml.pre`` value: yours for GPT-2, Llama 3 and Qwen2 (and the values
    SAME_AS maps to them), the given ones for the others; ``ValueError`` for a value SAME_AS does not know.

    >>> regexes_for("starcoder")[0]
    '\\\\p{N}'
    >>> regexes_for("llama3") == regexes_for("llama-bpe")
    True
    """
    raise NotImplementedError
