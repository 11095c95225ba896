"""gguftok.viz.compare_view: the side-by-side view's counts, chips and rates, computed here another way."""

from __future__ import annotations

import html
import re

import pytest
from viz_checks import assert_sanitizer_safe

from gguftok.viz.compare_view import DEFAULT_VOCABS, per_character, side_by_side
from gguftok.viz.render import escape_visible

TEXTS = ["Hello world! Tokenizers split 2026 and 日本語 differently 😀", "  two  spaces\n\nand a tab\t.", "x"]
HOSTILE = "<script>alert('x')</script> \x00\x07\x1b[31m \u202e evil \"quotes\" & <b>bold</b>"
CHIP = re.compile(r'<span title="id (\d+) · ([^"]*)" style="[^"]*">([^<]*)</span>')


@pytest.fixture(scope="module")
def five(toks):
    return {name: toks(name) for name in DEFAULT_VOCABS}


def _rows(view_text: str) -> dict[str, tuple[int, str]]:
    """vocabulary -> (tokens, per character) as the plain text prints them."""
    out = {}
    for line in view_text.splitlines()[1:]:
        m = re.match(r"(\S+)\s+.*?\s(\d+) tokens\s+(\d+\.\d\d) per character", line)
        out[m.group(1)] = (int(m.group(2)), m.group(3))
    return out


@pytest.mark.parametrize("add_special", [False, True])
def test_counts_and_rates(five, add_special):
    for text in [*TEXTS, HOSTILE]:
        view = side_by_side(five, text, add_special)
        rows = _rows(view.text)
        assert list(rows) == list(five)
        for name, tok in five.items():
            n = len(tok.encode(text, add_special=add_special))
            assert rows[name][0] == n
            assert rows[name][1] == "%.2f" % (n / len(text))  # characters: the str's length
        assert_sanitizer_safe(view.html)


def test_chips_are_the_token_pieces(five):
    """Every chip, in order, is one token: its id and bytes in the title, its piece (whitespace made visible)
    as the label; a character split over byte tokens is framed as one group whose chips show the bytes."""
    text = TEXTS[0]
    view = side_by_side(five, text)
    rows = re.findall(r"<tr><td[^>]*>([^<]+)</td>(.*?)</tr>", view.html)
    assert [name for name, _ in rows] == list(five)
    for name, row in rows:
        tok = five[html.unescape(name)]
        ids = tok.encode(text, add_special=False)
        chips = CHIP.findall(row)
        assert [int(i) for i, _, _ in chips] == ids
        for (_, title, label), i in zip(chips, ids, strict=True):
            piece = tok.token_to_piece(i, special=True)
            try:
                whole = piece.decode("utf-8")
            except UnicodeDecodeError:  # one byte of a character: the chip shows the byte, the group the character
                assert label == piece.hex(" ") and "one byte of" in title
                continue
            assert title == f"bytes {piece.hex(' ')}" and html.unescape(label) == escape_visible(whole)


def test_hostile_text_is_escaped(five):
    view = side_by_side(five, HOSTILE)
    assert "<script" not in view.html and "<b>" not in view.html and "\x1b" not in view.html
    assert "&lt;script&gt;" in view.html and "\u202e" not in view.html
    assert "\\x1b" in view.text and "‹U+202E›" in view.text and "\x00" not in view.text
    assert_sanitizer_safe(view.html)


def test_per_character_and_empty_text(five):
    assert per_character(3, "abcd") == 0.75 and per_character(0, "") == 0.0
    view = side_by_side(five, "")
    assert all(n == (len(five[name].encode("", add_special=False)), "0.00") for name, n in _rows(view.text).items())


def test_widget_redraws_on_text_and_ticks(vocab_path):
    pytest.importorskip("ipywidgets")
    from gguftok import Tokenizer
    from gguftok.viz.compare_view import side_by_side_widget

    box = side_by_side_widget(text="Hello", vocabs=["qwen2", "llama-spm"], folder=vocab_path("qwen2").parent)
    text, picks, out = box.children
    ticks = {c.description: c for c in picks.children}
    assert len(ticks) == 19 and [n for n, c in ticks.items() if c.value] == ["llama-spm", "qwen2"]
    chosen = {n: Tokenizer.from_gguf(vocab_path(n)) for n in ("llama-spm", "qwen2")}
    assert out.value == side_by_side(chosen, "Hello").html
    text.value = "Hello 日本語"
    assert out.value == side_by_side(chosen, "Hello 日本語").html
    ticks["qwen2"].value = False
    ticks["bert-bge"].value = True
    chosen = {n: Tokenizer.from_gguf(vocab_path(n)) for n in ("bert-bge", "llama-spm")}
    assert out.value == side_by_side(chosen, "Hello 日本語").html
    for c in ticks.values():
        c.value = False
    assert "Tick a vocabulary" in out.value
