"""Every metadata key the tokenizer reads, written with each of the 13 GGUF types (issue 19, item 5).

llama.cpp reads each scalar key with ``llama_model_loader::get_key<T>``, which throws ``key X has wrong type A but
expected type B`` for any other type, and checks each array key's element type by hand (``invalid gguf type for
X``); it refuses the file either way. A few keys it reads only for some models (the merges for BPE, the
precompiled charsmap for T5), and the chat templates it reads as text (an array is left out, a scalar becomes its
decimal text). The expectations below are written from llama-vocab.cpp and llama-model-loader.cpp, not from
gguftok's table, so that the table is checked against them.
"""

from __future__ import annotations

import pytest
from conftest import REPO

from gguftok import Tokenizer, read_metadata
from gguftok.errors import GguftokError, VocabError
from gguftok.metadata import GGUFMetadata, ValueType
from gguftok.vocab import KEY_TYPES, key_value, typed_value
from gguftok.writer import gguf_bytes

VT = ValueType
STRING, UINT32, BOOL, INT32, FLOAT32, INT8, UINT8 = (VT.STRING, VT.UINT32, VT.BOOL, VT.INT32, VT.FLOAT32, VT.INT8,
                                                       VT.UINT8)
SCALAR_TYPES = [t for t in ValueType if t != VT.ARRAY]

# one value of each type, as gguftok.writer takes it: (label, value to write, (type,) or (ARRAY, element type))
_SCALAR_VALUES = {VT.FLOAT32: 1.0, VT.FLOAT64: 1.0, VT.BOOL: True, VT.STRING: "x"}
_ARRAY_VALUES = {VT.FLOAT32: [1.0, 2.0], VT.FLOAT64: [1.0, 2.0], VT.BOOL: [True, False], VT.STRING: ["x", "y"],
                 VT.ARRAY: [[1], [2]]}
VARIANTS = ([(t.name.lower(), (t, _SCALAR_VALUES.get(t, 1)), (t,)) for t in SCALAR_TYPES]
            + [(f"array[{t.name.lower()}]", (t, _ARRAY_VALUES.get(t, [1, 2])), (VT.ARRAY, t)) for t in ValueType])
# (an array of arrays is written as array[array[int32]])
assert len({v[2][0] for v in VARIANTS}) == 13

_IDS = ["bos", "eos", "eot", "eom", "unknown", "seperator", "padding", "mask", "fim_pre", "fim_suf", "fim_mid",
        "fim_pad", "fim_rep", "fim_sep", "prefix", "suffix", "middle"]
# read for every model: the loader's architecture, load_hparams's name, the first lines of llama_vocab::load
ALWAYS = {"general.architecture": {(STRING,)}, "general.name": {(STRING,)}, "tokenizer.ggml.model": {(STRING,)},
          "tokenizer.ggml.pre": {(STRING,)}, "tokenizer.ggml.token_type_count": {(UINT32,)}}
# read for every model with a vocabulary
COMMON = {
    "tokenizer.ggml.add_space_prefix": {(BOOL,)}, "tokenizer.ggml.remove_extra_whitespaces": {(BOOL,)},
    "tokenizer.ggml.tokens": {(VT.ARRAY, STRING)},
    "tokenizer.ggml.scores": {(VT.ARRAY, FLOAT32), (VT.ARRAY, INT32)},
    "tokenizer.ggml.token_type": {(VT.ARRAY, INT32)},
    **{f"tokenizer.ggml.{name}_token_id": {(UINT32,)} for name in _IDS},
    "tokenizer.ggml.add_bos_token": {(BOOL,)}, "tokenizer.ggml.add_eos_token": {(BOOL,)},
    "tokenizer.ggml.add_sep_token": {(BOOL,)},
    "tokenizer.ggml.normalizer.lowercase": {(BOOL,)}, "tokenizer.ggml.normalizer.strip_accents": {(BOOL,)},
    "tokenizer.ggml.suppress_tokens": {(VT.ARRAY, INT32)},
}
BPE_MODELS = ("gpt2", "gemma4")
# read only by some models (None: this model never reads it, so any type loads)
BY_MODEL = {"tokenizer.ggml.merges": lambda m: {(VT.ARRAY, STRING)} if m in BPE_MODELS else None,
            "tokenizer.ggml.precompiled_charsmap": lambda m: {(VT.ARRAY, INT8), (VT.ARRAY, UINT8)} if m == "t5"
            else None}
CHAT_KEYS = ("tokenizer.chat_template", "tokenizer.chat_template.tool_use")


def _typed(md: GGUFMetadata) -> dict:
    """A file's key/values in gguftok.writer's notation, types kept."""
    return {k: (md.types[k][-1] if isinstance(md.types[k], tuple) else md.types[k], v) for k, v in md.items()}


def _spm() -> dict:
    return {"tokenizer.ggml.model": "llama",
            "tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>", "<0x0A>", "\u2581", "a", "b", "\u2581a", "ab"],
            "tokenizer.ggml.scores": (FLOAT32, [0.0, 0.0, 0.0, 0.0, -1.0, -2.0, -3.0, -1.5, -2.5]),
            "tokenizer.ggml.token_type": (INT32, [2, 3, 3, 6, 1, 1, 1, 1, 1])}


def _wpm() -> dict:
    return {"tokenizer.ggml.model": "bert",
            "tokenizer.ggml.tokens": ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b", "##b"],
            "tokenizer.ggml.token_type": (INT32, [3, 2, 3, 3, 3, 1, 1, 1]),
            **{f"tokenizer.ggml.{k}_token_id": (UINT32, i) for k, i in
               (("padding", 0), ("unknown", 1), ("bos", 2), ("seperator", 3), ("mask", 4))}}


def _ugm() -> dict:
    return {"tokenizer.ggml.model": "t5",
            "tokenizer.ggml.tokens": ["<pad>", "</s>", "<unk>", "\u2581", "a", "b", "\u2581a"],
            "tokenizer.ggml.scores": (FLOAT32, [0.0, 0.0, 0.0, -1.0, -2.0, -3.0, -1.5]),
            "tokenizer.ggml.token_type": (INT32, [3, 3, 2, 1, 1, 1, 1])}


def _synthetic(name: str, **changes) -> dict:
    return {**_typed(read_metadata(REPO / "data" / "synthetic" / f"{name}.gguf")), **changes}


BASES = {"gpt2": lambda: _synthetic("tiny-9"),
         "gemma4": lambda: _synthetic("tiny-9", **{"tokenizer.ggml.model": "gemma4"}),
         "llama": _spm, "bert": _wpm, "t5": _ugm, "rwkv": lambda: _synthetic("rwkv"),
         "plamo2": lambda: _synthetic("plamo2"), "test": lambda: _synthetic("hash")}


def _accepted(model: str, key: str) -> set | None:
    if key in ALWAYS:
        return ALWAYS[key]
    if key in COMMON:
        return COMMON[key]
    if key in BY_MODEL:
        return BY_MODEL[key](model)
    return None


def _load_and_use(md) -> Tokenizer:
    tok = Tokenizer(md)
    for add_special in (False, True):
        try:
            ids = tok.encode("ab a\nb", add_special=add_special)
        except GguftokError:
            continue  # what llama.cpp would abort on, raised as EncodeError
        tok.decode([i for i in ids if 0 <= i < tok.n_vocab])  # without an unknown token, UGM and RWKV give -1
    return tok


@pytest.mark.parametrize("model", sorted(BASES))
def test_each_key_with_each_type_is_a_vocab_error_naming_it_or_ignored(model):
    base = BASES[model]()
    _load_and_use(read_metadata(gguf_bytes(base)))  # the base loads
    keys = [*ALWAYS, *COMMON, *BY_MODEL, *CHAT_KEYS]
    failures = []
    for key in keys:
        accepted = _accepted(model, key)
        for label, value, descriptor in VARIANTS:
            md = read_metadata(gguf_bytes({**base, key: value}))
            assert md.type_name(key).startswith(label.removesuffix("[array]"))
            try:
                tok = _load_and_use(md)
            except VocabError as e:
                if e.key != key and (accepted is None or descriptor not in accepted):
                    failures.append(f"{key} as {label}: VocabError naming {e.key!r}: {e}")
                continue
            except Exception as e:  # the point: nothing but a VocabError
                failures.append(f"{key} as {label}: {type(e).__name__}: {e}")
                continue
            if accepted is not None and descriptor not in accepted:
                failures.append(f"{key} as {label}: loaded, but llama.cpp refuses the file")
            if key in CHAT_KEYS:
                name = None if key == CHAT_KEYS[0] else "tool_use"
                want = None if descriptor[0] == VT.ARRAY else (
                    "x" if label == "string" else "true" if label == "bool" else
                    "1.000000" if label.startswith("float") else "1")
                if tok.chat_templates.get(name) != want:
                    failures.append(f"{key} as {label}: template {tok.chat_templates.get(name)!r}, "
                                    f"llama.cpp reads {want!r}")
    assert not failures, "\n".join(failures[:40]) + f"\n({len(failures)} in all)"


def test_the_table_names_every_key_llama_cpp_checks():
    assert set(KEY_TYPES) == {*ALWAYS, *COMMON, *BY_MODEL}


def test_the_other_accepted_types_load():
    """Integer scores and an int8 charsmap are what llama.cpp also takes."""
    spm = _spm()
    spm["tokenizer.ggml.scores"] = (INT32, [0, 0, 0, 0, -1, -2, -3, -1, -2])
    assert _load_and_use(read_metadata(gguf_bytes(spm))).vocab.scores[5] == -2.0
    ugm = _ugm()
    blob = [4, 0, 0, 0, 0, 0, 0, 0, 0]  # an XCDA of one empty unit, no replacements
    for vt in (INT8, UINT8):
        ugm["tokenizer.ggml.precompiled_charsmap"] = (vt, blob)
        _load_and_use(read_metadata(gguf_bytes(ugm)))


def test_the_issue_reproducers():
    """general.name, general.architecture and (for a non-BPE model) tokenizer.ggml.pre with a non-string value:
    TypeError, AttributeError or a NumPy error naming no key, before."""
    for key, value in [("general.name", (UINT32, 5)), ("general.name", (INT8, [1])),
                       ("general.architecture", (INT32, [1, 2])), ("general.architecture", (UINT32, 5)),
                       ("tokenizer.ggml.pre", (UINT32, 5)), ("tokenizer.ggml.pre", (FLOAT32, [1.0, 2.0]))]:
        with pytest.raises(VocabError, match="wrong type") as e:
            Tokenizer(read_metadata(gguf_bytes({**_spm(), key: value})))
        assert e.value.key == key


def test_plain_mappings_are_checked_by_their_python_values():
    """A dict (the lessons' key/values) carries no GGUF types: its Python values are checked against the same table."""
    base = {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.tokens": ["a", "b", "ab"], "tokenizer.ggml.merges": ["a b"]}
    Tokenizer(base).encode("ab")
    Tokenizer({**base, "tokenizer.ggml.token_type": [1, 1, 1], "tokenizer.ggml.scores": [0, 0.5, 1],
               "tokenizer.ggml.bos_token_id": 1, "tokenizer.ggml.add_bos_token": True}).encode("ab")
    for key, value in [("general.name", 5), ("general.architecture", ["x"]), ("tokenizer.ggml.pre", b"qwen2"),
                       ("tokenizer.ggml.tokens", ["a", 5, "ab"]), ("tokenizer.ggml.tokens", "abc"),
                       ("tokenizer.ggml.merges", "a b"), ("tokenizer.ggml.token_type", [1, 1.5, 1]),
                       ("tokenizer.ggml.token_type", [True, True, True]), ("tokenizer.ggml.scores", ["0", "1", "2"]),
                       ("tokenizer.ggml.bos_token_id", -1), ("tokenizer.ggml.bos_token_id", 1.0),
                       ("tokenizer.ggml.bos_token_id", True), ("tokenizer.ggml.bos_token_id", 1 << 32),
                       ("tokenizer.ggml.add_bos_token", 1), ("tokenizer.ggml.add_bos_token", "false"),
                       ("tokenizer.ggml.suppress_tokens", [0.5])]:
        with pytest.raises(VocabError) as e:
            Tokenizer({**base, key: value})
        assert e.value.key == key, (key, value)


def test_the_checked_value_for_callers_that_report():
    """``typed_value`` gives a key's value when its type is the one llama.cpp reads, else the default (for a
    report such as ``gguftok info`` that should describe a file even when it cannot load); ``key_value``
    raises."""
    md = read_metadata(gguf_bytes({**_spm(), "general.architecture": (INT32, [1, 2]), "general.name": "x"}))
    assert typed_value(md, "general.architecture") is None
    assert typed_value(md, "general.name") == "x"
    assert typed_value(md, "general.basename", "-") == "-"
    with pytest.raises(VocabError, match="array\\[int32\\]") as e:
        key_value(md, "general.architecture")
    assert e.value.key == "general.architecture"
