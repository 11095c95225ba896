"""Hostile files and texts (issue 19, items 6 and 7): what made encoding quadratic, at three sizes each.

    python bench/bench_hostile.py                 # every case (about a minute)
    python bench/bench_hostile.py --case rwkv     # the cases whose name contains "rwkv"

Each row gives the best of three runs per size and the growth from one size to the next: x2 per doubling
is linear, x2.1-2.3 n log n, x4 quadratic; for a size growing x10, x10 is linear. The hostile files are
written with ``gguftok.writer`` from ``gguftok.synthetic``'s vocabularies, as the tests do.

The figures before the fix (same machine, for the reproducers of the issue) were: Unigram user-defined token
of 15K/30K/59K bytes, peak RSS 143/467/1699 MB; RWKV token ``a*L+b``, text ``a*L``, L = 1K/2K/4K:
0.21/1.03/5.45 s; PLaMo-2 the same: 0.08/0.47/3.03 s; WordPiece ``a*N`` on bert-bge, N = 128K/256K/512K:
0.40/1.16/3.78 s; 100,000 control tokens, text 36K/73K/146K: 0.83/1.63/3.22 s (proportional to the number
of tokens: 10.6 s for 146 KB in the issue); a PLaMo-2 piece with every code point: StopIteration; a
400-byte Unigram charsmap with a cycle, text a*n, n = 2K/4K/8K: 0.78/2.76/7.92 s.

The rows marked "bytes compared ~ nL" grow both the token and the text: the Python steps stay linear (one
lookup per position), but the lookup compares the text with the long token as far as they agree, as
llama.cpp's trie walk does (O(n L) there too), in C.
"""

from __future__ import annotations

import argparse
import os
import random
import struct
import sys
import tempfile
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from _common import best_of

from gguftok import Tokenizer
from gguftok import synthetic as S
from gguftok.data import vocab_dir
from gguftok.metadata import ValueType
from gguftok.models.wpm import WPMModel
from gguftok.synthetic import CONTROL, NORMAL, UNKNOWN, USER_DEFINED
from gguftok.writer import write_tokenizer

TMP = Path(tempfile.mkdtemp(prefix="bench_hostile_"))


def rwkv(long_token: str) -> Tokenizer:
    v = S.rwkv_vocab()
    v["tokens"].append(long_token)
    v["token_types"].append(NORMAL)
    return Tokenizer.from_gguf(write_tokenizer(TMP / "rwkv.gguf", **v))


def plamo2(piece: str | bytes) -> Path:
    v = S.plamo2_vocab()
    v["tokens"].append(piece)
    v["token_types"].append(NORMAL)
    v["scores"].append(-1.0)
    return write_tokenizer(TMP / "plamo2.gguf", **v)


def ugm(long_token: str, token_type: int, charsmap: bytes = b"") -> Path:
    tokens = ["<pad>", "</s>", "<unk>", *"abcdefgh", "\u2581", "\u2581a", long_token]
    types = [CONTROL, CONTROL, UNKNOWN] + [NORMAL] * 10 + [token_type]
    scores = [0.0] * 3 + [-float(i + 1) for i in range(10)] + [-1.0]
    extra = {"tokenizer.ggml.precompiled_charsmap": (ValueType.UINT8, list(charsmap))} if charsmap else {}
    return write_tokenizer(TMP / "ugm.gguf", tokens, model="t5", pre=None, token_types=types, scores=scores,
                           special_ids={"unknown": 2, "eos": 1, "padding": 0}, extra=extra)


def cyclic_charsmap() -> bytes:
    """400 bytes: the XCDA walks on ``a`` back to its root, as far as the text goes; ``b`` is a leaf."""
    nodes = [0] * 0x64
    nodes[0x61] = (0x61 << 10) | 0x61
    nodes[0x62] = (0x62 << 10) | 0x62 | 0x100
    xcda = struct.pack(f"<{len(nodes)}I", *nodes)
    return struct.pack("<I", len(xcda)) + xcda + b"x\0"


def specials(count: int) -> Tokenizer:
    rng = random.Random(1)
    v = S.byte_level_vocab()
    seen = set(v["tokens"])
    extra: set[str] = set()
    while len(extra) < count:
        t = "<" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8)) + ">"
        if t not in seen:
            extra.add(t)
    v["tokens"] += sorted(extra)
    v["token_types"] += [CONTROL] * count
    return Tokenizer.from_gguf(write_tokenizer(TMP / "specials.gguf", **v))


def row(label: str, sizes: list[int], run: Callable[[int], float], unit: str = "s") -> None:
    cells, prev = [], None
    for n in sizes:
        t = run(n)
        cell = f"{n:>9,d}: {t:8.3f} {unit}"
        if prev:
            cell += f" (x{t / prev:.2f})"
        cells.append(cell)
        prev = t
    print(f"{label:52s} " + " | ".join(cells), flush=True)


def timed(fn: Callable[[], object]) -> float:
    return best_of(3, fn)


def peak_mb(fn: Callable[[], object]) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def case_ugm_user_defined() -> None:
    def load_peak(n: int) -> float:
        path = ugm("a" * n, USER_DEFINED)
        return peak_mb(lambda: Tokenizer.from_gguf(path))

    sizes = [15_000, 30_000, 60_000]
    row("ugm: user-defined token a*L, load, peak MB", sizes, load_peak, "MB")

    def encode(n: int) -> float:
        tok = Tokenizer.from_gguf(ugm("a" * 4000 + "b", USER_DEFINED))
        return timed(lambda: tok.encode("a" * n, add_special=False))

    row("ugm: user-defined a*4000+b, text a*n", [50_000, 100_000, 200_000], encode)


def case_ugm_charsmap() -> None:
    tok = Tokenizer.from_gguf(ugm("\u2581b", NORMAL, cyclic_charsmap()))
    row("ugm: charsmap with a cycle, text a*n", [25_000, 50_000, 100_000],
        lambda n: timed(lambda: tok.encode("a" * n, add_special=False)))


def case_ugm_long_token() -> None:
    def text(n: int) -> float:
        tok = Tokenizer.from_gguf(ugm("a" * 4000 + "b", NORMAL))
        return timed(lambda: tok.encode("a" * n, add_special=False))

    def both(n: int) -> float:
        tok = Tokenizer.from_gguf(ugm("a" * n + "b", NORMAL))
        return timed(lambda: tok.encode("a" * n, add_special=False))

    row("ugm: token a*4000+b, text a*n", [8_000, 16_000, 32_000], text)
    row("ugm: token a*n+b, text a*n (bytes compared ~ nL)", [4_000, 8_000, 16_000], both)


def case_rwkv() -> None:
    def text(n: int) -> float:
        tok = rwkv("a" * 4000 + "b")
        return timed(lambda: tok.encode("a" * n, add_special=False))

    def both(n: int) -> float:
        tok = rwkv("a" * n + "b")
        return timed(lambda: tok.encode("a" * n, add_special=False))

    row("rwkv: token a*4000+b, text a*n", [8_000, 16_000, 32_000], text)
    row("rwkv: token a*n+b, text a*n (bytes compared ~ nL)", [4_000, 8_000, 16_000], both)


def case_plamo2() -> None:
    def text(n: int) -> float:
        tok = Tokenizer.from_gguf(plamo2("a" * 4000 + "b"))
        return timed(lambda: tok.encode("a" * n, add_special=False))

    def both(n: int) -> float:
        tok = Tokenizer.from_gguf(plamo2("a" * n + "b"))
        return timed(lambda: tok.encode("a" * n, add_special=False))

    def every(n: int) -> float:  # a piece of the first n code points (all of them: 1,114,111, item 7)
        piece = b"".join(chr(c).encode("utf-8", "surrogatepass") for c in range(1, n + 1))
        path = plamo2(piece)
        return timed(lambda: Tokenizer.from_gguf(path).encode("Hello", add_special=False))

    row("plamo2: piece a*4000+b, text a*n", [8_000, 16_000, 32_000], text)
    row("plamo2: piece a*n+b, text a*n (bytes compared ~ nL)", [4_000, 8_000, 16_000], both)
    row("plamo2: piece of n code points, load + encode", [278_527, 557_055, 0x10FFFF], every)


def case_wpm() -> None:
    tok = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-bert-bge.gguf")
    row("wpm: bert-bge, text a*n", [256_000, 512_000, 1_024_000], lambda n: timed(lambda: tok.encode("a" * n)))
    model = WPMModel(["[UNK]", "\u2581a", "a", "a" * 4000 + "b"], unk=0, lowercase=True, strip_accents=True)
    row("wpm: token a*4000+b, text a*n", [8_000, 16_000, 32_000],
        lambda n: timed(lambda: model.encode(b"a" * n)))


def case_specials() -> None:
    rng = random.Random(3)
    text = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz <>|0123456789") for _ in range(146_000))
    toks: dict[int, Tokenizer] = {}

    def count(n: int, parse_special: bool) -> float:
        tok = toks.setdefault(n, specials(n))
        return timed(lambda: tok.encode(text, parse_special=parse_special))

    sizes = [1_000, 10_000, 100_000]
    row("special: n control tokens, 146 KB text", sizes, lambda n: count(n, False))
    row("special: the same, parse_special=True", sizes, lambda n: count(n, True))
    tok = toks[100_000]
    row("special: 100,000 control tokens, n bytes", [36_500, 73_000, 146_000],
        lambda n: timed(lambda: tok.encode(text[:n])))


CASES = {"ugm-user-defined": case_ugm_user_defined, "ugm-long-token": case_ugm_long_token,
         "ugm-charsmap": case_ugm_charsmap, "rwkv": case_rwkv,
         "plamo2": case_plamo2, "wpm": case_wpm, "special": case_specials}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", default="", help="run the cases whose name contains this")
    args = parser.parse_args()
    print(f"# CPython {sys.version.split()[0]}, {os.cpu_count()} cores; growth per step in parentheses")
    for name, case in CASES.items():
        if args.case in name:
            case()


if __name__ == "__main__":
    main()
