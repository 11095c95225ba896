"""The disagreement view: both rows side by side, the first difference and the stage marked by label as well as
colour, the explanation and evidence escaped; ids pasted and transformers' conversion alike."""

from __future__ import annotations

import html

import pytest
from viz_checks import assert_sanitizer_safe

from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.disagree import STAGES, explain, explain_decode
from gguftok.viz.disagree_view import disagreement_view, playground_disagreement

QWEN2 = vocab_dir() / "ggml-vocab-qwen2.gguf"
needs_vocab = pytest.mark.skipif(not QWEN2.exists(), reason="vocabularies not fetched (make vocab)")


@pytest.fixture(scope="module")
def qwen2():
    return Tokenizer.from_gguf(QWEN2)


@pytest.fixture(scope="module")
def converted():
    """Tokenizers and transformers' conversions of the same files, made once."""
    pytest.importorskip("transformers")
    from gguftok.disagree import transformers_tokenizer

    made = {}

    def get(name: str):
        if name not in made:
            tok = Tokenizer.from_gguf(vocab_dir() / f"ggml-vocab-{name}.gguf")
            made[name] = tok, transformers_tokenizer(tok)
        return made[name]

    return get


@needs_vocab
def test_the_first_difference_and_the_stage_are_labelled_not_only_coloured(qwen2):
    text = "Hello world"
    ids = qwen2.encode(text, add_special=False)
    d = explain(qwen2, text, [*ids[:1], ids[1] + 1], add_special=False)
    view = disagreement_view(d, qwen2)
    assert view.html.count("FIRST DIFFERENCE") == 1 and view.text.count("<<< first difference") == 1
    assert view.html.count("PARTS HERE") == 1 and f"[{d.stage}: PARTS HERE]" in view.text
    head = f"the engines part at {d.stage} (narrowed from ids alone), first difference at id 1"
    assert view.text.splitlines()[0] == head
    assert all(s in view.text.splitlines()[1] for s in STAGES)
    assert html.escape(d.explanation) in view.html and "why: " + d.explanation in view.text
    assert_sanitizer_safe(view.html)


@needs_vocab
def test_agreement_marks_nothing(qwen2):
    d = explain(qwen2, "Hello world", qwen2.encode("Hello world"))
    view = disagreement_view(d, qwen2)
    assert view.text.startswith("the engines agree") and "FIRST DIFFERENCE" not in view.html
    assert "PARTS HERE" not in view.html and "why:" not in view.text
    assert_sanitizer_safe(view.html)


@needs_vocab
def test_escaping_and_ids_outside_the_vocabulary(qwen2):
    text = "<script>alert(1)</script> a\tb\n"
    view = disagreement_view(playground_disagreement(qwen2, text, None, "1 2"), qwen2)  # another text
    assert "<script>" not in view.html and "&lt;script&gt;alert(1)" in view.html and "␣a→b↵" in view.text
    assert_sanitizer_safe(view.html)
    view = disagreement_view(playground_disagreement(qwen2, text, None, "1 2 999999999"), qwen2)
    assert "999999999:(no such token)" in view.text and "999999999<br>(no such token)" in view.html
    assert_sanitizer_safe(view.html)
    with pytest.raises(ValueError, match="paste"):
        playground_disagreement(qwen2, text, None, "  ")
    with pytest.raises(ValueError, match="not an id"):
        playground_disagreement(qwen2, text, None, "1 two")


@needs_vocab
def test_flags_from_pasted_ids(qwen2):
    llama3 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-llama-bpe.gguf")
    d = playground_disagreement(llama3, "Hello world", None, str(llama3.encode("Hello world")), add_special=False)
    view = disagreement_view(d, llama3)
    assert d.stage == "flags" and "[flags: PARTS HERE]" in view.text
    assert "128000:<|begin_of_text|>" in view.text.splitlines()[3]


@needs_vocab
def test_transformers_pre_tokenizer_bos_and_model(converted):
    tok, hf = converted("deepseek-coder")
    view = disagreement_view(explain(tok, "\tThe cat", hf, add_special=False), tok)
    assert "[pre-tokenizer: PARTS HERE]" in view.text and "ours_words: ['→The']" in view.text
    rows = view.text.splitlines()[2:4]
    assert rows[0].split()[-3:] == ["25859:→The", "5939:␣cat", "(none)"] and rows[1].split()[-3:] == [
        "184:→", "546:The", "5939:␣cat"]
    view = disagreement_view(explain(tok, "Hello", hf), tok)
    assert "[bos-eos: PARTS HERE]" in view.text and "(past the vocabulary)" in view.text
    assert_sanitizer_safe(view.html)
    tok, hf = converted("llama-bpe")
    view = disagreement_view(explain(tok, "Cửa Việt", hf, add_special=False), tok)
    assert "[model: PARTS HERE]" in view.text and "first difference at id 2" in view.text


@needs_vocab
def test_more_than_one_stage_keeps_the_others_folded(converted):
    tok, hf = converted("llama-bpe")
    d = explain(tok, "Cửa Việt", hf)  # no BOS on the other side as well
    assert d.stages == ["model", "bos-eos"]
    view = disagreement_view(d, tok)
    assert "[bos-eos: differs too]" in view.text and "<details>" in view.html
    assert "evidence (bos-eos, which differs too)" in view.html


@needs_vocab
def test_decoding_marks_the_character(converted):
    tok, hf = converted("llama-bpe")
    d = explain_decode(tok, tok.encode("Hello ? world", add_special=False), hf)
    view = disagreement_view(d, tok)
    lines = view.text.splitlines()
    assert lines[0] == "the engines part at decoding, first difference at token 1"
    assert lines[2].endswith("Hello?␣world") and lines[3].endswith("Hello␣?␣world")
    assert lines[4].index("^") == lines[3].index("␣?")
    assert "FIRST DIFFERENCE" in view.html
    assert_sanitizer_safe(view.html)
