"""gguftok.viz.numbers_view: how numbers are cut, against the pre-tokenizer's regexes run with the regex module."""

from __future__ import annotations

import re

import pytest
import regex
from conftest import VOCAB_NAMES
from viz_checks import assert_sanitizer_safe

from gguftok.pretokenize import pre_tokenizer_config
from gguftok.viz.numbers_view import SAMPLES, digit_split, numbers_view
from gguftok.viz.render import escape_visible

BPE = [n for n in VOCAB_NAMES if n not in ("baichuan", "bert-bge", "llama-spm", "nomic-bert-moe", "phi-3")]
MORE = ["0", "99", "100", "12345678901234567890", "-42", "1e10", "$3.50", "2026-12-01", "v1.2.3", "٣٤٥", "１２３"]


def regex_words(pre: str | None, text: str) -> list[str]:
    """llama.cpp's unicode_regex_split, written out: each regex in turn cuts every piece into its matches and
    the text between them."""
    pieces = [text]
    for rx in pre_tokenizer_config(pre).regexes:
        out = []
        for piece in pieces:
            at = 0
            for m in regex.finditer(rx, piece):
                if m.start() > at:
                    out.append(piece[at:m.start()])
                if m.end() > m.start():
                    out.append(m.group())
                at = m.end()
            if at < len(piece):
                out.append(piece[at:])
        pieces = out
    return pieces


@pytest.mark.parametrize("name", BPE)
def test_groups_are_the_pre_tokenizers_words_encoded(toks, name):
    tok = toks(name)
    assert tok.pre is not None
    for sample in SAMPLES + tuple(MORE):
        ids = []
        for word in regex_words(tok.vocab.pre, sample):
            ids += tok.encode(word, add_special=False)
        assert ids == tok.encode(sample, add_special=False), (name, sample)
        assert digit_split(tok, sample) == [tok.decode([i]) for i in ids]


def test_llama3_groups_in_threes_qwen2_single_digits(toks):
    llama3, qwen2 = toks("llama-bpe"), toks("qwen2")
    assert llama3.encode("2026", add_special=False) == [2366, 21]
    assert qwen2.encode("2026", add_special=False) == [17, 15, 17, 21]
    assert digit_split(llama3, "2026") == ["202", "6"] and digit_split(llama3, "1234567") == ["123", "456", "7"]
    assert digit_split(qwen2, "2026") == ["2", "0", "2", "6"]
    assert regex_words("llama-bpe", "1234567") == ["123", "456", "7"]
    assert regex_words("qwen2", "1,000") == ["1", ",", "0", "0", "0"]


def test_sentencepiece_pieces_start_with_its_space(toks):
    spm = toks("llama-spm")
    assert digit_split(spm, "42") == [" ", "4", "2"]
    assert "".join(digit_split(spm, "3.14159")) == " 3.14159"


def test_view_table(toks):
    chosen = {n: toks(n) for n in ("llama-bpe", "qwen2", "llama-spm", "gpt-2")}
    view = numbers_view(chosen)
    lines = view.text.splitlines()
    assert lines[0].split() == ["vocabulary", *SAMPLES]
    for line, (name, tok) in zip(lines[1:], chosen.items(), strict=True):
        cells = line.split()
        assert cells[0] == name
        assert cells[1:] == ["|".join(escape_visible(p) for p in digit_split(tok, s)) for s in SAMPLES]
    assert_sanitizer_safe(view.html)
    rows = re.findall(r"<tr><td[^>]*>([^<]+)</td>(.*?)</tr>", view.html)
    for name, row in rows:
        cells = re.findall(r"<td style='[^']*'>(.*?)</td>", row)
        assert [len(re.findall(r'title="id \d+', c)) for c in cells] == [
            len(chosen[name].encode(s, add_special=False)) for s in SAMPLES]
