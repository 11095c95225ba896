"""The streaming views: safe HTML, escaped text, one frame per id plus the start, and the stream agreeing
with decode (no U+FFFD) for valid UTF-8."""

from __future__ import annotations

import random

import pytest
from viz_checks import assert_sanitizer_safe

from gguftok import Tokenizer
from gguftok.viz.stream_view import (
    clean_spaces_table,
    detokenize_rules,
    mid_character,
    naive_vs_stream,
    stream_flush,
    stream_frames,
    stream_player,
    stream_steps,
    token_pieces,
)

LESSON = [b" \xf0\x9f", b"\x98\x80", b" ok", b"\xffx"]
FFFD = "\ufffd"



@pytest.fixture(scope="module")
def vocabs(vocab_path):
    return {name: Tokenizer.from_gguf(vocab_path(name))
            for name in ("qwen2", "llama-bpe", "llama-spm")}


def random_text(rng: random.Random, n: int) -> str:
    pool = "ab c.,!?'\n\t" + "éüß" + "世界你好" + "😀🦙🎉👋🏽" + "\u00a0"
    return "".join(rng.choice(pool) for _ in range(n))


def test_lesson_steps():
    steps = stream_steps(LESSON)
    assert [s.naive for s in steps] == [" " + FFFD, FFFD * 2, " ok", FFFD + "x"]
    assert [s.emitted for s in steps] == [" ", "😀", " ok", FFFD + "x"]
    assert [s.held for s in steps] == [b"\xf0\x9f", b"", b"", b""]
    view = naive_vs_stream(LESSON)
    assert 'per token: "␣���␣ok�x"' in view.text and 'streamed : "␣😀␣ok�x"' in view.text


def test_unfinished_character_is_flushed():
    assert stream_flush([b"ok \xf0\x9f", b"\x98"]) == FFFD
    assert stream_flush(LESSON) == ""
    assert "".join(s.emitted for s in stream_steps([b"\xe4\xb8", b"A"])) == FFFD + "A"


def test_frames_count_and_safety():
    pieces = [b"<script>", b" \xf0\x9f", b"\x98\x80", b"\"'&", b"\xff"]
    frames = stream_frames(pieces)
    assert len(frames) == len(pieces) + 1
    for f in frames:
        assert_sanitizer_safe(f.html)
        assert ("<script>" not in f.html and "&lt;script&gt;" in f.html) or f is frames[0]
    assert "held back: f0 9f" in frames[2].text
    assert 'shown so far: "<script>␣😀"' in frames[3].text
    assert "flush at end" not in frames[-1].text  # ff is replaced at once, nothing is left
    assert "flush at end" in stream_frames([b"a\xe4"])[-1].text
    for view in (naive_vs_stream(pieces), clean_spaces_table(["<b> , x"])):
        assert_sanitizer_safe(view.html)
        assert "<b>" not in view.html


def test_stream_matches_decode_on_valid_text(vocabs):
    rng = random.Random(8)
    for name, tok in vocabs.items():
        for _ in range(20):
            text = random_text(rng, rng.randint(1, 40))
            ids = tok.encode(text, add_special=False)
            pieces = token_pieces(tok, ids)
            steps = stream_steps(pieces)
            joined = "".join(s.emitted for s in steps) + stream_flush(pieces)
            assert FFFD not in joined, (name, text)
            vocab = tok.pieces.vocab
            if not vocab.clean_spaces and not vocab.add_space_prefix:  # decode is then the joined pieces
                assert joined == tok.decode(ids)
            assert joined == b"".join(pieces).decode("utf-8")
            assert joined == "".join(tok.decode_stream(ids))
            frames = stream_frames(pieces, ids)
            assert len(frames) == len(ids) + 1
            if ids:
                assert frames[-1].text.split("shown so far: ")[1].startswith('"')


def test_stream_equals_decode_for_qwen2(vocabs):
    tok = vocabs["qwen2"]  # no space prefix, no clean_spaces: decode is the joined pieces
    text = "The llama 🦙 said 你好, 世界! 👋🏽 ok"
    ids = tok.encode(text)
    assert "".join(tok.decode_stream(ids)) == tok.decode(ids) == text


def test_detokenize_rules_and_mid_character(vocabs):
    spm = vocabs["llama-spm"]
    view = detokenize_rules(spm, [*spm.encode("Hello world"), spm.eos_id])
    assert 'remove_special=False unparse_special=True  -> "<s>␣Hello␣world</s>"' in view.text
    assert_sanitizer_safe(view.html)
    assert "<s>" not in view.html
    assert mid_character(vocabs["qwen2"], "plain English text.")[0] == 0
    mid, total = mid_character(spm, "🎉")
    assert (mid, total) == (3, 5)  # a space prefix token, then one token per byte


def test_player_has_one_child_per_frame():
    pytest.importorskip("ipywidgets")
    frames = stream_frames(LESSON)
    player = stream_player(frames)
    stack = player.children[1]
    assert len(stack.children) == len(frames)
