"""gguftok.export.files: the folder ``transformers.AutoTokenizer`` loads gives llama.cpp's ids, on every vocabulary.

For each reference vocabulary: export it (``exact=False`` where gguftok.export declares differences, each of
which must name its stage and rule), write the folder, load it with ``AutoTokenizer`` and with ``tokenizers``,
and compare the ids with gguftok's under every flag on llama.cpp's cases and fuzz texts. transformers must
give exactly the ids of ``tokenizer.json`` (it changes no stage on loading), and both must give gguftok's ids
wherever the export is exact. Each vocabulary is exported and loaded once (a module-level cache): the exports
are most of this file's time.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import VOCAB_NAMES

pytest.importorskip("tokenizers")
pytest.importorskip("transformers")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

import tokenizers
from transformers import AutoTokenizer

from gguftok import Tokenizer
from gguftok.errors import ExportError
from gguftok.export import build, plan
from gguftok.export.files import FILES, save_pretrained
from gguftok.export.verify import _as_text, case_texts, fuzz_inputs

STAGES = {"normalizer", "pre-tokenizer", "model", "post-processor", "decoder", "added tokens"}
FLAGS = [(add, split) for add in (True, False) for split in (False, True)]  # add_special_tokens, split_special_tokens
# where a wrapper could add or strip a space, or clean one up: none may
EDGES = ["", " ", "  ", " Hello", "Hello ", "  Hello  world  ", "\tx\n", "\n\n y", "a , b . c ! d ?", "don 't",
         "<s> x", "</s>", "<|endoftext|> x"]
SYNTHETIC = Path(__file__).resolve().parent.parent / "data" / "synthetic" / "byte-level-286.gguf"


@dataclass
class Exported:
    name: str
    tok: Any
    differences: list
    folder: Path
    hf: Any  # transformers' AutoTokenizer of the folder
    raw: Any  # tokenizers.Tokenizer.from_file(folder / "tokenizer.json")
    texts: list[str] = field(default_factory=list)


_CACHE: dict[str, Exported | tuple[Any, str]] = {}  # name -> the export, or (pytest.skip or pytest.fail, why)


def load(folder: Path) -> Any:
    return AutoTokenizer.from_pretrained(str(folder), local_files_only=True)


@pytest.fixture(scope="module")
def exported(tmp_path_factory, vocab_path):
    """``exported("qwen2")``: the vocabulary written, loaded back both ways, with its texts (once per module)."""

    def get(name: str) -> Exported:
        if name not in _CACHE:
            _CACHE[name] = (pytest.fail, f"{name}: the export failed in an earlier test")  # tried once only
            path = vocab_path(name)
            tok = Tokenizer.from_gguf(path)
            try:
                stages = plan(tok)
            except ExportError as e:  # a family whose export is not written (no differences to name)
                assert not e.differences, e
                _CACHE[name] = (pytest.skip, f"{name} is not exported: {e}")
            else:
                for d in stages.differences:  # what exact=True refuses with: each names its stage and rule
                    assert d.stage in STAGES and d.rule, d
                folder = tmp_path_factory.mktemp(name)
                assert save_pretrained(tok, folder, tokenizer=build(stages)) == [folder / n for n in FILES]
                texts = EDGES + [t for t in map(_as_text, case_texts(path)) if t is not None]
                texts += [t for t in map(_as_text, fuzz_inputs(tok, 100, seed=7)[0]) if t is not None]
                raw = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
                _CACHE[name] = Exported(name, tok, stages.differences, folder, load(folder), raw, texts)
        got = _CACHE[name]
        if isinstance(got, tuple):
            outcome, why = got
            outcome(why)
        return got

    return get


def raw_ids(raw: Any, texts: list[str], add: bool, split: bool) -> list[list[int]]:
    raw.encode_special_tokens = split
    try:
        return [e.ids for e in raw.encode_batch(texts, add_special_tokens=add)]
    finally:
        raw.encode_special_tokens = False


@pytest.mark.parametrize("name", VOCAB_NAMES)
def test_ids_are_gguftoks(name, exported):
    """AutoTokenizer's ids are tokenizer.json's under every flag, and gguftok's (BOS included) where the export
    is exact: ``split_special_tokens`` is ``parse_special=False``, ``add_special_tokens`` is ``add_special``."""
    e = exported(name)
    tok, hf, texts = e.tok, e.hf, e.texts
    assert len(texts) > 80
    for add, split in FLAGS:
        got = hf(texts, add_special_tokens=add, split_special_tokens=split)["input_ids"]
        assert got == raw_ids(e.raw, texts, add, split), (name, add, split)  # transformers changes nothing
        if e.differences:  # then the texts where tokenizer.json differs are the pipeline's declared differences
            continue
        wrong = [(t, g, w) for t, g in zip(texts, got, strict=True)
                 if g != (w := tok.encode(t, add_special=add, parse_special=not split))]
        assert not wrong, (name, add, split, wrong[:3])
    for t in texts[:25]:  # one text at a time, transformers' defaults: BOS/EOS as the file says, specials read
        want = tok.encode(t, parse_special=True)
        if e.differences and e.raw.encode(t).ids != want:
            continue
        assert hf(t)["input_ids"] == want and hf.encode(t) == want, (name, t)
        assert hf.encode(t, add_special_tokens=False) == tok.encode(t, add_special=False, parse_special=True)
        assert hf.encode(t, split_special_tokens=True) == tok.encode(t) or e.differences


@pytest.mark.parametrize("name", VOCAB_NAMES)
def test_decoding_is_gguftoks(name, exported):
    """``hf.decode`` is ``tok.decode(unparse_special=True)``, ``skip_special_tokens=True`` is ``tok.decode``."""
    e = exported(name)
    if any(d.stage == "decoder" for d in e.differences):
        pytest.skip(f"{name}: differences in decoding are declared")
    seqs = [e.tok.encode(t, parse_special=True) for t in e.texts]
    assert e.hf.batch_decode(seqs) == [e.tok.decode(s, unparse_special=True) for s in seqs]
    assert e.hf.batch_decode(seqs, skip_special_tokens=True) == [e.tok.decode(s) for s in seqs]


def _state(obj: Any) -> Any:
    return None if obj is None else json.loads(obj.__getstate__())


@pytest.mark.parametrize("name", VOCAB_NAMES)
def test_folder_keeps_everything(name, exported):
    """transformers keeps every stage, added token and chat template; the named special tokens are the file's;
    the context length is ``model_max_length``."""
    e = exported(name)
    hf, raw, v = e.hf, e.raw, e.tok.vocab
    back = hf.backend_tokenizer
    for stage in ("normalizer", "pre_tokenizer", "decoder"):
        assert _state(getattr(back, stage)) == _state(getattr(raw, stage)), (name, stage)
    if raw.post_processor is None:  # transformers puts in a template of the text alone ("$A"): nothing added
        assert back.post_processor.num_special_tokens_to_add(False) == 0
    else:
        assert _state(back.post_processor) == _state(raw.post_processor), name
    assert back.get_vocab_size(with_added_tokens=True) == raw.get_vocab_size(with_added_tokens=True)
    assert {i: t.content for i, t in hf.added_tokens_decoder.items()} == \
        {i: t.content for i, t in raw.get_added_tokens_decoder().items()}
    assert type(hf).__name__ == "TokenizersBackend" and hf.clean_up_tokenization_spaces is False
    config = json.loads((e.folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    special_map = json.loads((e.folder / "special_tokens_map.json").read_text(encoding="utf-8"))
    ours = {"bos_token": "bos", "eos_token": "eos", "unk_token": "unk", "sep_token": "sep", "pad_token": "pad",
            "mask_token": "mask", "cls_token": "bos"}
    named = {k: t for k, t in config.items() if k in ours}
    assert named.keys() == special_map.keys() and named.keys() <= ours.keys()
    for key, text in named.items():
        assert getattr(hf, key) == text == special_map[key]["content"]
        assert getattr(hf, f"{key}_id") == v.special[ours[key]], (name, key)
    if v.add_bos and v.special["bos"] >= 0 and "bos_token" in named:
        assert config["add_bos_token"] is True
    assert hf.model_max_length == config.get("model_max_length", hf.model_max_length) > 0
    templates = e.tok.chat_templates
    if not templates:
        assert hf.chat_template is None
    elif list(templates) == [None]:
        assert hf.chat_template == templates[None]
    else:
        assert hf.chat_template == {("default" if k is None else k): t for k, t in templates.items()}


def test_command_r_keeps_its_named_templates(exported):
    hf = exported("command-r").hf
    assert set(hf.chat_template) == {"default", "tool_use", "rag"}
    assert hf.get_chat_template("rag") == exported("command-r").tok.chat_templates["rag"]


def test_chat_template_renders_to_gguftoks_ids(exported):
    """The template kept is the one transformers renders: Qwen2's conversation, ids as gguftok's."""
    e = exported("qwen2")
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi <b>there</b>"}]
    got = e.hf.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
    got = got["input_ids"] if hasattr(got, "keys") else got
    assert got == e.tok.encode_chat(messages)


# ------------------------------------------------------------------------------------ save_pretrained itself


@pytest.fixture(scope="module")
def synthetic():
    return Tokenizer.from_gguf(SYNTHETIC)


def test_refuses_what_is_not_exact(tmp_path, vocab_path):
    """exact=True refuses with every difference (stage, rule) and writes nothing; exact=False writes."""
    tok = Tokenizer.from_gguf(vocab_path("falcon"))
    folder = tmp_path / "out"
    with pytest.raises(ExportError) as refused:
        save_pretrained(tok, folder)
    assert refused.value.differences and all(d.stage in STAGES and d.rule for d in refused.value.differences)
    assert not folder.exists()
    assert [p.name for p in save_pretrained(tok, folder, exact=False)] == list(FILES)
    hf = load(folder)
    assert hf("Hello world")["input_ids"] == tok.encode("Hello world")


def test_wordpiece_folder_names_its_special_tokens(tmp_path, vocab_path):
    """BERT's folder, exact: [CLS] and [SEP] around the ids, and the mask token named."""
    tok = Tokenizer.from_gguf(vocab_path("bert-bge"))
    assert [p.name for p in save_pretrained(tok, tmp_path)] == list(FILES)
    hf = load(tmp_path)
    assert hf("Hello world")["input_ids"] == tok.encode("Hello world")
    assert hf.cls_token == "[CLS]" and hf.sep_token == "[SEP]" and hf.mask_token_id == tok.vocab.special["mask"]


def test_stale_template_files_are_refused(tmp_path, synthetic):
    (tmp_path / "chat_template.jinja").write_text("{{ messages }}")
    with pytest.raises(ExportError, match=r"chat_template\.jinja"):
        save_pretrained(synthetic, tmp_path)
    (tmp_path / "chat_template.jinja").unlink()
    (tmp_path / "additional_chat_templates").mkdir()
    (tmp_path / "additional_chat_templates" / "rag.jinja").write_text("x")
    with pytest.raises(ExportError, match=r"rag\.jinja"):
        save_pretrained(synthetic, tmp_path)
    with pytest.raises(ExportError, match="not a folder"):
        save_pretrained(synthetic, SYNTHETIC)


def test_files_are_replaced_and_split_special_tokens_is_a_default(tmp_path, synthetic):
    (tmp_path / "tokenizer.json").write_text("{}")
    save_pretrained(synthetic, tmp_path, split_special_tokens=True)
    hf = load(tmp_path)
    text = "hi<|im_start|>"
    assert hf(text)["input_ids"] == synthetic.encode(text) != synthetic.encode(text, parse_special=True)
    assert hf(text, split_special_tokens=False)["input_ids"] == synthetic.encode(text, parse_special=True)
    assert not list(tmp_path.glob("*.tmp"))


def test_a_model_config_that_overrides_the_class_is_refused(tmp_path, synthetic):
    """transformers loads a qwen2 model's tokenizer as Qwen2Tokenizer whatever tokenizer_config.json says (its
    own pipeline, other ids): refused unless exact=False; a llama model's config.json is no trouble."""
    from transformers import PreTrainedTokenizerFast

    (tmp_path / "config.json").write_text(json.dumps({"model_type": "qwen2"}))
    with pytest.raises(ExportError, match="Qwen2Tokenizer"):
        save_pretrained(synthetic, tmp_path)
    assert not (tmp_path / "tokenizer.json").exists()
    save_pretrained(synthetic, tmp_path, exact=False)
    assert type(PreTrainedTokenizerFast.from_pretrained(str(tmp_path))).__name__ == "TokenizersBackend"
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llama"}))
    save_pretrained(synthetic, tmp_path)
    hf = load(tmp_path)
    assert type(hf).__name__ == "TokenizersBackend" and hf("Hello")["input_ids"] == synthetic.encode("Hello")
