"""The SentencePiece step-through (gguftok.viz.spm_view): a frame per merge of spm_trace plus the start and the
ids; the ids are Tokenizer.encode's; byte fallback said; safe HTML."""

from __future__ import annotations

import re

import pytest
from viz_checks import assert_sanitizer_safe

from gguftok.models.spm import spm_trace
from gguftok.viz.render import escape_visible
from gguftok.viz.spm_view import sentencepiece_input, spm_frames, spm_player

TEXTS = ["Hello wörld 😀", "tokenization", "<b>&amp;", "日本語", "a  b"]


@pytest.mark.parametrize("text", TEXTS)
def test_frames_follow_the_trace_and_end_in_encodes_ids(toks, text):
    tok = toks("llama-spm")
    steps, syms, ids = spm_trace(sentencepiece_input(tok, text), tok.model)
    frames = spm_frames(tok, text)
    assert f"{len(syms)} symbols -> {sum(map(len, ids))} ids" in frames[-1].text
    assert len(frames) == len(steps) + 2
    for k, (frame, step) in enumerate(zip(frames[1:-1], steps, strict=True), 1):
        _, tid, score = step.candidates[step.best]
        assert frame.text.splitlines()[0].startswith(f"step {k} of {len(steps)}: best ")
        merged = escape_visible(step.merged.decode("utf-8", "replace"))
        assert frame.text.splitlines()[0].endswith(f"(score {score:.2f}) -> {merged}")
        assert frame.text.splitlines()[-1] == "symbols after: " + " ".join(
            f"[{escape_visible(s.decode('utf-8', 'replace'))}]" for s in step.after)
        assert "(best)" in frame.text and tok.vocab.texts[tid]
        assert_sanitizer_safe(frame.html)
    last = frames[-1].text
    shown = [int(x) for x in re.findall(r"=(\d+)", last)]
    assert shown == tok.encode(text, add_special=False)
    assert_sanitizer_safe(frames[-1].html)
    assert "<b>" not in "".join(f.html for f in frames)


def test_byte_fallback_is_said_in_the_last_frame(toks):
    tok = toks("llama-spm")
    last = spm_frames(tok, "😀")[-1].text
    assert "byte fallback" in last and "<0xF0>" in last
    assert "byte fallback" not in spm_frames(tok, "Hello")[-1].text


def test_too_long_a_text_is_refused_and_an_empty_one_says_what_to_do(toks):
    tok = toks("llama-spm")
    with pytest.raises(ValueError, match="bytes of text"):
        spm_frames(tok, "x" * 1000)
    assert spm_frames(tok, "")[0].text.startswith("type a word")


def test_the_player_follows_its_text_box_and_vocabulary(toks):
    pytest.importorskip("ipywidgets")
    box = spm_player("Hello", "llama-spm")
    text, choice = box.children[0].children

    def shown():
        return [c.value for c in box.children[-1].children]

    assert shown() == [f.html for f in spm_frames(toks("llama-spm"), "Hello")]
    text.value = "wörld 😀"
    choice.value = "phi-3"
    assert shown() == [f.html for f in spm_frames(toks("phi-3"), "wörld 😀")]
    text.value = "y" * 1000  # a ValueError is one frame of text
    assert len(shown()) == 1 and "bytes of text" in shown()[0]
