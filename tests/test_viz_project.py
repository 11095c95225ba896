"""gguftok.viz.project_view: the lesson's self-test values, the round trip, sanitizer safety."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from viz_checks import assert_sanitizer_safe as _safe

from gguftok import Tokenizer
from gguftok.viz.project_view import (
    golden_counts,
    golden_view,
    pipeline_map,
    random_strings,
    round_trip_count,
    self_test_lines,
    tokens_per_char_table,
    trace_text,
)

SYNTH = Path(__file__).resolve().parent.parent / "data" / "synthetic" / "byte-level-286.gguf"


@pytest.fixture(scope="module")
def tok():
    return Tokenizer.from_gguf(SYNTH)



def test_hello_world(tok):
    assert tok.encode("Hello world") == [259, 264]
    assert tok.decode([259, 264]) == "Hello world"


def test_self_test_lines_match_the_lesson():
    lines = self_test_lines(SYNTH)
    assert lines[0].startswith("vocab 286 tokens, 26 merges, 4 special, file ")
    assert lines[1] == '"Hello world" -> [259, 264] [Hello][Ġworld] -> "Hello world"'
    assert lines[3] == '"2026" -> [50, 48, 50, 54] [2][0][2][6] -> "2026"'
    assert lines[5] == "chat, parse_special=true : [283, 273, 10, 259, 284, 10, 283, 281, 10]"
    assert lines[6] == "chat, parse_special=false: 40 tokens"
    assert lines[7] == 'streamed pieces of " 😀!": [ ][][][][😀][!]'
    assert lines[8] == "round trip on random strings: 300/300"
    assert lines[9] == "add BOS false, end of generation: true for <|endoftext|>, true for <|im_end|>"


def test_round_trip_count(tok):
    strings = random_strings(300, seed=17)
    assert len(strings) == 300 and strings == random_strings(300, seed=17)
    assert round_trip_count(tok, strings) == 300


def test_views_are_escaped_and_sanitizer_safe(tok):
    evil = "<script>alert(1)</script> \"x\" & y"
    views = [trace_text(tok, evil), pipeline_map(), tokens_per_char_table({evil: 1.0})]
    for r in views:
        _safe(r.html)
    for r in (views[0], views[2]):
        assert "<script>" not in r.html and "&lt;" in r.html
    for style in re.findall(r'style="([^"]*background:[^"]*)"', pipeline_map().html):
        assert "color:#1A1A1A" in style and "border:" in style


def test_golden_agreement():
    counts = golden_counts(["qwen2"])
    assert counts[0][1] == counts[0][2] > 0
    assert "agree" in golden_view(counts).text
