"""Lesson 06 · special tokens: which tokens the partition looks for, and the longest-first partition itself.

Both are written in the student's package (``mytok/special.py``). ``special_tokens(md)`` is checked against
:class:`gguftok.vocab.Vocab` (its ``special_cache`` and final attributes) on the key/values of every fetched
vocabulary and on small random ones; ``partition`` against :func:`gguftok.special.partition`, on texts made of
each vocabulary's special-token texts. Two llama.cpp rules are outside the contract (the student's list has no
lstrip/rstrip bits, and ties between equal-length texts are broken by id): the cases are kept where they do
not matter, and notebook 06's "Going deeper" measures both.
"""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path

import numpy as np

from ..data import vocab_dir
from ..metadata import read_metadata
from ..special import partition as _partition
from ..vocab import _EOG_TEXTS, _ROLE_TEXTS, CONTROL, LSTRIP, RSTRIP, UNKNOWN, USER_DEFINED, Vocab
from ._core import Case, Exercise
from ._data import random_text, rng


# ------------------------------------------------------------------------------------- shared inputs
def key_values(source: str | Path) -> dict:
    """A GGUF file's key/values as a plain dict, the way ``mytok.metadata.read_metadata`` returns them: gguftok's
    reader, with its NumPy arrays turned into lists."""
    md = read_metadata(source)
    return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in md.items()}


def vocab_names() -> list[str]:
    """The short names of the fetched vocabularies (``qwen2``, ...), sorted."""
    return sorted(p.name.removeprefix("ggml-vocab-").removesuffix(".gguf")
                  for p in vocab_dir().glob("ggml-vocab-*.gguf"))


@cache
def vocab_key_values(name: str) -> dict:
    """The key/values of ``ggml-vocab-<name>.gguf`` (read once; never handed to a student's function itself)."""
    return key_values(vocab_dir() / f"ggml-vocab-{name}.gguf")


def fresh(md: dict) -> dict:
    """A copy of ``md`` a function may change freely: a new dict, with new token and type lists (the long lists
    nobody edits, merges and scores, are shared)."""
    out = dict(md)
    for key in ("tokenizer.ggml.tokens", "tokenizer.ggml.token_type"):
        if isinstance(out.get(key), list):
            out[key] = list(out[key])
    return out


_VOCABS: dict[int, tuple[dict, Vocab]] = {}


def loaded(md: dict) -> Vocab:
    """``Vocab(md)``, remembered for the long-lived key/value dicts of the cases (several exercises share them)."""
    hit = _VOCABS.get(id(md))
    if hit is not None and hit[0] is md:
        return hit[1]
    big = len(md.get("tokenizer.ggml.tokens", ())) > 1000
    # a variant of a file's key/values (one flag or id changed) shares its token tables with the file's Vocab
    base = next((b for m, b in _VOCABS.values() if m.get("tokenizer.ggml.tokens") is md["tokenizer.ggml.tokens"]),
                None) if big else None
    v = Vocab(md, tokens_of=base)
    if big:
        _VOCABS[id(md)] = (md, v)
    return v


def md_label(call: str, md: dict) -> str:
    """A short description of a small key/value dict: its keys other than the model, tokens and types, then
    the tokens with their types."""
    keys = {k.removeprefix("tokenizer.ggml."): v for k, v in md.items()
            if k not in ("tokenizer.ggml.tokens", "tokenizer.ggml.token_type", "tokenizer.ggml.merges")}
    tokens = md["tokenizer.ggml.tokens"]
    types = md.get("tokenizer.ggml.token_type")
    kv = ", ".join(f"{k}={v!r}" for k, v in keys.items())
    if types is None:
        return f"{call} with {kv}; tokens {tokens!r} (no token_type key)"
    spelled = ", ".join(f"{t!r}:{types[i]}" for i, t in enumerate(tokens))
    return f"{call} with {kv}; tokens (text:type) [{spelled}]"


# ------------------------------------------------------------------------------------- special_tokens
def _ref_special_tokens(md: dict) -> list[tuple[str, int, bool]]:
    v = loaded(md)
    return [(v.texts[i], i, bool(v.attrs[i] & (CONTROL | UNKNOWN))) for i in v.special_cache]


def _md(tokens: list[str], types: list[int] | None, model: str = "gpt2", **keys) -> dict:
    md: dict = {"tokenizer.ggml.model": model}
    if model in ("gpt2", "gemma4"):
        md["tokenizer.ggml.merges"] = []
    md["tokenizer.ggml.tokens"] = list(tokens)
    if types is not None:
        md["tokenizer.ggml.token_type"] = list(types)
    md.update({f"tokenizer.ggml.{k}": v for k, v in keys.items()})
    return md


def _small(call: str, md: dict) -> Case:
    return Case((md,), md_label(call, md))


def _special_examples() -> list[Case]:
    c = "special_tokens(md)"
    return [
        _small(c, _md(["a", "b", "<|im_start|>", "<|im_end|>", "</s>", "[PAD0]"], [1, 1, 3, 3, 1, 4])),
        _small(c, _md(["x", "<pad>", "€€", "<s>"], [1, 4, 4, 3])),  # 6 bytes, 5 bytes, 3 bytes
        _small(c, _md(["<unk>", "<s>", "</s>", "a"], [2, 3, 3, 1], model="llama")),
        _small(c, _md(["<s>", "</s>", "hello"], None, model="llama")),
        _small(c, _md(["a", "<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>", "<|User|>"], [1, 4, 4, 4, 4])),
        _small(c, _md(["a", "<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>"], [1, 4, 4, 4], fim_pre_token_id=1,
                      suffix_token_id=2, fim_mid_token_id=9)),
        _small(c, _md(["<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|return|>", "<|call|>"],
                      [3, 3, 3, 3, 3, 3])),
        _small(c, _md(["<pad>", "</s>", "<|tool_response>", "<eos>", "a"], [3, 3, 4, 3, 1], model="gemma4",
                      bos_token_id=0, eos_token_id=3)),
    ]


_NORMAL = ["a", "b", "ab", "hello", " the", "▁x", "é", "世界", "<", "|>", "< |im_end|>", "</S>", "<unused0>",
           "<|im_end", "im_end|>"]
_SPECIAL = ["<|im_start|>", "<s>", "<pad>", "[PAD0]", "<|begin_of_text|>", "€€", "<mask>", "[CLS]", "<unk>",
            "<|User|>", "  ", "    "]
_EXCEPTIONS = ["<|channel|>", "<|message|>", "<|start|>", "<|constrain|>", "<|end|>", "<|return|>", "<|call|>",
               "<|calls|>", "<|flush|>", "</s>", "<|tool_response>"]
_EOG = sorted(_EOG_TEXTS)
_TYPES = [1, 1, 1, 2, 3, 3, 4, 4, 5, 6, 0, 7]
_FIM_KEYS = {"fim_pre": ("fim_pre", "prefix"), "fim_suf": ("fim_suf", "suffix"), "fim_mid": ("fim_mid", "middle"),
             "fim_pad": ("fim_pad",), "fim_rep": ("fim_rep",), "fim_sep": ("fim_sep",)}


def random_md(r, models=("gpt2", "gpt2", "llama")) -> dict:
    """A small random vocabulary's key/values: ordinary and special texts, end-of-generation texts, at most one
    fill-in-the-middle text per role (with several, llama.cpp's hash-map order picks one), sometimes the
    texts of llama.cpp's three exceptions, random types, and sometimes keys naming fill-in-the-middle ids."""
    tokens = r.sample(_NORMAL, r.randint(1, 4)) + r.sample(_SPECIAL, r.randint(0, 4)) + r.sample(_EOG, r.randint(0, 4))
    roles = [role for role in _ROLE_TEXTS if role.startswith("fim") and r.random() < 0.3]
    tokens += [r.choice(_ROLE_TEXTS[role]) for role in roles]
    if r.random() < 0.5:
        tokens += r.sample(_EXCEPTIONS, r.randint(1, 5))
    tokens = list(dict.fromkeys(tokens))
    r.shuffle(tokens)
    types = None if r.random() < 0.1 else [r.choice(_TYPES) for _ in tokens]
    md = _md(tokens, types, model=r.choice(models))
    for role in roles:
        if r.random() < 0.5:
            key = r.choice(_FIM_KEYS[role])
            md[f"tokenizer.ggml.{key}_token_id"] = r.choice([r.randrange(len(tokens)), len(tokens) + 3])
    return md


def _special_generated() -> list[Case]:
    cases = [Case((vocab_key_values(name),), f"special_tokens(<the key/values of ggml-vocab-{name}.gguf>)",
                  copy=False) for name in vocab_names()]
    r = rng(611)
    cases += [_small("special_tokens(md)", random_md(r)) for _ in range(160)]
    return cases


special_tokens = Exercise(
    id="06.special_tokens",
    title="the special tokens, as llama.cpp loads them",
    statement=(
        "Write `special_tokens(md)`. `md` is a vocabulary's key/values, as your `read_metadata` returns them.\n"
        "Return `(text, id, needs_parse_special)` for every token the partition looks for, in the order\n"
        "llama.cpp tries them:\n\n"
        "1. From `tokenizer.ggml.token_type` (no key: every token is normal): a control (3) or unknown (2)\n"
        "   token needs `parse_special`; a user-defined (4) token is always cut; other types are not special.\n"
        "2. The rewrites you found in *Which tokens become special at load?*: the fill-in-the-middle roles\n"
        "   (`FIM_TEXTS`) whose id the file does not name (`FIM_KEYS`; an id past the vocabulary does not\n"
        "   count), then the end-of-generation texts (`EOG_TEXTS`).\n"
        "3. Then three exceptions, each setting the kind outright: the `ALWAYS_USER_DEFINED` texts become\n"
        "   user-defined; `<|end|>` becomes user-defined when the vocabulary also has `<|call|>` or\n"
        "   `<|calls|>`, and `<|return|>` or `<|flush|>`; `</s>` becomes normal (not special) when it also\n"
        "   has `<|tool_response>`.\n"
        "4. Sort longest text first, the length in UTF-8 bytes; equal lengths by id.\n\n"
        "\"Going deeper\" shows rules 2 and 3 on real files. The check uses a small vocabulary for each rule, the\n"
        "key/values of every fetched vocabulary file and random small ones, against the special-token cache of\n"
        "`gguftok.vocab.Vocab` (its `special_cache` and each token's final attributes)."),
    template="",
    reference=_ref_special_tokens,
    reference_name="gguftok.vocab.Vocab (special_cache)",
    examples=_special_examples,
    generated=_special_generated,
    call=lambda fn, md: fn(fresh(md)),
    module="special",
)


# ------------------------------------------------------------------------------------------- partition
def _ref_partition(text: str, specials: list, parse_special: bool) -> list[str | int]:
    """gguftok's partition, each token's attributes standing for its kind (no lstrip/rstrip bits)."""
    data = text.encode()
    texts = {tid: s.encode() for s, tid, _ in specials}
    attrs = {tid: CONTROL if needs else USER_DEFINED for _, tid, needs in specials}
    frags = _partition(data, [tid for _, tid, _ in specials], texts.__getitem__, attrs.__getitem__, parse_special)
    return [f if isinstance(f, int) else data[f[0]:f[0] + f[1]].decode() for f in frags]


_CHATML = [("<|endoftext|>", 151643, True), ("<|im_start|>", 151644, True), ("[PAD151646]", 151646, False),
           ("<|im_end|>", 151645, True)]
_MPT_SPACES = [(" " * n, 50278 - n, False) for n in range(24, 1, -1)]  # ids 50254 (24 spaces) .. 50276 (2)
_CHAT = "<|im_start|>user\nHi[PAD151646]<|im_end|>\n<|im_start|>assistant\n"


def _partition_examples() -> list[Case]:
    return [Case((_CHAT, _CHATML, True)),
            Case((_CHAT, _CHATML, False)),
            Case(("x" + " " * 30 + "y", _MPT_SPACES, False),
                 "partition('x' + ' ' * 30 + 'y', <MPT's 23 space tokens, 24 spaces first>, False)"),
            Case(("a</s>b", [("</s>", 128247, True)], False)),
            Case(("a</s>b", [("</s>", 128247, True)], True)),
            Case(("", _CHATML, True)),
            Case(("<|im_end|><|im_end|>", _CHATML, True)),
            Case(("aaaaa", [("aa", 1, False), ("a", 0, False)], False)),
            Case(("abcd", [("bcd", 0, False), ("ab", 1, False)], False)),
            Case(("<pad>x<s>", [("<pad>", 0, False), ("<s>", 1, True)], False))]


_FILL = " \n\tab<|>/_世é"


def _mixed_text(r, texts: list[str]) -> str:
    """Special-token texts, near misses (a text cut short) and filler, joined."""
    parts = []
    for _ in range(r.randint(1, 7)):
        x = r.random()
        pool = texts if r.random() < 0.5 else (texts[:10] if r.random() < 0.5 else texts[-10:])
        if x < 0.45:
            parts.append(r.choice(pool))
        elif x < 0.6:
            s = r.choice(pool)
            parts.append(s[:r.randint(1, max(1, len(s) - 1))])
        else:
            parts.append(random_text(r, _FILL, 0, 5))
    return "".join(parts)


def _strip_free(v: Vocab, stripped: list[int], text: str, parse_special: bool) -> bool:
    """Whether the lstrip/rstrip bits llama.cpp sets by model name leave this text's partition as it is."""
    data = text.encode()
    text_of = {tid: v.texts[tid].encode() for tid in v.special_cache}.__getitem__
    plain = [a & ~(LSTRIP | RSTRIP) for a in stripped]
    return (_partition(data, v.special_cache, text_of, stripped.__getitem__, parse_special)
            == _partition(data, v.special_cache, text_of, plain.__getitem__, parse_special))


def _partition_generated() -> list[Case]:
    cases = []
    r = rng(612)
    for name in vocab_names():
        md = vocab_key_values(name)
        specials = _ref_special_tokens(md)
        if not specials:
            continue
        v = copy.copy(loaded(md))  # the strip rules change the attributes only: a copy with its own list of them
        v.attrs = list(v.attrs)
        v.apply_strip_rules()
        stripped = list(v.attrs) if any(a & (LSTRIP | RSTRIP) for a in v.attrs) else None
        texts = [s for s, _, _ in specials]
        kept = 0
        for _ in range(200):
            text, parse_special = _mixed_text(r, texts), r.random() < 0.5
            if stripped is not None and not _strip_free(v, stripped, text, parse_special):
                continue
            cases.append(Case((text, specials, parse_special),
                              f"partition({text!r}, <the {len(specials)} special tokens of {name}>, {parse_special})"))
            kept += 1
            if kept == 12:
                break
    for _ in range(250):  # small random lists, longest first: overlaps and ties are common here
        texts = list(dict.fromkeys(random_text(r, "ab<|>", 1, 4) for _ in range(r.randint(0, 5))))
        ids = r.sample(range(100), len(texts))
        specials = sorted(((t, tid, r.random() < 0.5) for t, tid in zip(texts, ids, strict=True)),
                          key=lambda s: (-len(s[0].encode()), s[1]))
        cases.append(Case((random_text(r, "ab<|> 世", 0, 20), specials, r.random() < 0.5)))
    return cases


partition = Exercise(
    id="06.partition",
    title="cut special tokens out, longest first",
    statement=(
        "Write `partition(text, specials, parse_special)`. `specials` is a list of `(text, id,\n"
        "needs_parse_special)` as `special_tokens` returns it, longest first. Return `text` as a list of\n"
        "fragments, in order: an `int` (the id) for each special token cut out, and a `str` for each run of\n"
        "plain text between them (never an empty one). The rule is llama.cpp's:\n\n"
        "- take the tokens in the order of the list, skipping those that need `parse_special` when it is\n"
        "  false (user-defined tokens are always cut);\n"
        "- for each one, cut every non-overlapping occurrence, from left to right, out of the plain runs that\n"
        "  are left; a token already cut is never searched again.\n\n"
        "The check uses this notebook's examples, texts mixing special-token texts, near misses and filler for\n"
        "every fetched vocabulary with both values of `parse_special`, and random texts and token lists over\n"
        "`a`, `b`, `<`, `|`, `>`, against `gguftok.special.partition`. Phi-3 and nomic-bert-moe strip whitespace\n"
        "next to some tokens (a rule this list cannot carry, see \"Going deeper\"): their texts are kept only\n"
        "where that changes nothing."),
    template="",
    reference=_ref_partition,
    reference_name="gguftok.special.partition",
    examples=_partition_examples,
    generated=_partition_generated,
    module="special",
)

EXERCISES = [special_tokens, partition]
