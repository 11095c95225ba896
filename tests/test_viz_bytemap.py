"""Notebook 02's views of the GPT-2 byte map: expected values come from the lesson or from an independent
derivation (Python's own idea of a printable, non-space Latin-1 character), never from the views."""

from __future__ import annotations

import re

import pytest
from viz_checks import assert_sanitizer_safe as _shared_check

from gguftok import Tokenizer
from gguftok.viz.bytemap_view import (
    byte_grid,
    byte_inspector,
    byte_map_figure,
    byte_name,
    split_character_view,
    stream_steps,
    text_bytes_view,
    vocab_entries_view,
    vocab_roundtrip,
    vocab_text_marked,
)

# The bytes that keep their own character are the Latin-1 characters that print and are not whitespace:
# '!'..'~', then U+00A1.. except the soft hyphen (a format character, not printable).
KEEP = {b for b in range(256) if chr(b).isprintable() and not chr(b).isspace()}
LESSON = {  # Qwen2 id -> (stored text, bytes), from the lesson's output
    1879: ("Ġworld", "20 77 6f 72 6c 64"),
    198: ("Ċ", "0a"),
    90316: ("ĠðŁĺĢ", "20 f0 9f 98 80"),
    99489: ("ä¸ĸçķĮ", "e4 b8 96 e7 95 8c"),
    9707: ("Hello", "48 65 6c 6c 6f"),
}


@pytest.fixture(scope="module")
def qwen2(vocab_path):
    return Tokenizer.from_gguf(vocab_path("qwen2"))


def assert_sanitizer_safe(html: str) -> None:
    _shared_check(html)
    assert re.findall(r'style="([^"]*)"', html) + re.findall(r"style='([^']*)'", html)


def grid_cells(text: str) -> dict[int, str]:
    """Byte -> its 3-character cell in the grid's text form."""
    cells = {}
    for line in text.splitlines()[2:]:
        row = int(line[0], 16)
        for col in range(16):
            cells[16 * row + col] = line[4 + 4 * col: 7 + 4 * col].ljust(3)
    return cells


def test_independent_rule_gives_188_and_68():
    assert len(KEEP) == 188 and 256 - len(KEEP) == 68


def test_grid_text_marks_exactly_the_moved_bytes():
    view = byte_grid()
    assert view.text.splitlines()[0].startswith("GPT-2 byte map: 188 bytes keep their own character, 68 are moved")
    cells = grid_cells(view.text)
    assert len(cells) == 256
    moved = {b for b, c in cells.items() if c[0] == "[" and c[2] == "]"}
    assert moved == set(range(256)) - KEEP
    for b in KEEP:
        assert cells[b] == f" {chr(b)} "
    # the lesson: space (32) is Ġ U+0120, newline (10) is Ċ, tab (9) is ĉ U+0109
    assert cells[32] == "[\u0120]" == "[Ġ]" and cells[10] == "[Ċ]" and cells[9] == "[\u0109]"
    # moved bytes take U+0100, U+0101, ... in byte order
    assert [ord(cells[b][1]) for b in sorted(moved)] == list(range(0x100, 0x100 + 68))


def test_grid_html_distinguishes_by_border_and_label_not_colour_alone():
    html = byte_grid().html
    assert_sanitizer_safe(html)
    cells = re.findall(r"<td (.*?)</td>", html)
    assert len(cells) == 256
    dashed = [c for c in cells if "dashed" in c]
    assert len(dashed) == 68 and all("↑" in c and "linear-gradient" in c for c in dashed)
    solid = [c for c in cells if "dashed" not in c]
    assert len(solid) == 188 and all(">=</div>" in c and "1px solid" in c for c in solid)
    # the invisible bytes are named with visible marks
    assert "↑␣" in cells[0x20] and "↑↵" in cells[0x0A] and "↑→" in cells[0x09] and "↑C1" in cells[0x85]
    assert "↑SHY" in cells[0xAD] and "↑⍽" in cells[0xA0] and "↑␡" in cells[0x7F]


def test_grid_html_escapes_markup_bytes():
    cells = re.findall(r"<td (.*?)</td>", byte_grid().html)
    assert ">&lt;</div>" in cells[ord("<")] and ">&gt;</div>" in cells[ord(">")]
    assert ">&amp;</div>" in cells[ord("&")] and ">&quot;</div>" in cells[ord('"')]


def test_byte_names_are_visible():
    assert byte_name(0x20)[0] == "␣" and byte_name(0x0A)[0] == "↵" and byte_name(0x09)[0] == "→"
    assert byte_name(0x01)[0] == "\u2401" and byte_name(0x1F)[0] == "\u241f"
    assert all(not g.isspace() and g.isprintable() for g, _ in map(byte_name, range(256)))


def test_marked_vocab_text():
    assert vocab_text_marked("Ġworld") == "[Ġ]world"
    assert vocab_text_marked("ä¸ĸ") == "ä¸[ĸ]"  # e4 b8 kept, 96 moved


def test_lesson_entries_decode_to_the_lesson_bytes(qwen2):
    view = vocab_entries_view(qwen2, list(LESSON))
    lines = view.text.splitlines()
    for line, (tid, (stored, hexed)) in zip(lines, LESSON.items(), strict=True):
        assert qwen2.token_text(tid) == stored
        assert line.split()[1] == str(tid) and line.split()[2] == stored
        assert f"-> bytes {hexed} " in line
        assert bytes.fromhex(hexed) == qwen2.token_to_piece(tid)
    assert "'␣world'" in lines[0] and "'↵'" in lines[1] and "'␣😀'" in lines[2] and "'世界'" in lines[3]
    assert "(1 of 6 bytes moved)" in lines[0] and "(0 of 5 bytes moved)" in lines[4]
    assert_sanitizer_safe(view.html)


def test_map_alone_decodes_every_normal_token(vocab_path):
    gpt2 = Tokenizer.from_gguf(vocab_path("gpt-2"))
    n, agree = vocab_roundtrip(gpt2)
    assert n == agree == 50256  # all but <|endoftext|>


def test_text_view_escapes_and_shows_whitespace(qwen2):
    view = text_bytes_view(qwen2, "<b>&\n x")
    assert "<b" not in view.html and ">&<" not in view.html
    assert "&lt;" in view.html and "&gt;" in view.html and "&amp;" in view.html
    assert_sanitizer_safe(view.html)
    assert "'↵'    U+000A  0a" in view.text and "[Ċ]" in view.text and "'␣'" in view.text
    assert view.text.splitlines()[0] == "7 characters, 7 UTF-8 bytes, 2 of them moved"  # newline, space
    assert "\n" not in view.html  # the newline is drawn, never emitted raw
    long = text_bytes_view(qwen2, "a" * 50, max_chars=10)
    assert "40 more characters not listed" in long.text


def test_text_view_lists_the_lesson_ids(qwen2):
    text = text_bytes_view(qwen2, "Hello world").text
    assert "ids (2): 9707:Hello 1879:[Ġ]world" in text  # the lesson: Hello world is [9707, 1879]


def test_split_emoji_is_never_printed_as_replacement(qwen2):
    text = "🫠 melts"
    ids = qwen2.encode(text, add_special=False)
    steps = stream_steps(qwen2, ids)
    assert b"".join(s[2] for s in steps) == text.encode("utf-8")
    assert "".join(s[3] for s in steps) == text
    assert steps[0][1] == "ðŁ" and steps[0][2] == bytes.fromhex("f0 9f")  # the lesson's half emoji
    assert [s[3] for s in steps[:3]] == ["", "", "🫠"]
    view = split_character_view(qwen2, text)
    assert "\ufffd" not in view.text and "\ufffd" not in view.html
    assert "(holding 2 bytes)" in view.text and "(holding 3 bytes)" in view.text
    assert_sanitizer_safe(view.html)


def test_inspector_wraps_the_pure_view(qwen2):
    pytest.importorskip("ipywidgets")
    box = byte_inspector(qwen2, "a\\nb")
    out = box.children[-1]
    assert out.value == text_bytes_view(qwen2, "a\nb").html
    box.children[1].value = "é"
    assert out.value == text_bytes_view(qwen2, "é").html


def test_map_figure_plots_both_groups():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = byte_map_figure()
    sizes = sorted(len(c.get_offsets()) for c in fig.axes[0].collections)
    assert sizes == [68, 188]
    plt.close(fig)
