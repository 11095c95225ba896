"""gguftok.viz.families_view: values (checked against llama.cpp's own test cases), escaping, sanitizer safety."""

from __future__ import annotations

import random
import re

import pytest
from viz_checks import assert_sanitizer_safe as _safe

from gguftok import Tokenizer
from gguftok.conformance.cases import read_cases
from gguftok.data import vocab_dir
from gguftok.models.spm import spm_merge
from gguftok.viz.families_view import (
    compare_families,
    family_view,
    normalize_view,
    pieces_table,
    short_name,
    spm_steps,
    spm_steps_view,
    toy_spm_encode,
    toy_spm_vocab,
    vocab_files,
    wordpiece_view,
)

SPM = vocab_dir() / "ggml-vocab-llama-spm.gguf"


@pytest.fixture(scope="module")
def spm():
    return Tokenizer.from_gguf(SPM)



def test_toy_example():
    texts, scores = toy_spm_vocab()
    assert toy_spm_encode("Hello world", texts, scores) == ["▁Hello", "▁world"]
    assert toy_spm_encode("Hello wörld", texts, scores) == ["▁Hello", "▁w", "<0xC3>", "<0xB6>", "r", "ld"]
    merged = [m.decode() for m, _, _ in spm_steps("▁Hello▁world".encode(), {t.encode(): i for i, t in
                                                                             enumerate(texts)}, scores)]
    assert merged[:6] == ["ld", "lo", "or", "▁w", "▁wor", "▁world"]
    assert merged[-1] == "▁Hello"


def test_steps_agree_with_spm_merge():
    rng = random.Random(7)
    alphabet = "ab▁c"
    for _ in range(300):
        toks = {"".join(rng.choice(alphabet) for _ in range(rng.randint(2, 4))).encode() for _ in range(8)}
        b2i = {t: i for i, t in enumerate(sorted(toks))}
        scores = [float(rng.choice([-1, -2, -3])) for _ in b2i]  # ties on purpose
        data = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10))).encode()
        steps = spm_steps(data, b2i, scores)
        final = steps[-1][2] if steps else spm_merge(data, {}, [])
        assert final == spm_merge(data, b2i, scores)


def test_llama_spm_lesson_ids(spm):
    ids = spm.encode("Hello wörld 😀")
    assert ids == [1, 15043, 281, 1340, 430, 29871, 243, 162, 155, 131]
    t = pieces_table(spm, ids).text
    assert "<0xF0>" in t and "▁Hello" in t
    assert "(243 162 155 131):😀" in family_view(spm, "Hello wörld 😀").text
    assert spm.decode(ids[1:]) == "Hello wörld 😀"
    assert spm.encode("<s>Hi<s> there", parse_special=True) == [1, 1, 6324, 1, 29871, 727]


def test_against_llama_cpp_cases(spm):
    cases = read_cases(SPM.with_name(SPM.name + ".inp").read_bytes(),
                       SPM.with_name(SPM.name + ".out").read_text(encoding="utf-8"))
    assert cases
    for text, expected in cases:
        view = family_view(spm, text.decode("utf-8", "surrogateescape"), add_special=False).text
        assert view.splitlines()[0].endswith(f"{len(expected)} tokens")
        shown = [int(x) for x in re.findall(r"(?:^|[ (])(\d+)(?=[: )])", view.splitlines()[-1] if expected else "")]
        assert shown == expected


def test_other_families():
    bert = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-bert-bge.gguf")
    ids = bert.encode("Hello, wörld!")
    assert ids[0] == 101 and ids[-1] == 102
    assert "words: hello | , | world | !" in wordpiece_view(bert, "Hello, wörld!").text
    nomic = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-nomic-bert-moe.gguf")
    assert "-> ▁hello " in normalize_view(nomic, ["ｈｅｌｌｏ"]).text
    assert nomic.encode("ｈｅｌｌｏ ① world") == nomic.encode("hello 1 world")


def test_compare_families_all_nineteen():
    files = vocab_files()
    assert len(files) == 19 and short_name(files[0]) == "aquila"
    toks = {short_name(p): Tokenizer.from_gguf(p) for p in files if "spm" in p.name or "bge" in p.name}
    r = compare_families(toks, "Hello wörld 😀")
    assert "llama-spm        spm      10  1 15043" in r.text
    _safe(r.html)


def test_escaping(spm):
    evil = "<script>alert(1)</script> \"x\" & y"
    for r in (family_view(spm, evil), spm_steps_view(evil, *toy_spm_vocab()),
              pieces_table(spm, spm.encode(evil))):
        _safe(r.html)
        assert "<script>" not in r.html and "&lt;" in r.html
    assert "␣" in family_view(spm, "a b").text


def test_boxes_carry_text_colour_and_border(spm):
    h = family_view(spm, "Hello").html + spm_steps_view("Hello", *toy_spm_vocab()).html
    for style in re.findall(r'style="([^"]*background:[^"]*)"', h):
        assert "color:#1A1A1A" in style and "border:" in style
