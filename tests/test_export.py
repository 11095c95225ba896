"""gguftok.export, the dispatcher: refusals that name the stage and rule, the flags, and a core that stays lean."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO

pytest.importorskip("tokenizers")

from gguftok import Tokenizer
from gguftok.errors import ExportError
from gguftok.export import Difference, ExportWarning, decode, known_differences, plan, to_tokenizers
from gguftok.export.verify import verify

SYNTHETIC = REPO / "data" / "synthetic"


@pytest.fixture(scope="module")
def small():
    return Tokenizer.from_gguf(SYNTHETIC / "byte-level-286.gguf")


def test_the_core_imports_neither_tokenizers_nor_transformers():
    code = ("import sys, gguftok, gguftok.export, gguftok.export.verify; from gguftok import Tokenizer; "
            f"Tokenizer.from_gguf({str(SYNTHETIC / 'byte-level-286.gguf')!r}).encode('hi'); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tokenizers', 'transformers', 'torch')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"


def test_the_export_is_an_optional_extra_of_the_package():
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert any(d.startswith("tokenizers") for d in project["optional-dependencies"]["export"])
    assert not any(d.startswith("tokenizers") for d in project["dependencies"])


def test_every_flag_maps_one_to_one_on_a_small_vocabulary(small):
    hf = to_tokenizers(small)
    texts = ["Hello world", "<|im_start|>hi<|im_end|>", " <|endoftext|> x", "", "  \n\t x"]
    for text in texts:
        for add in (False, True):
            for parse in (False, True):
                hf.encode_special_tokens = not parse
                assert hf.encode(text, add_special_tokens=add).ids == small.encode(text, add, parse), (text, add, parse)
        hf.encode_special_tokens = False
        ids = small.encode(text, True, True)
        for remove in (False, True):
            for unparse in (False, True):
                assert decode(hf, small, ids, remove, unparse) == small.decode(ids, remove, unparse)


@pytest.mark.parametrize("name", ["rwkv", "plamo2", "hash"])
def test_a_vocabulary_with_no_tokenizers_model_is_refused_naming_the_model(name):
    tok = Tokenizer.from_gguf(SYNTHETIC / f"{name}.gguf")
    for exact in (True, False):
        with pytest.raises(ExportError) as e:
            to_tokenizers(tok, exact=exact)
        assert "model:" in str(e.value) and tok.vocab.model in str(e.value)
        assert [d.stage for d in e.value.differences] == ["model"]


def test_a_refusal_names_every_stage_and_rule_and_exact_false_exports_anyway():
    tok = Tokenizer.from_gguf(SYNTHETIC / "dna.gguf")
    diffs = known_differences(tok)
    assert diffs and all(isinstance(d, Difference) for d in diffs)
    with pytest.raises(ExportError) as e:
        to_tokenizers(tok)
    message = str(e.value)
    for d in diffs:
        assert f"{d.stage}: {d.rule}" in message
    assert "exact=False" in message
    with pytest.warns(ExportWarning) as caught:
        hf = to_tokenizers(tok, exact=False)
    assert caught[0].message.differences == diffs  # exported, with the differences it does not follow
    assert hf.encode("ACGT").ids


def test_exact_encode_refuses_only_for_what_encoding_touches(vocab_path):
    tok = Tokenizer.from_gguf(vocab_path("llama-spm"))
    stages = {d.stage for d in known_differences(tok)}
    assert stages == {"decoder"}, stages
    with pytest.raises(ExportError):
        to_tokenizers(tok)
    hf = to_tokenizers(tok, exact="encode")
    assert hf.encode("Hello world").ids == tok.encode("Hello world")
    with pytest.raises(ValueError, match="exact must be"):
        to_tokenizers(tok, exact="yes")


def test_plan_shows_the_five_stages_and_the_added_tokens(small):
    st = plan(small)
    assert type(st.model).__name__ == "BPE" and st.pre_tokenizer is not None and st.decoder is not None
    assert st.normalizer is None and st.post_processor is None  # GPT-2: no normalizer, no BOS
    assert [i for i, _ in st.added_tokens] == sorted(small.vocab.special_cache)


def test_verify_finds_a_wrong_export(small):
    """The verifier is not a test that cannot fail: a pipeline with one merge missing is caught."""
    import json

    from tokenizers import Tokenizer as HF

    data = json.loads(to_tokenizers(small).to_str())
    data["model"]["merges"] = data["model"]["merges"][1:]
    wrong = HF.from_str(json.dumps(data))
    report = verify(small, wrong, fuzz=300, seed=3)
    assert report.encode_differences > 0 and report.mismatches
    assert "encode" in report.failing_flags()
