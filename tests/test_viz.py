"""The teaching views: escaped, whitespace made visible, characters kept whole, inline styles only."""

from __future__ import annotations

import pytest
from conftest import REPO
from viz_checks import assert_sanitizer_safe

from gguftok import Tokenizer
from gguftok.pretokenize.unicode import WHITESPACE_SET
from gguftok.viz import chips, escape_visible, token_chips
from gguftok.viz.render import group_characters
from gguftok.viz.vocab import metadata_table, vocab_page


@pytest.fixture(scope="module")
def gpt2(vocab_path):
    return Tokenizer.from_gguf(vocab_path("gpt-2"))



def test_token_text_is_escaped(gpt2):
    view = token_chips(gpt2, gpt2.encode("<s>&\"x\"</s>"))
    assert "<s>" not in view.html and "&lt;" in view.html and "&amp;" in view.html
    assert_sanitizer_safe(view.html)
    assert chips([("<script>", 1)]).html.count("&lt;script&gt;") == 1


def test_whitespace_is_visible(gpt2):
    assert escape_visible(" \t\n\r\x00\u00a0\u3000") == "␣→↵␍␀⍽□"
    assert escape_visible("a\u2003b\u2028c\u200bd\x1c") == "a‹U+2003›b‹U+2028›c‹U+200B›d\\x1c"
    for cp in WHITESPACE_SET:  # nothing in llama.cpp's whitespace set is drawn as itself
        assert escape_visible(chr(cp)) != chr(cp)
    # zero-width and bidirectional format characters are named, not drawn (an override would reorder the view)
    for cp in (0x200B, 0x200D, 0x2060, 0xFEFF, 0x00AD, 0x202E, 0x2066, 0x061C, 0xE0041):
        assert escape_visible(chr(cp)) == f"‹U+{cp:04X}›"
    assert escape_visible("é漢😀\u0301") == "é漢😀\u0301"  # visible characters, marks included, stay
    view = token_chips(gpt2, gpt2.encode("a\u202eb\u200dc"))
    assert "\u202e" not in view.html + view.text and "‹U+202E›" in view.text and "‹U+200D›" in view.html
    assert "␣Hi" in token_chips(gpt2, gpt2.encode(" Hi")).text


def test_split_characters_stay_whole(gpt2):
    ids = gpt2.encode(" 😀!")
    view = token_chips(gpt2, ids)
    assert "😀" in view.text and "\ufffd" not in view.text and "\ufffd" not in view.html
    assert group_characters([b"\xf0\x9f", b"\x98", b"\x80"]) == [([0, 1, 2], "😀")]
    assert group_characters([b"\xff", b"a"]) == [([0], "\ufffd"), ([1], "a")]  # invalid bytes do not wait


def test_vocabulary_pages_never_list_everything(vocab_path):
    tok = Tokenizer.from_gguf(vocab_path("qwen2"))
    view = vocab_page(tok, per_page=20)
    assert view.text.splitlines()[0] == "151936 tokens; page 1 of 7597" and len(view.text.splitlines()) == 21
    assert_sanitizer_safe(view.html)
    last = vocab_page(tok, page=10**6, per_page=20)
    assert "page 7597 of 7597" in last.text


def test_metadata_table_shows_types():
    from gguftok import read_metadata

    view = metadata_table(read_metadata(REPO / "data" / "synthetic" / "tiny-9.gguf"))
    assert "tokenizer.ggml.merges        array[string]" in view.text
    assert_sanitizer_safe(view.html)
