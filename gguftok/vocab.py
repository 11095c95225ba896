"""The vocabulary as llama.cpp loads it: token texts, types, final attributes, special ids, flags.

llama.cpp does more than copy ``tokenizer.ggml.*`` into memory. It fills in defaults per model type and
pre-tokenizer, rewrites attributes by token text (a NORMAL ``<|im_end|>`` becomes CONTROL because it ends a
turn), finds the end-of-turn and fill-in-the-middle tokens by name, and builds the list of special tokens
that the partition step cuts out of text. Those rewrites change token ids, so this module replays
``llama_vocab::impl::load`` step by step, in its order. Every key it reads has its type checked in one place,
:func:`key_value` against ``KEY_TYPES``: where llama.cpp refuses a file for a key's type, so does ``Vocab``, with
a :class:`~gguftok.errors.VocabError` naming the key.

>>> from gguftok.writer import gguf_bytes
>>> from gguftok.metadata import read_metadata, ValueType
>>> md = read_metadata(gguf_bytes({"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "qwen2",
...     "tokenizer.ggml.tokens": ["a", "b", "<|im_end|>"], "tokenizer.ggml.merges": ["a b"]}))
>>> v = Vocab(md)
>>> v.type, v.attrs[2] == CONTROL | NORMAL, sorted(v.eog), v.special["eot"]
('bpe', True, [2], 2)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .errors import VocabError
from .metadata import ValueType
from .pretokenize import PreTokenizerConfig, pre_tokenizer_config
from .stdmap_order import hash_bytes, hash_joined, iteration_order, relative_order

# Token attributes (llama.h llama_token_attr): bit flags.
UNDEFINED, UNKNOWN, UNUSED, NORMAL, CONTROL, USER_DEFINED, BYTE, NORMALIZED, LSTRIP, RSTRIP, SINGLE_WORD = (
    0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
# GGUF token type -> attribute
TYPE_TO_ATTR = {0: UNDEFINED, 1: NORMAL, 2: UNKNOWN, 3: CONTROL, 4: USER_DEFINED, 5: UNUSED, 6: BYTE}
# indexed by the type clipped to -1..7 (any other value, -1 and 7 included, is UNDEFINED)
_TYPE_TO_ATTR_TABLE = np.array([TYPE_TO_ATTR.get(t, UNDEFINED) for t in range(8)] + [UNDEFINED], dtype=np.int64)
ATTR_NAMES = {UNKNOWN: "unknown", UNUSED: "unused", NORMAL: "normal", CONTROL: "control",
              USER_DEFINED: "user-defined", BYTE: "byte", NORMALIZED: "normalized", LSTRIP: "lstrip",
              RSTRIP: "rstrip", SINGLE_WORD: "single-word"}
NULL = -1  # LLAMA_TOKEN_NULL

# tokenizer.ggml.model -> llama.cpp's vocabulary type
MODEL_TYPES = {"no_vocab": "none", "none": "none", "llama": "spm", "bert": "wpm", "gpt2": "bpe",
               "hybriddna": "bpe", "whitespace": "bpe", "t5": "ugm", "rwkv": "rwkv", "test": "test",
               "plamo2": "plamo2", "gemma4": "bpe"}
VOCAB_TYPE_IDS = {"none": 0, "spm": 1, "bpe": 2, "wpm": 3, "ugm": 4, "rwkv": 5, "plamo2": 6, "test": 7}
# default special ids per vocabulary type: bos, eos, unk, sep, pad, mask
DEFAULT_IDS = {
    "spm": (1, 2, 0, NULL, NULL, NULL), "wpm": (101, NULL, 100, 102, 0, 103), "bpe": (11, 11, NULL, NULL, NULL, NULL),
    "ugm": (NULL, 1, 2, NULL, 0, NULL), "rwkv": (NULL,) * 6, "plamo2": (1, 2, 0, NULL, 3, NULL),
    "test": (NULL,) * 6, "none": (NULL,) * 6,
}
SPECIAL_NAMES = ("bos", "eos", "eot", "eom", "unk", "sep", "pad", "mask",
                 "fim_pre", "fim_suf", "fim_mid", "fim_pad", "fim_rep", "fim_sep")
# GGUF key suffix for each special id (sic: "seperator"), then the deprecated aliases applied last
_SPECIAL_KEYS = [("bos", "bos"), ("eos", "eos"), ("eot", "eot"), ("eom", "eom"), ("unk", "unknown"),
                 ("sep", "seperator"), ("pad", "padding"), ("mask", "mask"), ("fim_pre", "fim_pre"),
                 ("fim_suf", "fim_suf"), ("fim_mid", "fim_mid"), ("fim_pad", "fim_pad"), ("fim_rep", "fim_rep"),
                 ("fim_sep", "fim_sep"), ("fim_pre", "prefix"), ("fim_suf", "suffix"), ("fim_mid", "middle")]

# Texts that identify roles (auto-detection by text, llama-vocab.cpp load()).
_ROLE_TEXTS = {
    "eot": ["<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>", "<EOT>",
            "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>"],
    "eom": ["<|eom_id|>"],
    "fim_pre": ["<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>", "<PRE>", "▁<PRE>",
                "<|code_prefix|>", "<|prefix|>"],
    "fim_suf": ["<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>", "<SUF>", "▁<SUF>",
                "<|code_suffix|>", "<|suffix|>"],
    "fim_mid": ["<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>", "<MID>", "▁<MID>",
                "<|code_middle|>", "<|middle|>"],
    "fim_pad": ["<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"],
    "fim_rep": ["<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"],
    "fim_sep": ["<|file_sep|>"],
}
_EOG_TEXTS = frozenset([
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_turn>",
    "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>",
    "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>", "<｜end▁of▁sentence｜>", "[e~[",
])
_ALWAYS_USER_DEFINED = ("<|channel|>", "<|message|>", "<|start|>", "<|constrain|>")  # gpt-oss
DNA_KMER_MARKER = "\ue000"


# ------------------------------------------------------------------------------------ the keys and their types
_ARRAY = ValueType.ARRAY
# Every metadata key the tokenizer reads, with the GGUF type llama.cpp requires of it: a scalar key is read with
# llama_model_loader::get_key<T>, which refuses any other type ("key X has wrong type A but expected type B"); an
# array key has its element type checked by hand in llama_vocab::impl::load ("invalid gguf type for X"). Either
# way llama.cpp refuses the file, and so does Vocab, with a VocabError naming the key. A scalar is a ValueType; an
# array is (ARRAY, element types accepted).
KEY_TYPES: dict[str, ValueType | tuple[ValueType, tuple[ValueType, ...]]] = {
    # read for every file: the loader's architecture, load_hparams's name, the start of llama_vocab::load
    "general.architecture": ValueType.STRING,
    "general.name": ValueType.STRING,
    "tokenizer.ggml.model": ValueType.STRING,
    "tokenizer.ggml.pre": ValueType.STRING,
    "tokenizer.ggml.token_type_count": ValueType.UINT32,
    # read by one kind of model only; any other model never looks at them, whatever their type
    "tokenizer.ggml.merges": (_ARRAY, (ValueType.STRING,)),  # BPE models
    "tokenizer.ggml.precompiled_charsmap": (_ARRAY, (ValueType.INT8, ValueType.UINT8)),  # t5 (UGM)
    # read for every model with a vocabulary
    "tokenizer.ggml.add_space_prefix": ValueType.BOOL,
    "tokenizer.ggml.remove_extra_whitespaces": ValueType.BOOL,
    "tokenizer.ggml.tokens": (_ARRAY, (ValueType.STRING,)),
    "tokenizer.ggml.scores": (_ARRAY, (ValueType.FLOAT32, ValueType.INT32)),
    "tokenizer.ggml.token_type": (_ARRAY, (ValueType.INT32,)),
    **{f"tokenizer.ggml.{suffix}_token_id": ValueType.UINT32 for _, suffix in _SPECIAL_KEYS},
    "tokenizer.ggml.add_bos_token": ValueType.BOOL,
    "tokenizer.ggml.add_eos_token": ValueType.BOOL,
    "tokenizer.ggml.add_sep_token": ValueType.BOOL,
    "tokenizer.ggml.normalizer.lowercase": ValueType.BOOL,
    "tokenizer.ggml.normalizer.strip_accents": ValueType.BOOL,
    "tokenizer.ggml.suppress_tokens": (_ARRAY, (ValueType.INT32,)),  # llama.cpp checks it; tokenizing never uses it
}
# Checked when a file is loaded, whatever the model; the others when the model reads them.
_TOKEN_KEYS = ("tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type")
_ALWAYS_READ = ("general.architecture", "general.name", "tokenizer.ggml.model", "tokenizer.ggml.pre",
                "tokenizer.ggml.token_type_count")
# The one other kind of key read, without a type check as llama.cpp reads it: the chat templates
# (tokenizer.chat_template, tokenizer.chat_template.<name>), from llama_model's table of every non-array key as
# text (gguf_kv_to_str), so that an array is no template and a number is its decimal text: chat_template_text.


def _spell(spec: ValueType | tuple) -> str:
    if isinstance(spec, tuple):
        return " or ".join(f"array[{t.name.lower()}]" for t in spec[1])
    return spec.name.lower()


def _gguf_type_name(t: Any) -> str:
    """A ``GGUFMetadata.types`` entry as text: ``uint32``, ``array[int32]``, ``array[array[string]]``."""
    if isinstance(t, tuple):
        name = t[-1].name.lower() if isinstance(t[-1], ValueType) else str(t[-1])
        for _ in t[:-1]:
            name = f"array[{name}]"
        return name
    return t.name.lower() if isinstance(t, ValueType) else str(t)


_INT_SCALARS = (int, np.integer)
_BOOL_SCALARS = (bool, np.bool_)
_FLOAT_SCALARS = (float, np.floating)
_INT_ELEMENTS = frozenset((ValueType.UINT8, ValueType.INT8, ValueType.UINT16, ValueType.INT16, ValueType.UINT32,
                           ValueType.INT32, ValueType.UINT64, ValueType.INT64))


def _plain_problem(value: Any, spec: ValueType | tuple) -> str | None:
    """Why a plain Python value (a dict's, with no GGUF types) cannot be what ``spec`` asks, or ``None``."""
    if not isinstance(spec, tuple):
        if spec == ValueType.STRING:
            ok = isinstance(value, str)
        elif spec == ValueType.BOOL:
            ok = isinstance(value, _BOOL_SCALARS)
        else:  # UINT32
            ok = isinstance(value, _INT_SCALARS) and not isinstance(value, _BOOL_SCALARS) and 0 <= value < 1 << 32
        return None if ok else f"{type(value).__name__} {value!r:.40}"
    elements = spec[1]
    if isinstance(value, np.ndarray):
        kinds = "U" if elements == (ValueType.STRING,) else "iu" if set(elements) <= _INT_ELEMENTS else "iuf"
        if value.ndim == 1 and value.dtype.kind in kinds:
            return None
        return f"a {value.ndim}-dimensional NumPy array of {value.dtype}" if value.ndim != 1 else (
            f"a NumPy array of {value.dtype}")
    if elements == (ValueType.INT8, ValueType.UINT8) and isinstance(value, (bytes, bytearray)):
        return None
    if not isinstance(value, (list, tuple)):
        return type(value).__name__
    if elements == (ValueType.STRING,):
        allowed: tuple[type, ...] = (str,)
    elif set(elements) <= _INT_ELEMENTS:
        allowed = _INT_SCALARS
    else:  # scores: numbers
        allowed = _INT_SCALARS + _FLOAT_SCALARS

    def fits(t: type) -> bool:
        return issubclass(t, allowed) and not issubclass(t, _BOOL_SCALARS)

    if all(map(fits, set(map(type, value)))):  # one C-level pass over the items, then a check per type
        return None
    bad = next(i for i, x in enumerate(value) if not fits(type(x)))
    return f"a list whose item {bad} is {type(value[bad]).__name__} {value[bad]!r:.40}"


def key_problem(md: Mapping[str, Any], key: str) -> str | None:
    """Why ``md[key]`` does not have the type llama.cpp reads it with (see ``KEY_TYPES``), or ``None`` when it does
    (or is absent, or is no key of the table). A :class:`~gguftok.metadata.GGUFMetadata` is judged by its GGUF
    types; a plain mapping (the lessons' dicts) by its Python values."""
    spec = KEY_TYPES.get(key)
    if spec is None or key not in md:
        return None
    types = getattr(md, "types", None)
    if types is None:
        why = _plain_problem(md[key], spec)
        return None if why is None else f"key holds {why}; llama.cpp expects {_spell(spec)}"
    have = types.get(key)
    if isinstance(spec, tuple):
        ok = isinstance(have, tuple) and len(have) == 2 and have[0] == _ARRAY and have[1] in spec[1]
    else:
        ok = have == spec
    return None if ok else f"key has wrong type {_gguf_type_name(have)}, llama.cpp expects {_spell(spec)}"


def key_value(md: Mapping[str, Any], key: str, default: Any = None) -> Any:
    """``md[key]`` (``default`` if absent), checked against the type llama.cpp reads it with: a
    :class:`~gguftok.errors.VocabError` naming the key otherwise."""
    why = key_problem(md, key)
    if why is not None:
        raise VocabError(why, key=key)
    return md.get(key, default)


def typed_value(md: Mapping[str, Any], key: str, default: Any = None) -> Any:
    """``md[key]`` when present with the type llama.cpp reads it with, else ``default``: for a report that
    describes a file it cannot load (``gguftok info``), where :func:`key_value` would raise."""
    if key not in md or key_problem(md, key) is not None:
        return default
    return md[key]


def chat_template_text(md: Mapping[str, Any], key: str) -> str | None:
    """A chat template key as llama.cpp reads it (``llama_model_chat_template``, from the table that
    ``gguf_kv_to_str`` fills with every non-array key): a string as it is, a number or bool as its text
    (``std::to_string``: ``1``, ``1.500000``, ``true``), an array as no template (``None``)."""
    if key not in md:
        return None
    value = md[key]
    types = getattr(md, "types", None)
    t = types.get(key) if types is not None else None
    if isinstance(value, str):
        return value
    if isinstance(t, tuple) or isinstance(value, (list, tuple, np.ndarray)):
        return None
    if isinstance(value, _BOOL_SCALARS):
        return "true" if value else "false"
    if isinstance(value, _INT_SCALARS):
        return str(int(value))
    if isinstance(value, _FLOAT_SCALARS):
        return f"{float(value):f}"  # std::to_string of a float or a double: printf's %f
    return None


class Vocab:
    """Everything llama.cpp derives from a GGUF file's tokenizer keys at load time.

    ``texts[id]`` is the token's text (a ``str``; bytes that are not UTF-8 are kept as surrogate escapes),
    ``types[id]`` its GGUF token type, ``attrs[id]`` its final attribute bits, ``special[name]`` the special
    ids (``-1`` for none), ``eog`` the end-of-generation ids, ``special_cache`` the ids the partition step
    looks for (longest text first), and the flags ``add_bos``, ``add_eos``, ``add_sep``,
    ``add_space_prefix``, ``clean_spaces``, ...
    """

    def __init__(self, md: Mapping[str, Any], *, tokens_of: Vocab | None = None) -> None:
        """``tokens_of``: a Vocab of the same model whose key/values hold the very same token, score and type
        lists as ``md`` (the same objects): its token tables are shared instead of built again, since they
        depend on nothing else (the lessons' checks build dozens of variants of one file's key/values, each
        with one flag or id changed). Anything else builds them."""
        self.md = md
        self._tokens_of = tokens_of
        self._hashes = None  # _key_hashes, once asked
        for key in _ALWAYS_READ:  # llama.cpp reads these first, for every file
            self._get(key)
        self.model = self._get("tokenizer.ggml.model")
        if self.model is None:
            raise VocabError("the file has no tokenizer.ggml.model key", key="tokenizer.ggml.model")
        if self.model not in MODEL_TYPES:
            raise VocabError(f"unknown tokenizer: {self.model!r}", key="tokenizer.ggml.model")
        self.type = MODEL_TYPES[self.model]
        self._defaults()
        self._load_tokens()
        self._load_special_ids()
        self._load_flags()
        self._detect_roles()
        self._mark_unused()
        self._build_eog()
        self.special_cache = self._special_cache()
        self.nl = NULL  # set by the tokenizer, which can tokenize "\n"

    # --------------------------------------------------------------------------------------- metadata
    def _get(self, key: str, default: Any = None) -> Any:
        """A key's value (``default`` if absent), its type checked against ``KEY_TYPES`` as llama.cpp checks it."""
        return key_value(self.md, key, default)

    # ------------------------------------------------------------------------------------------ steps
    def _defaults(self) -> None:
        self.pre = None
        bos, eos, unk, sep, pad, mask = DEFAULT_IDS[self.type]
        self.special = dict.fromkeys(SPECIAL_NAMES, NULL)
        self.special.update(bos=bos, eos=eos, unk=unk, sep=sep, pad=pad, mask=mask)
        if self.model == "gemma4":  # a BPE model whose six default ids are none (llama-vocab.cpp load())
            self.special.update(dict.fromkeys(("bos", "eos", "unk", "sep", "pad", "mask"), NULL))
        self.add_space_prefix = False
        self.add_bos = self.add_eos = self.add_sep = False
        self.ignore_merges = False
        self.clean_spaces = False
        self.remove_extra_whitespaces = False
        self.escape_whitespaces = True
        self.lowercase = True
        self.pre_config: PreTokenizerConfig | None = None
        self.merges: list[str] = []
        if self.type == "bpe":
            merges = self._get("tokenizer.ggml.merges")
            pre = self._get("tokenizer.ggml.pre")
            if self.model == "gemma4":
                pre = "gemma4"  # llama.cpp ignores the file's pre for this model
            if merges is None and not (pre == "kimi-k2" and self.model != "gemma4"):
                raise VocabError("cannot find tokenizer merges in model file", key="tokenizer.ggml.merges")
            self.merges = merges or []
            self.pre = pre
            self.add_space_prefix = False
            self.escape_whitespaces = False
            self.clean_spaces = True
            config = pre_tokenizer_config(pre)  # raises for an unknown pre, as llama.cpp does
            for name, value in config.sets.items():
                if name == "special_bos_id":
                    self.special["bos"] = NULL
                elif name == "normalizer_opts.lowercase":
                    self.lowercase = value
                else:
                    setattr(self, name, value)
            self.pre_config = config
        elif self.type == "spm":
            self.add_space_prefix, self.clean_spaces, self.add_bos, self.add_eos = True, False, True, False
        elif self.type == "wpm":
            self.add_space_prefix, self.clean_spaces, self.add_bos, self.add_eos, self.add_sep = (
                False, True, True, False, True)
        elif self.type == "ugm":
            self.add_bos, self.add_eos = False, True
        elif self.type == "rwkv":
            self.add_space_prefix = self.clean_spaces = self.add_bos = self.add_eos = False
        self.add_space_prefix = self._get("tokenizer.ggml.add_space_prefix", self.add_space_prefix)
        self.remove_extra_whitespaces = self._get("tokenizer.ggml.remove_extra_whitespaces",
                                                  self.remove_extra_whitespaces)

    def _load_tokens(self) -> None:
        base, self._tokens_of = self._tokens_of, None
        if base is not None and base.model == self.model and all(
                base.md.get(k) is self.md.get(k) for k in _TOKEN_KEYS) and "tokenizer.ggml.tokens" in self.md:
            # the same lists passed the same checks there; only the attributes change after loading
            self.n_vocab, self.token_to_id, self.texts = base.n_vocab, base.token_to_id, base.texts
            self.scores, self.types, self.gguf_attrs = base.scores, base.types, base.gguf_attrs
            self.attrs = list(base.gguf_attrs)
            self._hashes = base._hashes
            return
        if "tokenizer.ggml.tokens" not in self.md:
            raise VocabError("cannot find tokenizer vocab in model file", key="tokenizer.ggml.tokens")
        tokens = self._get("tokenizer.ggml.tokens")
        n = len(tokens)
        if n == 0:
            raise VocabError("the vocabulary has no tokens", key="tokenizer.ggml.tokens")
        scores = self._get("tokenizer.ggml.scores")
        if scores is not None and len(scores) < n:
            raise VocabError(f"Index out of array bounds for scores ({len(scores)} < {n})", key="tokenizer.ggml.scores")
        types = self._get("tokenizer.ggml.token_type")
        if types is not None and len(types) < n:
            raise VocabError(f"Index out of array bounds for toktypes ({len(types)} < {n})",
                             key="tokenizer.ggml.token_type")
        texts = list(tokens)
        if "" in texts:  # rare: look for them only then
            for i, t in enumerate(texts):
                if not t:
                    texts[i] = f"[EMPTY_{i}]"
        token_to_id = dict(zip(texts, range(n), strict=True))
        if len(token_to_id) != n:
            seen: dict[str, int] = {}
            for i, t in enumerate(texts):
                if t in seen:
                    raise VocabError(f"tokens {seen[t]} and {i} have the same text {t!r}; llama.cpp aborts on "
                                     "duplicate token texts", key="tokenizer.ggml.tokens", token_id=i)
                seen[t] = i
        self.n_vocab = n
        self.token_to_id = token_to_id
        self.scores = np.asarray(scores[:n], dtype=np.float64).tolist() if scores is not None else [0.0] * n
        if types is not None:
            self.types = np.asarray(types[:n], dtype=np.int64).tolist()
            self.attrs = _TYPE_TO_ATTR_TABLE[np.clip(np.asarray(types[:n], dtype=np.int64), -1, 7)].tolist()
        else:
            self.types, self.attrs = [1] * n, [NORMAL] * n
        if self.model == "hybriddna" and "<oov>" in token_to_id:
            for i in range(token_to_id["<oov>"] + 1, n):
                t = texts[i]
                if len(t) > 1 and t.endswith(DNA_KMER_MARKER):  # the marker stays in token_to_id only
                    texts[i] = t[: -len(DNA_KMER_MARKER)]
        self.texts = texts
        self.gguf_attrs = list(self.attrs)  # before any rewrite: what UGM and PLaMo-2 build their tables from

    def _load_special_ids(self) -> None:
        n = self.n_vocab
        for name, suffix in _SPECIAL_KEYS:
            if self.special[name] >= n:
                self.special[name] = NULL  # a default out of range is disabled
            value = self._get(f"tokenizer.ggml.{suffix}_token_id")
            if value is not None and value < n:
                self.special[name] = int(value)

    def _load_flags(self) -> None:
        self.add_bos = self._get("tokenizer.ggml.add_bos_token", self.add_bos)
        self.add_eos = self._get("tokenizer.ggml.add_eos_token", self.add_eos)
        self.add_sep = self._get("tokenizer.ggml.add_sep_token", self.add_sep)
        if self.pre_config is not None and self.pre_config.type == "GEMMA4" and not self.add_bos:
            self.add_bos = True
        self.lowercase = self._get("tokenizer.ggml.normalizer.lowercase", self.lowercase)
        self.strip_accents = self._get("tokenizer.ggml.normalizer.strip_accents", self.lowercase)
        self._get("tokenizer.ggml.suppress_tokens")  # only its type matters here: llama.cpp refuses a wrong one

    def _map_order(self) -> list[int]:
        """Token ids in the iteration order of llama.cpp's ``token_to_id`` hash map (libstdc++)."""
        keys = [t.encode("utf-8", "surrogateescape") for t in self.token_to_id]
        ids = list(self.token_to_id.values())
        return [ids[k] for k in iteration_order(keys)]

    def _in_map_order(self, ids: list[int]) -> list[int]:
        """``ids`` in the order :meth:`_map_order` gives them, without ordering the whole map (the same
        answer, a test checks it)."""
        return relative_order(self._key_hashes(), ids)  # a key's index in the map is its token id

    def _key_hashes(self):
        """libstdc++'s hash of every key of ``token_to_id``, in insertion (id) order (computed once)."""
        if self._hashes is None:
            self._hashes = self._hash_keys()
        return self._hashes

    def _hash_keys(self):
        joined = "\0".join(self.token_to_id).encode("utf-8", "surrogateescape")
        ends = np.flatnonzero(np.frombuffer(joined, dtype=np.uint8) == 0)
        if len(ends) != self.n_vocab - 1:  # a token with a NUL of its own: measure each key
            keys = [t.encode("utf-8", "surrogateescape") for t in self.token_to_id]
            return hash_bytes(keys)
        lengths = np.diff(np.concatenate(([-1], ends, [len(joined)]))) - 1
        return hash_joined(joined.replace(b"\0", b""), lengths)

    def _detect_roles(self) -> None:
        """EOT, EOM and FIM ids found by text; the first candidate in hash-map order wins and turns CONTROL."""
        candidates = {role: [self.token_to_id[t] for t in texts if t in self.token_to_id]
                      for role, texts in _ROLE_TEXTS.items() if self.special[role] == NULL}
        candidates = {role: ids for role, ids in candidates.items() if ids}
        if not candidates:
            return
        if any(len(ids) > 1 for ids in candidates.values()):
            ordered = self._in_map_order([tid for ids in candidates.values() for tid in ids])
            position = {tid: k for k, tid in enumerate(ordered)}
        else:
            position = {}
        # llama.cpp walks the map once and, for each token, tries the roles in this order; a role is taken
        # by the first token reached. With one candidate per role, order does not matter.
        events = sorted((position.get(tid, 0), tid, role) for role, ids in candidates.items() for tid in ids)
        for _, tid, role in events:
            if self.special[role] == NULL:
                self.special[role] = tid
                self.attrs[tid] |= CONTROL

    def _with_bits(self, bits: int) -> list[int]:
        """Ids whose attributes have any of ``bits`` (in id order)."""
        return np.nonzero(np.asarray(self.attrs, dtype=np.int64) & bits)[0].tolist()

    def _mark_unused(self) -> None:
        for i in self._with_bits(CONTROL):
            if "unused" in self.texts[i]:
                self.attrs[i] |= UNUSED

    def _build_eog(self) -> None:
        eog = {self.special[k] for k in ("fim_pad", "fim_rep", "fim_sep") if self.special[k] != NULL}
        for text in _EOG_TEXTS:
            tid = self.token_to_id.get(text)
            if tid is not None:
                eog.add(tid)
                self.attrs[tid] |= CONTROL
        for text in _ALWAYS_USER_DEFINED:
            tid = self.token_to_id.get(text)
            if tid is not None:
                self.attrs[tid] = USER_DEFINED
        eog |= {self.special[k] for k in ("eos", "eot", "eom") if self.special[k] != NULL}
        texts = {self.texts[t]: t for t in eog if 0 <= t < self.n_vocab}
        has_call = "<|call|>" in texts or "<|calls|>" in texts
        if "<|end|>" in texts and has_call and ("<|return|>" in texts or "<|flush|>" in texts):
            eog.discard(texts["<|end|>"])
            self.attrs[texts["<|end|>"]] = USER_DEFINED
        if "</s>" in texts and ("<|tool_response>" in texts or "<|plamo:eos|>" in texts):
            eog.discard(texts["</s>"])
            self.attrs[texts["</s>"]] = NORMAL
        self.eog = frozenset(eog)

    def _special_cache(self) -> list[int]:
        """Ids the partition cuts out of text, longest text (in bytes) first; ties by id.

        llama.cpp sorts with ``std::sort``, which is not stable: among equal lengths its order follows
        libstdc++'s introsort. It matters only if two special texts of one length can overlap; none of the
        pinned vocabularies has such a pair.
        """
        ids = self._with_bits(CONTROL | USER_DEFINED | UNKNOWN)
        return sorted(ids, key=lambda i: (-len(self.texts[i].encode("utf-8", "surrogateescape")), i))

    def apply_strip_rules(self) -> None:
        """Per-model LSTRIP/RSTRIP (llama.cpp applies them after building its caches)."""
        pre = self._get("tokenizer.ggml.pre") or ""
        arch = self._get("general.architecture") or ""
        name = "".join(c.lower() if c.isascii() else c for c in (self._get("general.name") or ""))
        if any(s in pre for s in ("jina-v2-de", "jina-v2-es", "jina-v2-code")) or any(
                s in arch for s in ("nomic-bert-moe", "jina-bert-v3")):
            if "<mask>" in self.token_to_id:
                self.attrs[self.token_to_id["<mask>"]] |= LSTRIP
        elif "phi-3" in name or "phi3" in name:
            for tid in self.special_cache:
                self.attrs[tid] |= RSTRIP
            for text, on in (("</s>", True), ("<unk>", False), ("<s>", False), ("<|endoftext|>", False)):
                if text not in self.token_to_id:
                    raise VocabError(f"llama.cpp requires the token {text!r} for a Phi-3 model (it aborts)",
                                     key="general.name")
                tid = self.token_to_id[text]
                self.attrs[tid] = self.attrs[tid] | RSTRIP if on else self.attrs[tid] & ~RSTRIP
        elif "modern-bert" in name and "[MASK]" in self.token_to_id:
            self.attrs[self.token_to_id["[MASK]"]] |= LSTRIP

    def charsmap(self) -> bytes:
        """``tokenizer.ggml.precompiled_charsmap`` as bytes (UGM's normaliser), or ``b""``."""
        data = self._get("tokenizer.ggml.precompiled_charsmap")
        if data is None:
            return b""
        return data.tobytes() if hasattr(data, "tobytes") else bytes(x & 0xFF for x in data)

    # ------------------------------------------------------------------------------------------ views
    def attr_names(self, token_id: int) -> list[str]:
        """The names of a token's attribute bits: ``['normal', 'control']``."""
        a = self.attrs[token_id]
        return [name for bit, name in ATTR_NAMES.items() if a & bit] or ["undefined"]
