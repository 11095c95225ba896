"""gguftok.disagree: the stage where two tokenizers part, proved by running the stages.

Synthetic pairs: a tokenizer.json made at test time from transformers' conversion of a real vocabulary (on
which the two agree), with exactly one stage changed; ``explain`` must name that stage and no other. Two GGUF
files differing in one key: the stage and the key. Ids only: a narrowing, said to be one.
"""

from __future__ import annotations

import json

import pytest

from gguftok import Tokenizer
from gguftok.conformance.cases import read_cases
from gguftok.metadata import ValueType
from gguftok.writer import write_metadata

tokenizers = pytest.importorskip("tokenizers")
pytest.importorskip("transformers")

from gguftok.disagree import (  # noqa: E402
    STAGES,
    OtherEngineError,
    explain,
    explain_decode,
    transformers_tokenizer,
    word_stages,
)

GPT2_REGEX = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"


@pytest.fixture(scope="module")
def qwen(toks):
    return toks("qwen2")


@pytest.fixture(scope="module")
def qwen_json(qwen):
    """transformers' conversion of Qwen2's GGUF, as tokenizer.json text (it agrees with llama.cpp on the texts
    below: checked in test_the_base_agrees)."""
    return transformers_tokenizer(qwen).backend_tokenizer.to_str()


def variant(base: str, tmp_path, edit) -> str:
    cfg = json.loads(base)
    edit(cfg)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    return str(path)


TEXTS = ["Hello world, 3333+777!", "a <|im_end|> b", "  indented\n\tcode();"]


def test_the_base_agrees(qwen, qwen_json, tmp_path):
    path = variant(qwen_json, tmp_path, lambda cfg: None)
    for text in TEXTS:
        for ps in (False, True):
            d = explain(qwen, text, path, parse_special=ps)
            assert d.stage is None and d.stages == [] and d.position is None, (text, ps, str(d))


def _set_split(cfg, regex):
    cfg["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {"Regex": regex}


def _drop_merge(cfg, merge):
    merges = cfg["model"]["merges"]
    i = [m if isinstance(m, str) else " ".join(m) for m in merges].index(merge)
    del merges[i]


def _bos(cfg):
    cfg["post_processor"] = {"type": "TemplateProcessing",
                             "single": [{"SpecialToken": {"id": "<|im_start|>", "type_id": 0}},
                                        {"Sequence": {"id": "A", "type_id": 0}}],
                             "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
                             "special_tokens": {"<|im_start|>": {"id": "<|im_start|>", "ids": [151644],
                                                                  "tokens": ["<|im_start|>"]}}}


def _normalizer(cfg):
    cfg["normalizer"] = {"type": "Lowercase"}


def _strip(cfg):
    for t in cfg["added_tokens"]:
        if t["content"] == "<|im_end|>":
            t["rstrip"] = t["lstrip"] = True


def _unadd(cfg):
    cfg["added_tokens"] = [t for t in cfg["added_tokens"] if t["content"] != "<|im_end|>"]


SYNTHETIC = [
    # (stage, what changes, the text, parse_special)
    ("pre-tokenizer", lambda cfg: _set_split(cfg, GPT2_REGEX), "\tThe cat (hello)", False),
    ("model", lambda cfg: _drop_merge(cfg, "Ġw orld"), "Hello world", False),
    ("bos-eos", _bos, "Hello world", False),
    ("normalizer", _normalizer, "Hello World", False),
    ("special-context", _strip, "a <|im_end|> b", True),
    ("special-match", _unadd, "a<|im_end|>b", True),
]


@pytest.mark.parametrize("stage,edit,text,ps", SYNTHETIC, ids=[s[0] for s in SYNTHETIC])
def test_one_stage_changed_is_that_stage_alone(qwen, qwen_json, tmp_path, stage, edit, text, ps):
    path = variant(qwen_json, tmp_path, edit)
    d = explain(qwen, text, path, parse_special=ps)
    assert d.stage == stage and d.stages == [stage], str(d)
    assert d.position is not None and d.ours != d.theirs
    assert stage in d.evidence and d.explanation
    assert d.to_dict()["stage"] == stage and json.dumps(d.to_dict())


def test_a_changed_decoder_is_decoding(qwen, qwen_json, tmp_path):
    def edit(cfg):
        cfg["decoder"] = {"type": "Sequence", "decoders": [
            cfg["decoder"], {"type": "Replace", "pattern": {"String": "o"}, "content": "0"}]}

    path = variant(qwen_json, tmp_path, edit)
    ids = qwen.encode("Hello world", add_special=False)
    assert explain(qwen, "Hello world", path).stage is None  # encoding is untouched
    d = explain_decode(qwen, ids, path)
    assert (d.stage, d.stages) == ("decoding", ["decoding"])
    assert d.ours == "Hello world" and d.theirs == "Hell0 w0rld" and d.position == 0
    assert explain_decode(qwen, ids, variant(qwen_json, tmp_path, lambda c: None)).stage is None


def test_the_pre_tokenizer_evidence_shows_both_splits(qwen, qwen_json, tmp_path):
    path = variant(qwen_json, tmp_path, lambda cfg: _set_split(cfg, GPT2_REGEX))
    d = explain(qwen, "\tThe cat", path, add_special=False)
    ev = d.evidence["pre-tokenizer"]
    assert ev["proved"] is True
    assert ev["ours_words"] == ["\tThe"] and ev["theirs_words"] == ["\t", "The"]  # between the cuts both make
    assert "qwen2" in d.explanation and "GPT-2" in d.explanation


def test_the_model_evidence_names_the_parting_merge(qwen, qwen_json, tmp_path):
    path = variant(qwen_json, tmp_path, lambda cfg: _drop_merge(cfg, "Ġw orld"))
    d = explain(qwen, "Hello world", path)
    ev = d.evidence["model"]
    assert ev["word"] == " world" and ev["ours_tokens"] == ["Ġworld"] and len(ev["theirs_tokens"]) > 1
    assert ev["merge"]["ours"] == "Ġworld"


# ------------------------------------------------------------------------------------- two GGUF files
@pytest.fixture(scope="module")
def llama3(toks):
    return toks("llama-bpe")


@pytest.mark.parametrize("name,change,text,stages,key", [
    ("qwen2", {"tokenizer.ggml.pre": "gpt-2"}, "\tThe cat", ["pre-tokenizer"], "tokenizer.ggml.pre"),
    # Llama 3's BOS is llama.cpp's default for its pre-tokenizer: relabelled gpt-2, the file adds none
    ("llama-bpe", {"tokenizer.ggml.pre": "gpt-2"}, "3333+777", ["pre-tokenizer", "bos-eos"], "tokenizer.ggml.pre"),
    ("llama-bpe", {"tokenizer.ggml.add_bos_token": False}, "Hello world", ["bos-eos"],
     "tokenizer.ggml.add_bos_token"),
    ("llama-spm", {"tokenizer.ggml.add_space_prefix": False}, "Hello world", ["normalizer"],
     "tokenizer.ggml.add_space_prefix"),
])
def test_two_gguf_files_name_the_stage_and_the_key(toks, vocab_path, tmp_path, name, change, text, stages, key):
    from gguftok import read_metadata

    md = read_metadata(vocab_path(name))
    other = Tokenizer.from_gguf(write_metadata(tmp_path / "other.gguf", md, change))
    d = explain(toks(name), text, other)
    assert d.stages == stages, str(d)
    assert d.keys == [key] and key in d.explanation


def test_two_gguf_files_a_token_type_changed(toks, vocab_path, tmp_path):
    from gguftok import read_metadata

    qwen = toks("qwen2")
    md = read_metadata(vocab_path("qwen2"))
    types = md["tokenizer.ggml.token_type"].tolist()
    im_end = qwen.token_id("<|im_start|>")
    types[im_end] = 1  # a normal token: never cut out whole
    other = Tokenizer.from_gguf(write_metadata(tmp_path / "other.gguf", md,
                                               {"tokenizer.ggml.token_type": (ValueType.INT32, types)}))
    d = explain(qwen, "<|im_start|>user", other, parse_special=True)
    assert d.stage == "special-match", str(d)
    assert d.keys == ["tokenizer.ggml.token_type"] and f"{im_end}:" in d.explanation


def test_agree_with_itself(llama3):
    assert explain(llama3, "Hello", llama3).stage is None
    assert explain_decode(llama3, [9906], llama3).stage is None


# ------------------------------------------------------------------------------------------- ids only
def test_ids_only_flags(llama3):
    text = "Hello world"
    d = explain(llama3, text, llama3.encode(text, add_special=False), add_special=True)
    # with BOS missing, the ids are this tokenizer's without add_special: other flags, or another BOS rule
    assert d.stage == "flags" and d.narrowed and "narrowing" in d.explanation
    assert d.evidence["flags"] == {"add_special": False, "parse_special": False}


def test_ids_only_special_parsing(toks):
    qwen = toks("qwen2")
    text = "Hi<|im_end|>"
    d = explain(qwen, text, qwen.encode(text, parse_special=True))
    assert d.stage == "flags" and d.evidence["flags"]["parse_special"] is True


def test_ids_only_bos_and_split(llama3):
    text = "Hello world"
    core = llama3.encode(text, add_special=False)
    d = explain(llama3, text, [128001, *core])  # another token added in front
    assert d.stage == "bos-eos" and d.narrowed
    d = explain(llama3, text, [128000, 128000, *core])  # a chat template's BOS, and the tokenizer's again
    assert d.stage == "bos-eos" and "128000 '<|begin_of_text|>', 128000 '<|begin_of_text|>' before" in d.explanation
    three, thirty3, digit = llama3.token_id("333"), llama3.token_id("33"), llama3.token_id("3")
    assert llama3.encode("3333", add_special=False) == [three, digit]  # llama.cpp's words: '333', '3'
    d = explain(llama3, "3333", [128000, digit, digit, digit, digit])
    assert d.stage == "model" and d.narrowed  # within llama.cpp's words, other tokens
    d = explain(llama3, "3333", [128000, thirty3, thirty3])
    assert d.stage == "pre-tokenizer" and d.narrowed  # a token across a word boundary
    assert d.evidence["pre-tokenizer"]["token"] == [thirty3, 2]


def test_ids_only_cannot_decode(llama3):
    with pytest.raises(OtherEngineError, match="list of ids"):
        explain_decode(llama3, [1, 2], [1, 2])


# ----------------------------------------------------------------------------------------- the engines
def test_a_bad_tokenizer_json_is_one_clear_error(llama3, tmp_path):
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(OtherEngineError, match=r"not a tokenizer\.json"):
        explain(llama3, "x", str(bad))
    with pytest.raises(OtherEngineError, match="no such"):
        explain(llama3, "x", str(tmp_path / "missing.json"))
    with pytest.raises(OtherEngineError, match="cannot compare with a dict"):
        explain(llama3, "x", {})
    with pytest.raises(OtherEngineError, match="integers"):
        explain(llama3, "x", [1, "2"])


def test_text_the_other_engine_cannot_read_is_one_clear_error(toks):
    tok = toks("qwen2")
    hf = transformers_tokenizer(tok)
    with pytest.raises(OtherEngineError, match=r"valid UTF-8 only.*at character 2"):
        explain(tok, "ab\ud800cd", hf)
    assert explain(tok, "ab\ud800cd", tok).stage is None  # llama.cpp's side reads its three bytes
    with pytest.raises(OtherEngineError, match="not, at byte 2"):
        explain(tok, b"ab\xffcd", tok)  # as a str, its bytes would not come back
    d = explain(tok, b"caf\xc3\xa9", [68796, 5691])
    assert d.ours == tok.encode(b"caf\xc3\xa9")


def test_every_kind_of_other_gives_the_same_answer(toks, tmp_path):
    tok = toks("deepseek-coder")
    hf = transformers_tokenizer(tok)
    path = tmp_path / "tokenizer.json"
    hf.backend_tokenizer.save(str(path))
    text = "\tThe cat"
    answers = {kind: explain(tok, text, other, add_special=False)
               for kind, other in [("transformers", hf), ("tokenizers", hf.backend_tokenizer), ("json", str(path))]}
    assert {d.stage for d in answers.values()} == {"pre-tokenizer"}
    assert len({d.explanation for d in answers.values()}) == 1


def test_transformers_refuses_wordpiece(toks):
    with pytest.raises(OtherEngineError, match="transformers cannot convert"):
        transformers_tokenizer(toks("bert-bge"))


def test_word_stages_is_the_proof():
    assert word_stages(["a", "b"], ["a", "b"], [1, 2], [1, 2]) == []
    assert word_stages(["ab"], ["a", "b"], [1, 2], [3]) == ["pre-tokenizer", "model"]
    assert word_stages(["▁a"], ["a"], None, [1]) == ["normalizer"]
    assert STAGES.index("normalizer") < STAGES.index("pre-tokenizer") < STAGES.index("model")


# ------------------------------------------------------------------------- llama.cpp's own cases agree
CASE_VOCABS = ["command-r", "deepseek-coder", "deepseek-llm", "falcon", "gemma-4", "gpt-2", "llama-bpe", "llama-spm",
               "mpt", "phi-3", "qwen2", "qwen35", "refact", "starcoder"]  # every one with cases transformers converts


@pytest.mark.parametrize("name", CASE_VOCABS)
def test_where_the_engines_agree_explain_says_so(toks, vocab_path, name):
    tok = toks(name)
    hf = transformers_tokenizer(tok)
    p = vocab_path(name)
    cases = read_cases(p.with_name(p.name + ".inp").read_bytes(), p.with_name(p.name + ".out").read_text())
    agreed = 0
    for raw, _ in cases:
        text = raw.decode("utf-8", "surrogateescape")
        for add_special in (True, False):
            if tok.encode(text, add_special=add_special) == hf(text, add_special_tokens=add_special)["input_ids"]:
                agreed += 1
                d = explain(tok, text, hf, add_special=add_special)
                assert d.stage is None and d.stages == [] and d.evidence == {}, (text, str(d))
    assert agreed >= 3


def test_the_other_engines_libraries_stay_inside_disagree():
    """tokenizers and transformers are imported by gguftok.disagree and gguftok.export alone, and only when they
    compare or export (tests/test_export.py checks that importing gguftok.export imports neither)."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    pattern = re.compile(r"^\s*(import|from)\s+(tokenizers|transformers)\b", re.M)
    outside = [str(p.relative_to(repo)) for p in (repo / "gguftok").rglob("*.py")
               if not {"disagree", "export"} & set(p.parts) and pattern.search(p.read_text(encoding="utf-8"))]
    assert outside == []
    code = "import sys, gguftok.disagree; print(sorted(m for m in ('tokenizers', 'transformers') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=repo)
    assert out.stdout.strip() == "[]"
