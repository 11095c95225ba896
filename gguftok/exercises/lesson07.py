"""Lesson 07 · BOS, EOS and the end of generation: decide add_bos, build the EOG set."""

from __future__ import annotations

from ..metadata import read_metadata
from ..pretokenize import PRE_STRINGS
from ..viz.bos_view import synthetic_eog
from ..vocab import _EOG_TEXTS, Vocab
from ..writer import gguf_bytes
from ._core import Case, Exercise
from ._data import rng, vocab_file

_KEYS = ("tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.ggml.add_bos_token")
_TOKENS = ["<s>", "</s>", "a", "b", "ab", "<unk>"]


# --------------------------------------------------------------------------------------------- add_bos
def _ref_add_bos(md: dict) -> bool:
    """Write a six-token vocabulary with these keys, load it as llama.cpp would, read ``add_bos``."""
    kv = {"tokenizer.ggml.tokens": _TOKENS, "tokenizer.ggml.merges": ["a b"], **md}
    if md["tokenizer.ggml.model"] in ("llama", "t5", "bert"):
        kv["tokenizer.ggml.scores"] = [0.0] * len(_TOKENS)
        kv["tokenizer.ggml.token_type"] = [3, 3, 1, 1, 1, 2]
    return Vocab(read_metadata(gguf_bytes(kv))).add_bos


def _bos_examples() -> list[Case]:
    m, p, k = _KEYS
    return [Case(({m: "gpt2", p: "qwen2"},)), Case(({m: "gpt2", p: "llama-bpe"},)), Case(({m: "llama"},)),
            Case(({m: "t5"},)), Case(({m: "gpt2", p: "qwen2", k: True},)),
            Case(({m: "gpt2", p: "llama-bpe", k: False},)), Case(({m: "gemma4", k: False},)),
            Case(({m: "bert"},))]


def _bos_generated() -> list[Case]:
    r = rng(701)
    m, p, k = _KEYS
    pres = sorted(PRE_STRINGS)
    cases = []
    for _ in range(120):
        md = {m: r.choice(["gpt2", "gpt2", "gpt2", "llama", "bert", "t5", "gemma4"])}
        if r.random() < 0.8:
            md[p] = r.choice(pres)
        if r.random() < 0.4:
            md[k] = r.random() < 0.5
        cases.append(Case((md,)))
    for name in ("qwen2", "llama-bpe", "llama-spm", "gpt-2", "bert-bge", "nomic-bert-moe", "phi-3", "deepseek-coder",
                 "command-r", "gemma-4"):
        path = vocab_file(name)
        if path is not None:
            full = read_metadata(path)
            cases.append(Case(({key: full[key] for key in _KEYS if key in full},),
                              f"add_bos(<the keys of {path.name}: "
                              f"{ {key: full[key] for key in _KEYS if key in full} }>)"))
    return cases


add_bos = Exercise(
    id="07.add_bos",
    title="does this vocabulary add BOS?",
    statement=(
        "Write `add_bos(md)` that decides llama.cpp's `add_bos` from a dictionary holding some of the keys\n"
        "`tokenizer.ggml.model`, `tokenizer.ggml.pre` and `tokenizer.ggml.add_bos_token`, with this notebook's\n"
        "four rules, a later one overriding an earlier one:\n\n"
        "1. the model's default: `llama` (SentencePiece) and `bert` (WordPiece) add BOS; `gpt2`, `gemma4` and\n"
        "   `t5` do not;\n"
        "2. for `gpt2` only, a pre string in `bos_presets()` (`from gguftok.viz.bos_view import bos_presets`)\n"
        "   turns it on; other models ignore `tokenizer.ggml.pre`;\n"
        "3. the key `tokenizer.ggml.add_bos_token`, when present, wins;\n"
        "4. the model `gemma4` adds BOS whatever the key says.\n\n"
        "The check uses the lesson's eight cases, 120 random combinations (all 91 pre strings), and the keys of\n"
        "ten real vocabularies. Each expected answer comes from writing a small vocabulary with those keys\n"
        "(`gguftok.writer`) and loading it with `gguftok.vocab.Vocab`."),
    template='''from gguftok.viz.bos_view import bos_presets  # noqa: E402


def add_bos(md: dict) -> bool:
    """Whether llama.cpp adds BOS for a vocabulary with these ``tokenizer.ggml.*`` keys.

    >>> add_bos({"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "llama-bpe"})
    True
    """
    raise NotImplementedError''',
    reference=_ref_add_bos,
    reference_name="gguftok.vocab.Vocab (add_bos)",
    examples=_bos_examples,
    generated=_bos_generated,
)


# --------------------------------------------------------------------------------------------- eog_ids
EOG_TEXTS = sorted(_EOG_TEXTS - {"<|call|>", "<|calls|>", "<|tool_response>"})  # those three change the rule
_WORDS = ["hello", "world", "<s>", "<pad>", "<unk>", "[CLS]", "<|im_start|>", "<|begin_of_text|>", "assistant",
          "<|start_header_id|>", "end", "eos", "<eos_token>", "</S>", "< |im_end|>"]


def _ref_eog(tokens: list[str], eos: int) -> list[int]:
    return synthetic_eog(tokens, eos)


def _eog_examples() -> list[Case]:
    return [Case((["<|endoftext|>", "<|im_start|>", "<|im_end|>", "hello"], 0)),
            Case((["<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>", "<|eom_id|>", "hi"], 1)),
            Case((["<s>", "</s>", "hello"], 2))]


def _eog_generated() -> list[Case]:
    r = rng(702)
    pool = EOG_TEXTS + _WORDS
    cases = []
    for _ in range(80):
        tokens = r.sample(pool, r.randint(2, 8))
        cases.append(Case((tokens, r.randrange(len(tokens)))))
    return cases


eog_ids = Exercise(
    id="07.eog_ids",
    title="the end-of-generation set",
    statement=(
        "Generation stops at any end-of-generation (EOG) token. Write `eog_ids(tokens, eos)` that returns the\n"
        "EOG ids of a vocabulary whose token texts are `tokens` and whose EOS id is `eos`, as a sorted list: the\n"
        "EOS id, plus every token whose text is one of `EOG_TEXTS`\n"
        "(`from gguftok.exercises.lesson07 import EOG_TEXTS`), llama.cpp's list of end-of-turn texts.\n\n"
        "The check uses the lesson's ChatML and Llama 3 vocabularies and 80 random ones, mixing texts from that\n"
        "list with look-alikes (`</S>`, `< |im_end|>`). The expected ids come from writing each vocabulary\n"
        "with `gguftok.writer` and loading it (`gguftok.vocab.Vocab`'s `eog`)."),
    template='''from gguftok.exercises.lesson07 import EOG_TEXTS  # noqa: E402


def eog_ids(tokens: list[str], eos: int) -> list[int]:
    """The end-of-generation ids, sorted: ``eos`` and every token whose text is in ``EOG_TEXTS``.

    >>> eog_ids(["<|endoftext|>", "<|im_start|>", "<|im_end|>", "hello"], 0)
    [0, 2]
    """
    raise NotImplementedError''',
    reference=_ref_eog,
    reference_name="gguftok.vocab.Vocab (eog)",
    examples=_eog_examples,
    generated=_eog_generated,
)

EXERCISES = [add_bos, eog_ids]
