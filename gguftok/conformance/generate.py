"""Inputs that find tokenizer bugs: seeded generators of text and bytes, and of id sequences to decode.

In the spirit of llama.cpp's ``tests/test-tokenizer-random.py``, and wider: fragments of the vocabulary
itself, every Unicode category and many scripts, the whole whitespace set, contractions in every case,
digit runs of every length, code and markup, special-token texts glued to text and spaces, invalid UTF-8,
and long inputs. Every generator takes a ``random.Random`` so a seed reproduces a run.

>>> import random
>>> g = Generators(pieces=[b"Hello", b" world"], specials=["<|endoftext|>"])
>>> case = g.text(random.Random(1))
>>> isinstance(case, (str, bytes))
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

# -------------------------------------------------------------------------------------------- alphabets

WHITESPACE = [chr(c) for c in (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
                               0x2028, 0x2029, 0x202F, 0x205F, 0x3000)]
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u034f"]
COMBINING = [chr(c) for c in (*range(0x300, 0x370), 0x1AB0, 0x1DC0, 0x20D0, 0x20E3, 0xFE0F, 0xFE0E, 0x093C, 0x0E31)]
SCRIPTS = {
    "latin": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "latin-ext": "àáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿßŁłŒœŠšŽžİıǅǈǋ",
    "greek": "αβγδεζηθικλμνξοπρστυφχψωΑΒΓΔΣΩάέήίόύώς",
    "cyrillic": "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЖЯ",
    "armenian": "աբգդեզէըթժ",
    "hebrew": "אבגדהוזחטיכלמנסעפצקרשת",
    "arabic": "ابتثجحخدذرزسشصضطظعغفقكلمنهوي",
    "devanagari": "अआइईउऊऋएऐओऔकखगघचछजझटठडढणतथदधनपफबभमयरलवशषसह्ािीुू",
    "thai": "กขคงจฉชซญดตถทนบปผพฟมยรลวศสหอฮะาำิีึืุู",
    "hangul": "가나다라마바사아자차카타파하한국어",
    "jamo": "\u1100\u1161\u11a8\u1112\u1175",
    "hiragana": "あいうえおかきくけこさしすせそたちつてとなにぬねのん",
    "katakana": "アイウエオカキクケコサシスセソタチツテトナニヌネノンー",
    "cjk": "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年",
    "cjk-ext": "\U00020000\U0002a6d6\U0002b740\U00030000\u3400\u4dbf",
    "ethiopic": "ሀለሐመሠረሰ",
    "georgian": "აბგდევზ",
    "tamil": "அஆஇஈஉஊஎஏஐ",
    "fullwidth": "ＡＢＣａｂｃ０１２！？（）",
    "math": "𝐀𝐁𝐂𝑎𝑏𝑐𝟎𝟏𝟐∑∏√∞≠≤≥∀∃∈",
    "symbols": "©®™°±×÷§¶†‡•…‰′″€£¥₹₿←→↑↓♠♣♥♦★☆✓✗",
    "digits-other": "٠١٢٣٤٥٦٧٨٩۰۱۲०१२३৪৫๑๒๓０１２²³¹½¼¾ⅠⅡⅢⅫ①②③",
    "punct": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~¡¿«»‹›“”‘’„‚–—‐·、。，！？：；「」『』【】",
}
EMOJI = ["😀", "😂", "🤖", "👍", "👍🏽", "❤️", "🔥", "🎉", "🇺🇸", "🇯🇵", "🏳️‍🌈", "👨‍👩‍👧‍👦", "🧑🏿‍💻", "1️⃣", "#️⃣",
         "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "🫠", "☺", "✈︎"]
ODD_CODE_POINTS = ["\x00", "\x01", "\x07", "\x1b", "\x7f", "\x80", "\x9f", "\u0378", "\u0380", "\u08ff",
                   "\ue000", "\uf8ff", "\U000f0000", "\U0010fffd", "\ufffe", "\uffff", "\U0010ffff", "\ufffd",
                   "\U000e0001", "\U000e0080", "\U0001fbff", "\u2e80", "\u31ef"]
CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"]
APOSTROPHES = ["'", "’", "`", "ʼ"]
WORDS = ["the", "of", "and", "to", "in", "is", "you", "that", "it", "he", "was", "for", "on", "are", "as",
         "with", "his", "they", "I", "at", "be", "this", "have", "from", "or", "one", "had", "by", "word",
         "Hello", "world", "tokenizer", "llama", "GGUF", "don", "can", "won", "naïve", "café", "résumé",
         "straße", "Ünïcödé", "ñandú", "Ελλάδα", "Москва", "東京", "서울", "मुंबई", "القاهرة", "ירושלים"]
CODE = [
    "def f(x):\n    return x + 1\n",
    "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}\n",
    "if __name__ == \"__main__\":\n    main()",
    "<div class=\"a\">Hi &amp; bye</div>",
    "{\"key\": [1, 2.5, null, true], \"s\": \"x\\ny\"}",
    "SELECT * FROM t WHERE id=42;",
    "x = a->b ?: c; // comment",
    "$ echo \"$HOME\" | grep -E '^/' && ls -la",
    "https://example.com/path?q=1&r=2#frag",
    "user.name+tag@example.org",
    "\\frac{a}{b} + \\sum_{i=0}^{n} x_i^2",
    "# Title\n\n- item *em* **strong** `code`\n",
    "    indented\n        more\n\tTab\n",
    "a\r\nb\rc\n\nd",
    "0x7fffffff 1e-10 3.14159 -42 1,000,000.00 12:30:45 2026-11-29",
]


def _scripts_text(rng: random.Random) -> str:
    alphabet = SCRIPTS[rng.choice(list(SCRIPTS))]
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))


def _whitespace(rng: random.Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return " " * rng.randint(1, 40)
    if kind == 1:
        return "".join(rng.choice(WHITESPACE) for _ in range(rng.randint(1, 8)))
    if kind == 2:
        return "\n" + rng.choice([" ", "\t"]) * rng.randint(1, 16)
    return rng.choice(["\n", "\n\n", "\r\n", "\t", " \n ", "\n\n\n", "  \t \n"])


def _contraction(rng: random.Random) -> str:
    c = rng.choice(CONTRACTIONS)
    c = "".join(ch.upper() if rng.random() < 0.5 else ch for ch in c)
    c = c.replace("'", rng.choice(APOSTROPHES))
    return rng.choice(WORDS) + c + rng.choice(["", " ", " it", "s", "'"])


def _digits(rng: random.Random) -> str:
    run = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 40)))
    return rng.choice(["", " ", "x", "$", "-"]) + run + rng.choice(["", " ", "abc", ".5", ",000", "%"])


def _unicode(rng: random.Random) -> str:
    kind = rng.randrange(6)
    if kind == 0:
        return rng.choice(WORDS) + "".join(rng.choice(COMBINING) for _ in range(rng.randint(1, 4)))
    if kind == 1:
        return "".join(rng.choice(EMOJI) for _ in range(rng.randint(1, 4)))
    if kind == 2:
        return "".join(rng.choice(ODD_CODE_POINTS) for _ in range(rng.randint(1, 4)))
    if kind == 3:
        return rng.choice(ZERO_WIDTH) + rng.choice(WORDS) + rng.choice(ZERO_WIDTH)
    if kind == 4:  # any code point at all, surrogates excluded
        cp = rng.randrange(0x110000)
        return chr(cp) if not 0xD800 <= cp < 0xE000 else "\ufffd"
    return _scripts_text(rng)


def invalid_utf8(rng: random.Random) -> bytes:
    """Bytes that are not UTF-8: stray continuations, truncations, overlongs, surrogates, > U+10FFFF, ..."""
    return rng.choice([
        b"\x80", b"\xbf", b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xf0\x80\x80\x80",  # overlong
        b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98",  # truncated
        b"\xed\xa0\x80", b"\xed\xbf\xbf",  # surrogates
        b"\xf4\x90\x80\x80", b"\xf7\xbf\xbf\xbf",  # above U+10FFFF
        b"\xf8\x88\x80\x80\x80", b"\xfc\x84\x80\x80\x80\x80", b"\xfe", b"\xff",  # 5/6-byte leads, never valid
        bytes(rng.randrange(256) for _ in range(rng.randint(1, 6))),
    ])


class Generators:
    """Text generators over one vocabulary's pieces (the bytes of its tokens) and its special-token texts."""

    def __init__(self, pieces: Sequence[bytes], specials: Sequence[str]) -> None:
        # Fragments of the vocabulary: token bytes that decode as UTF-8 on their own.
        self.fragments = [p.decode() for p in pieces if p and _is_utf8(p)] or WORDS
        self.specials = list(specials)
        self.kinds: dict[str, Callable[[random.Random], str]] = {
            "vocab": self._vocab,
            "words": lambda r: " ".join(r.choice(WORDS) for _ in range(r.randint(1, 8))),
            "unicode": _unicode,
            "whitespace": _whitespace,
            "contraction": _contraction,
            "digits": _digits,
            "code": lambda r: r.choice(CODE),
            "special": self._special,
        }

    def _vocab(self, rng: random.Random) -> str:
        return "".join(rng.choice(self.fragments) for _ in range(rng.randint(1, 8)))

    def _special(self, rng: random.Random) -> str:
        if not self.specials:
            return rng.choice(["<s>", "</s>", "<|endoftext|>", "<unk>", "[CLS]"])
        text = rng.choice(self.specials)
        return rng.choice(["", " ", "  ", "\n", "x", "Hello "]) + text + rng.choice(["", " ", "\n", "y", " world"])

    def text(self, rng: random.Random, max_parts: int = 6) -> str | bytes:
        """One test input: 1 to ``max_parts`` fragments of random kinds; now and then raw invalid bytes."""
        parts = [self.kinds[rng.choice(list(self.kinds))](rng) for _ in range(rng.randint(1, max_parts))]
        text = "".join(parts)
        if rng.random() < 0.08:
            raw = text.encode()
            at = rng.randint(0, len(raw))
            return raw[:at] + invalid_utf8(rng) + raw[at:]
        return text

    def long_text(self, rng: random.Random, size: int) -> str:
        """About ``size`` characters of mixed text, with no single word over a few hundred code points."""
        out: list[str] = []
        n = 0
        while n < size:
            part = self.kinds[rng.choice(["vocab", "words", "whitespace", "code", "digits", "unicode"])](rng)
            out.append(part + rng.choice([" ", "\n", ""]))
            n += len(out[-1])
        return "".join(out)[:size]

    def named(self, kind: str, rng: random.Random) -> str:
        return self.kinds[kind](rng)


def _is_utf8(b: bytes) -> bool:
    try:
        b.decode()
    except UnicodeDecodeError:
        return False
    return True


def id_sequence(rng: random.Random, n_vocab: int, special_ids: Sequence[int], byte_ids: Sequence[int],
                max_len: int = 24) -> list[int]:
    """Ids to decode: uniform ids, special ids, lone byte tokens (partial UTF-8), in random runs."""
    out = []
    for _ in range(rng.randint(1, max_len)):
        r = rng.random()
        if r < 0.2 and special_ids:
            out.append(rng.choice(special_ids))
        elif r < 0.35 and byte_ids:
            out.append(rng.choice(byte_ids))
        else:
            out.append(rng.randrange(n_vocab))
    return out
