"""Lesson 07 · BOS, EOS and the end of generation: the flags, the special ids and the EOG set, from the keys.

All four are written in the student's package (``mytok/bos_eos.py``) and checked against
:class:`gguftok.vocab.Vocab` on the same inputs: the key/values of every fetched vocabulary, the same with a
key removed or changed, and small random vocabularies. Two inputs are left out because the student's rule is
a shortcut there (notebook 07's "Going deeper" measures it): an end-of-turn id the file does not name, with
several candidate texts (llama.cpp takes the first its hash map reaches; the student the first in
``EOT_TEXTS``).
"""

from __future__ import annotations

from functools import cache

from ..pretokenize import PRE_STRINGS
from ..vocab import _EOG_TEXTS, _ROLE_TEXTS, MODEL_TYPES, NULL
from ._core import Case, Exercise
from ._data import rng
from .lesson06 import _FIM_KEYS, fresh, loaded, md_label, vocab_key_values, vocab_names

_NAMES = ("bos", "eos", "eot", "eom", "unk", "sep", "pad", "mask")
_ID_KEYS = {"bos": "bos", "eos": "eos", "eot": "eot", "eom": "eom", "unk": "unknown", "sep": "seperator",
            "pad": "padding", "mask": "mask"}
_TOKENS = ["<s>", "</s>", "a", "b", "ab", "<unk>"]


# ------------------------------------------------------------------------------------------- inputs
def _md(model: str, tokens=_TOKENS, **keys) -> dict:
    md: dict = {"tokenizer.ggml.model": model}
    if MODEL_TYPES.get(model) == "bpe":
        md["tokenizer.ggml.merges"] = []
    md["tokenizer.ggml.tokens"] = list(tokens)
    md.update({f"tokenizer.ggml.{k}": v for k, v in keys.items()})
    return md


def _changed(md: dict, **changes) -> dict:
    """``md`` with keys (short names) set, or removed where the value is ``None``; the long lists are shared."""
    out = dict(md)
    for key, value in changes.items():
        full = f"tokenizer.ggml.{key}"
        if value is None:
            out.pop(full, None)
        else:
            out[full] = value
    return out


def _said(changes: dict) -> str:
    return ", ".join(f"without {k}" if v is None else f"{k} = {v!r}" for k, v in changes.items())


@cache
def _real() -> list[tuple[str, dict, bool]]:
    """(description, key/values, as in the file) of every fetched vocabulary, then each with a key removed or
    changed."""
    out = []
    r = rng(701)
    pres = sorted(PRE_STRINGS)
    for name in vocab_names():
        out.append((f"<the key/values of ggml-vocab-{name}.gguf>", vocab_key_values(name), True))
    for name in vocab_names():
        md = vocab_key_values(name)
        n = len(md["tokenizer.ggml.tokens"])
        variants = [{"add_bos_token": None, "add_eos_token": None} if "tokenizer.ggml.add_bos_token" in md
                    else {"add_bos_token": r.random() < 0.5, "add_eos_token": r.random() < 0.5}]
        variants.append({"pre": r.choice(pres)} if r.random() < 0.8 else {"pre": None})
        variants.append(r.choice([{"eos_token_id": None, "bos_token_id": n}, {"eot_token_id": r.randrange(n)},
                                  {"bos_token_id": None, "unknown_token_id": None, "padding_token_id": n + 7}]))
        for changes in variants:
            out.append((f"<the key/values of ggml-vocab-{name}.gguf, {_said(changes)}>", _changed(md, **changes),
                        False))
    return out


_WORDS = ["a", "b", "ab", "hello", "é", "世界", "<unused0>", "</S>", "< |im_end|>", "<|im_start|>", "<s>", "<pad>",
          "<unk>", "[CLS]", "[SEP]", "[MASK]", "<|begin_of_text|>", "<|plamo:eos|>"]
_EXCEPTIONS = ["<|end|>", "<|return|>", "<|call|>", "<|calls|>", "<|flush|>", "</s>", "<|tool_response>"]
_EOG = sorted(_EOG_TEXTS)
_MODELS = ["gpt2", "gpt2", "gpt2", "llama", "llama", "bert", "t5", "gemma4", "plamo2", "rwkv"]


@cache
def _synthetic() -> list[dict]:
    """Small random vocabularies: every model, pre-tokenizer presets, the flag keys present or not, id keys
    inside and past the vocabulary, end-of-generation texts and llama.cpp's exceptions."""
    r = rng(702)
    pres = sorted(PRE_STRINGS)
    out = []
    for _ in range(160):
        tokens = r.sample(_WORDS, r.randint(1, 6)) + r.sample(_EOG, r.randint(0, 4))
        if r.random() < 0.5:
            tokens += r.sample(_EXCEPTIONS, r.randint(1, 4))
        roles = [role for role in _ROLE_TEXTS if role.startswith("fim") and r.random() < 0.2]
        tokens += [r.choice(_ROLE_TEXTS[role]) for role in roles]  # at most one text per role
        tokens = list(dict.fromkeys(tokens))
        r.shuffle(tokens)
        size = r.choice([len(tokens), len(tokens), 12, 104])  # 11 (BPE) and 100-103 (BERT) are default ids
        tokens += [f"t{i}" for i in range(size - len(tokens))]
        n = len(tokens)
        model = r.choice(_MODELS)
        md = _md(model, tokens)
        if (r.random() < 0.7 and model in ("gpt2", "gemma4")) or r.random() < 0.2:
            md["tokenizer.ggml.pre"] = r.choice(pres)
        for flag in ("add_bos_token", "add_eos_token"):
            if r.random() < 0.4:
                md[f"tokenizer.ggml.{flag}"] = r.random() < 0.5
        for suffix in _ID_KEYS.values():
            if r.random() < 0.25:
                inside = r.random() < 0.8
                md[f"tokenizer.ggml.{suffix}_token_id"] = r.randrange(n) if inside else n + r.randrange(3)
        for role in roles:
            if r.random() < 0.4:
                md[f"tokenizer.ggml.{r.choice(_FIM_KEYS[role])}_token_id"] = r.choice([r.randrange(n), n + 1])
        out.append(md)
    return out


@cache
def _per_entry() -> list[tuple[dict, tuple[str, ...]]]:
    """One small vocabulary for each entry of the tables the rules read, so that every entry decides some case
    (a table with one entry missing fails the check): every model, its default ids inside the vocabulary (every
    name asked); every pre string under every BPE model, without a flag key, the default BOS id inside (``bos``
    asked); each end-of-turn and end-of-message text alone in a vocabulary (``eot``, ``eom``)."""
    filler = [f"t{i}" for i in range(104)]  # past BERT's default ids, 100 to 103
    out = [(_md(model, _TOKENS + filler[len(_TOKENS):]), _NAMES) for model in MODEL_TYPES
           if MODEL_TYPES[model] != "none"]
    twelve = _TOKENS + filler[len(_TOKENS):12]  # the BPE default BOS id, 11, inside
    out += [(_md(model, twelve, pre=pre), ("bos",)) for model in MODEL_TYPES if MODEL_TYPES[model] == "bpe"
            for pre in sorted(PRE_STRINGS)]
    out += [(_md("gpt2", [*twelve, text], pre="qwen2"), (role,)) for role in ("eot", "eom")
            for text in _ROLE_TEXTS[role]]
    return out


def _small(call: str, md: dict, *rest) -> Case:
    return Case((md, *rest), md_label(call, md))


def _cases(call: str, with_name=None) -> list[Case]:
    """The shared inputs as cases of one exercise; ``with_name(r, as_in_the_file)`` gives the names to ask for."""
    cases = []
    r = rng(703)
    for md, names in _per_entry():
        if with_name is None:
            cases.append(_small(f"{call}(md)", md))
        else:
            cases += [_small(f"{call}(md, {name!r})", md, name) for name in names]
    for what, md, as_in_file in _real():
        for name in with_name(r, as_in_file) if with_name else [None]:
            rest = () if name is None else (name,)
            shown = "" if name is None else f", {name!r}"
            cases.append(Case((md, *rest), f"{call}({what}{shown})", copy=False))
    for md in _synthetic():
        for name in with_name(r, False) if with_name else [None]:
            if name is None:
                cases.append(_small(f"{call}(md)", md))
            elif not (name == "eot" and _several_eot_candidates(md)):
                cases.append(_small(f"{call}(md, {name!r})", md, name))
    return cases


def _several_eot_candidates(md: dict) -> bool:
    """Whether llama.cpp looks the EOT id up by text and finds more than one candidate (out of the contract)."""
    n = len(md["tokenizer.ggml.tokens"])
    named = md.get("tokenizer.ggml.eot_token_id")
    if named is not None and named < n:
        return False
    return sum(t in _ROLE_TEXTS["eot"] for t in md["tokenizer.ggml.tokens"]) > 1


def _call(fn, md, *rest):
    return fn(fresh(md), *rest)


# --------------------------------------------------------------------------------------- add_bos / add_eos
def _bos_examples() -> list[Case]:
    c = "add_bos(md)"
    return [_small(c, _md("gpt2", pre="qwen2")), _small(c, _md("gpt2", pre="llama-bpe")), _small(c, _md("llama")),
            _small(c, _md("t5")), _small(c, _md("gpt2", pre="qwen2", add_bos_token=True)),
            _small(c, _md("gpt2", pre="llama-bpe", add_bos_token=False)),
            _small(c, _md("gemma4", add_bos_token=False, bos_token_id=0, eos_token_id=1)),
            _small(c, _md("llama", pre="llama-bpe", add_bos_token=False)), _small(c, _md("bert"))]


add_bos = Exercise(
    id="07.add_bos",
    title="does this vocabulary add BOS?",
    statement=(
        "Write `add_bos(md)`: whether llama.cpp puts BOS in front of a prompt encoded with\n"
        "`add_special=True`, by the rule you found in *Find the rule* (its four steps are folded there). The\n"
        "template's `BPE_MODELS`, `BOS_PRESETS` and `GEMMA4_PRESETS` hold the names it needs; the model\n"
        "`gemma4` ignores the file's pre and always uses `gemma4`.\n\n"
        "The check uses nine small cases (one for each step), one small vocabulary for each entry of the\n"
        "template's tables (every model, every pre string), the key/values of every fetched vocabulary\n"
        "file, the same with a key removed or changed, and 160 small random vocabularies (seven models, pre\n"
        "values drawn from all 91), against `gguftok.vocab.Vocab`'s `add_bos`."),
    template="",
    reference=lambda md: loaded(md).add_bos,
    reference_name="gguftok.vocab.Vocab (add_bos)",
    examples=_bos_examples,
    generated=lambda: _cases("add_bos"),
    call=_call,
    module="bos_eos",
)


def _eos_examples() -> list[Case]:
    c = "add_eos(md)"
    return [_small(c, _md("t5")), _small(c, _md("llama")), _small(c, _md("gpt2", pre="llama-bpe")),
            _small(c, _md("t5", add_eos_token=False)), _small(c, _md("llama", add_eos_token=True)),
            _small(c, _md("bert"))]


add_eos = Exercise(
    id="07.add_eos",
    title="does this vocabulary add EOS?",
    statement=(
        "Write `add_eos(md)`: whether llama.cpp puts EOS after a prompt encoded with `add_special=True`. The\n"
        "model `t5` (Unigram) does by default, no other model does; the key `tokenizer.ggml.add_eos_token`,\n"
        "when present, wins. The check uses the same inputs as `add_bos`, against `gguftok.vocab.Vocab`'s\n"
        "`add_eos`."),
    template="",
    reference=lambda md: loaded(md).add_eos,
    reference_name="gguftok.vocab.Vocab (add_eos)",
    examples=_eos_examples,
    generated=lambda: _cases("add_eos"),
    call=_call,
    module="bos_eos",
)


# ------------------------------------------------------------------------------------------- special_id
def _ref_special_id(md: dict, name: str) -> int | None:
    tid = loaded(md).special[name]
    return None if tid == NULL else tid


def _id_examples() -> list[Case]:
    c = "special_id"
    qwen = _md("gpt2", ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "hello"], pre="qwen2", eos_token_id=0,
               bos_token_id=0)
    chat = _md("gpt2", ["<s>", "<|im_start|>", "<|im_end|>", "hello"], pre="qwen2", eos_token_id=0)
    return [_small(f"{c}(md, 'eos')", _md("llama"), "eos"), _small(f"{c}(md, 'bos')", _md("llama"), "bos"),
            _small(f"{c}(md, 'unk')", _md("llama"), "unk"), _small(f"{c}(md, 'bos')", _md("gpt2"), "bos"),
            _small(f"{c}(md, 'eos')", qwen, "eos"), _small(f"{c}(md, 'eot')", chat, "eot"),
            _small(f"{c}(md, 'pad')", _md("t5"), "pad"),
            _small(f"{c}(md, 'sep')", _md("bert", seperator_token_id=3), "sep"),
            _small(f"{c}(md, 'eos')", _md("llama", eos_token_id=6), "eos"),
            _small(f"{c}(md, 'bos')", _md("gpt2", [f"t{i}" for i in range(12)], pre="glm4"), "bos"),
            _small(f"{c}(md, 'eot')", _md("llama", ["<s>", "<|eot_id|>", "<|eom_id|>"], eot_token_id=0), "eot"),
            _small(f"{c}(md, 'eom')", _md("llama", ["<s>", "<|eot_id|>", "<|eom_id|>"]), "eom")]


special_id = Exercise(
    id="07.special_id",
    title="which id is BOS, EOS, EOT, ...?",
    statement=(
        "Write `special_id(md, name)` for `name` in `\"bos\"`, `\"eos\"`, `\"eot\"`, `\"eom\"`, `\"unk\"`,\n"
        "`\"sep\"`, `\"pad\"`, `\"mask\"`: the token's id, or `None` when the vocabulary has none. In llama.cpp's\n"
        "order:\n\n"
        "1. the model's default, `DEFAULT_IDS[model].get(name)`; for `bos`, a BPE model whose pre is in\n"
        "   `NO_BOS_ID_PRESETS` has none (the model `gemma4` uses the pre `gemma4`);\n"
        "2. a default past the end of the vocabulary is no id;\n"
        "3. the key `tokenizer.ggml.<ID_KEYS[name]>_token_id`, when present and inside the vocabulary,\n"
        "   replaces it (one past the end is ignored);\n"
        "4. an `eot` or `eom` still without an id is found by its text: the first text of `EOT_TEXTS` (or\n"
        "   `EOM_TEXTS`) that the vocabulary has.\n\n"
        "The check asks every name of the vocabulary files, the same with keys removed or changed, and a few\n"
        "names of each of 160 small random vocabularies, against `gguftok.vocab.Vocab`'s `special` ids. Where a\n"
        "vocabulary has several of the texts, rule 4 is a shortcut (\"Going deeper\" says why): `eot` is not\n"
        "asked where it would need llama.cpp's real order."),
    template="",
    reference=_ref_special_id,
    reference_name="gguftok.vocab.Vocab (special ids)",
    examples=_id_examples,
    generated=lambda: _cases("special_id", lambda r, as_in_file: _NAMES if as_in_file else r.sample(_NAMES, 3)),
    call=_call,
    module="bos_eos",
)


# ---------------------------------------------------------------------------------------------- eog_ids
def _eog_examples() -> list[Case]:
    c = "eog_ids(md)"
    return [
        _small(c, _md("gpt2", ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "</s>", "hello"], pre="qwen2",
                      eos_token_id=0)),
        _small(c, _md("gpt2", ["<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>", "<|eom_id|>", "hi"],
                      pre="llama-bpe", bos_token_id=0, eos_token_id=1)),
        _small(c, _md("llama", ["<unk>", "<s>", "</s>", "<|endoftext|>", "<|end|>"], eos_token_id=3)),
        _small(c, _md("bert", ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello"])),
        _small(c, _md("gpt2", ["<|endoftext|>", "<fim_prefix>", "<fim_pad>", "<|file_sep|>", "x"], eos_token_id=0)),
        _small(c, _md("gpt2", ["<|end|>", "<|return|>", "<|call|>", "<|endoftext|>"], eos_token_id=3)),
        _small(c, _md("gemma4", ["<pad>", "<eos>", "<bos>", "</s>", "<|tool_response>", "<turn|>"], bos_token_id=2,
                      eos_token_id=1)),
        _small(c, _md("plamo2", ["<|plamo:unk|>", "<|plamo:bos|>", "<|plamo:eos|>", "<|plamo:pad|>", "</s>"]))]


eog_ids = Exercise(
    id="07.eog_ids",
    title="the end-of-generation set",
    statement=(
        "Generation stops at any end-of-generation (EOG) token. Write `eog_ids(md)`: the EOG ids, sorted.\n"
        "llama.cpp builds the set while loading:\n\n"
        "1. the fill-in-the-middle pad, repo and separator ids (`fim_pad`, `fim_rep`, `fim_sep`): named by\n"
        "   the key `tokenizer.ggml.<FIM_KEYS[role]>_token_id` when that is inside the vocabulary, else found\n"
        "   by a text of `FIM_TEXTS[role]`;\n"
        "2. every token whose text is in `EOG_TEXTS`;\n"
        "3. the EOS, EOT and EOM ids (your `special_id`);\n"
        "4. two exceptions, by the texts of the ids in the set: `<|end|>` leaves it when the set also holds\n"
        "   `<|call|>` or `<|calls|>`, and `<|return|>` or `<|flush|>`; `</s>` leaves it when the set also\n"
        "   holds `<|tool_response>` or `<|plamo:eos|>`.\n\n"
        "The check uses eight small vocabularies (one for each rule), the vocabulary files as they are and\n"
        "with keys removed or changed, and 160 small random vocabularies, against `gguftok.vocab.Vocab`'s\n"
        "`eog`."),
    template="",
    reference=lambda md: sorted(loaded(md).eog),
    reference_name="gguftok.vocab.Vocab (eog)",
    examples=_eog_examples,
    generated=lambda: _cases("eog_ids"),
    call=_call,
    module="bos_eos",
)

EXERCISES = [add_bos, add_eos, special_id, eog_ids]
