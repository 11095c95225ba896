"""The export as a folder ``transformers.AutoTokenizer.from_pretrained`` loads: ids exactly llama.cpp's.

:func:`save_pretrained` writes three files, as ``tokenizer.save_pretrained(folder)`` would:

- ``tokenizer.json``, the ``tokenizers`` pipeline of :func:`gguftok.export.to_tokenizers` (which the
  ``tokenizers`` library loads on its own, ``tokenizers.Tokenizer.from_file``);
- ``tokenizer_config.json``: the class (``PreTrainedTokenizerFast``, which transformers 5 reads as
  ``TokenizersBackend``), the added tokens with their ids and flags, the named special tokens, the file's chat
  templates (``tokenizer.chat_template`` as ``"default"``, each ``tokenizer.chat_template.NAME`` under its
  name), the context length as ``model_max_length``, ``add_bos_token`` / ``add_eos_token`` as the file says;
- ``special_tokens_map.json``, the named special tokens again, for older readers.

Nothing in them lets transformers change the pipeline on loading: ``clean_up_tokenization_spaces`` is off
(where llama.cpp cleans up spaces in decoding, the exported decoder does it already), no ``legacy`` or
``add_prefix_space`` flag is given to act on (the pre-tokenizer's own ``add_prefix_space`` is repeated where it
has one, so an older transformers, which rewrites a disagreeing pre-tokenizer, leaves it alone), the class is
the generic one (a model's own class, ``LlamaTokenizer`` say, rebuilds the normalizer, pre-tokenizer and
post-processor its own way), and ``add_bos_token`` / ``add_eos_token`` are dropped by transformers when a
``tokenizer.json`` is there, so BOS and EOS come from the exported post-processor alone. A special token is
named (``bos_token``, ``eos_token``, ``unk_token``, ``sep_token``, ``pad_token``, ``mask_token``; BERT's
``cls_token`` is its BOS) only if it is one of the exported special added tokens: transformers adds a named
token it does not find as a new special token, which would cut its text out of every input.

The folder may be a model's, beside its ``config.json``, with one exception: for a few model types (``qwen2``,
``phi3``, ... in transformers 5) ``AutoTokenizer`` takes the model's own tokenizer class whatever
``tokenizer_config.json`` says, and that class rebuilds the pipeline from the vocabulary, with other ids.
:func:`save_pretrained` refuses such a folder (:func:`overriding_class`) unless ``exact=False``;
``PreTrainedTokenizerFast.from_pretrained(folder)`` still loads it exactly.

Then, with ``tok`` a :class:`gguftok.Tokenizer` and ``hf = AutoTokenizer.from_pretrained(folder)``:

=============================================== ===============================================
gguftok                                         transformers
=============================================== ===============================================
``tok.encode(text, parse_special=True)``        ``hf(text)["input_ids"]``, ``hf.encode(text)``
``tok.encode(text)`` (``parse_special=False``)  ``hf.encode(text, split_special_tokens=True)``
``add_special=False``                           ``add_special_tokens=False``
``tok.decode(ids, unparse_special=True)``       ``hf.decode(ids)``
``tok.decode(ids)``                             ``hf.decode(ids, skip_special_tokens=True)``
=============================================== ===============================================

(:func:`gguftok.export.decode` has the rest of the decoding flags.) ``split_special_tokens=True`` on
:func:`save_pretrained` makes llama.cpp's safe default transformers' default too (``hf(text)`` is then
``tok.encode(text)``); it is off by default because a rendered chat template is tokenized with
transformers' default, and its special tokens must be read as tokens.

>>> import tempfile
>>> from gguftok import Tokenizer
>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> folder = tempfile.mkdtemp()
>>> [p.name for p in save_pretrained(tok, folder)]
['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json']
>>> from transformers import AutoTokenizer
>>> hf = AutoTokenizer.from_pretrained(folder, local_files_only=True)
>>> hf("Hello world<|im_start|>")["input_ids"] == tok.encode("Hello world<|im_start|>", parse_special=True)
True
>>> hf.encode("<|im_start|>", split_special_tokens=True) == tok.encode("<|im_start|>")
True
>>> import shutil; shutil.rmtree(folder)
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..errors import ExportError

__all__ = ["FILES", "overriding_class", "save_pretrained", "tokenizer_config"]

FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
TOKENIZER_CLASS = "PreTrainedTokenizerFast"  # transformers 4's name; 5 reads it as TokenizersBackend

# gguftok's names of the special tokens (Vocab.special) -> transformers' attributes
_NAMED = (("bos", "bos_token"), ("eos", "eos_token"), ("unk", "unk_token"), ("sep", "sep_token"),
          ("pad", "pad_token"), ("mask", "mask_token"))
# Files in the folder that transformers would read instead of the chat templates in tokenizer_config.json
_TEMPLATE_FILES = ("chat_template.jinja",)
_TEMPLATE_DIR = "additional_chat_templates"


def _added_tokens(hf: Any) -> dict[int, dict[str, Any]]:
    """The added tokens of ``hf`` as transformers writes ``added_tokens_decoder``: id -> the token's fields."""
    keys = ("content", "lstrip", "normalized", "rstrip", "single_word", "special")
    return {i: {k: getattr(t, k) for k in keys} for i, t in sorted(hf.get_added_tokens_decoder().items())}


def _named_specials(tok, hf: Any, added: dict[int, dict[str, Any]]) -> dict[str, int]:
    """``{"bos_token": id, ...}``: each special token of the vocabulary that is a special added token of ``hf``
    whose text leads back to its id (transformers looks the id up by the text)."""
    v = tok.vocab
    pairs = list(_NAMED)
    if v.type == "wpm":  # BERT's [CLS] is llama.cpp's BOS
        pairs.append(("bos", "cls_token"))
    named = {}
    for ours, theirs in pairs:
        tid = v.special.get(ours, -1)
        token = added.get(tid)
        if tid >= 0 and token is not None and token["special"] and hf.token_to_id(token["content"]) == tid:
            named[theirs] = tid
    return named


def _chat_templates(tok) -> str | list[dict[str, str]] | None:
    """The file's chat templates as ``tokenizer_config.json`` holds them: one template as its text, several as
    ``[{"name": ..., "template": ...}]`` (``tokenizer.chat_template`` is ``"default"``)."""
    templates = tok.chat_templates
    if not templates:
        return None
    if list(templates) == [None]:
        return templates[None]
    named: dict[str, str] = {}
    if None in templates:
        named["default"] = templates[None]
    for name, text in templates.items():
        if name is not None:
            named.setdefault(name, text)  # a template named "default" beside the unnamed one: the unnamed wins
    return [{"name": n, "template": t} for n, t in named.items()]


def _context_length(tok) -> int | None:
    md = tok.vocab.md
    arch = md.get("general.architecture")
    value = md.get(f"{arch}.context_length") if isinstance(arch, str) else None
    if hasattr(value, "item"):
        value = value.item()
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _pre_tokenizer_prefix_space(hf: Any) -> bool | None:
    """The exported pre-tokenizer's own ``add_prefix_space`` (a ``ByteLevel`` or old ``Metaspace`` at the top),
    else ``None``: transformers 4 rewrites a pre-tokenizer whose flag disagrees with the config's."""
    pre = json.loads(hf.pre_tokenizer.__getstate__()) if hf.pre_tokenizer is not None else None
    value = pre.get("add_prefix_space") if isinstance(pre, dict) else None
    return value if isinstance(value, bool) else None


def tokenizer_config(tok, hf: Any, split_special_tokens: bool = False) -> dict[str, Any]:
    """What ``tokenizer_config.json`` holds for ``tok`` exported as ``hf`` (a ``tokenizers.Tokenizer``).

    >>> from gguftok import Tokenizer
    >>> from gguftok.export import to_tokenizers
    >>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
    >>> config = tokenizer_config(tok, to_tokenizers(tok))
    >>> config["tokenizer_class"], config["bos_token"], config["added_tokens_decoder"]["282"]["special"]
    ('PreTrainedTokenizerFast', '<|endoftext|>', True)
    """
    v = tok.vocab
    added = _added_tokens(hf)
    config: dict[str, Any] = {
        "tokenizer_class": TOKENIZER_CLASS,
        "added_tokens_decoder": {str(i): t for i, t in added.items()},
        **{name: added[i]["content"] for name, i in _named_specials(tok, hf, added).items()},
        "add_bos_token": bool(v.add_bos),
        "add_eos_token": bool(v.add_eos),
        "clean_up_tokenization_spaces": False,
        "split_special_tokens": bool(split_special_tokens),
    }
    prefix = _pre_tokenizer_prefix_space(hf)
    if prefix is not None:
        config["add_prefix_space"] = prefix
    n = _context_length(tok)
    if n is not None:
        config["model_max_length"] = n
    templates = _chat_templates(tok)
    if templates is not None:
        config["chat_template"] = templates
    return config


def _check_folder(folder: Path) -> None:
    if folder.exists() and not folder.is_dir():
        raise ExportError(f"{folder} is not a folder: save_pretrained writes a folder of files")
    stale = [folder / n for n in _TEMPLATE_FILES if (folder / n).exists()]
    if (folder / _TEMPLATE_DIR).is_dir():
        stale += sorted((folder / _TEMPLATE_DIR).glob("*.jinja"))
    if stale:
        raise ExportError(f"{stale[0]} is in the folder: transformers would read it instead of the chat templates "
                          "written in tokenizer_config.json; remove it or write to another folder")


def overriding_class(folder: str | os.PathLike) -> str | None:
    """The tokenizer class transformers' ``AutoTokenizer`` would load the folder as, whatever
    ``tokenizer_config.json`` says, because of the model's ``config.json`` beside it (``None``: no such file, or
    one that leaves the choice to ``tokenizer_config.json``, or no transformers to ask).

    transformers maps some model types (``qwen2``, ``phi3``, ...) to their own tokenizer class even against the
    tokenizer's configuration, and such a class rebuilds the pipeline its own way from the vocabulary."""
    path = Path(folder) / "config.json"
    if not path.is_file():
        return None
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(config, dict):
        return None
    try:
        from transformers.models.auto import tokenization_auto as auto
    except ImportError:
        return None
    forced = getattr(auto, "MODELS_WITH_INCORRECT_HUB_TOKENIZER_CLASS", set())
    names = getattr(auto, "TOKENIZER_MAPPING_NAMES", {})
    generic = ("TokenizersBackend", "PythonBackend", "PreTrainedTokenizerFast", "MistralCommonBackend")
    for key in ("model_type", "model_name"):
        kind = config.get(key)
        cls = names.get(kind) if isinstance(kind, str) and kind in forced else None
        if cls and cls.removesuffix("Fast") not in generic:
            return cls
    return None


def _write_json(path: Path, value: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def save_pretrained(tok, directory: str | os.PathLike, exact: bool | str = True, *, tokenizer: Any = None,
                    split_special_tokens: bool = False) -> list[Path]:
    """Write ``tok`` (a :class:`gguftok.Tokenizer`) into the folder ``directory`` (made if missing) as a Hugging
    Face tokenizer: ``tokenizer.json``, ``tokenizer_config.json`` and ``special_tokens_map.json``; the paths
    written, in that order.

    ``exact`` is :func:`gguftok.export.to_tokenizers`'s (``True`` refuses, with an
    :class:`~gguftok.errors.ExportError` naming each difference, what it cannot make exact); ``tokenizer``, an
    already exported ``tokenizers.Tokenizer`` of ``tok``, is written as it is instead. Files of the same names
    are replaced; a ``chat_template.jinja`` (or ``additional_chat_templates/``) already there is refused, as
    transformers would read it over the file's templates, and so, unless ``exact=False``, is a model's
    ``config.json`` that makes ``AutoTokenizer`` choose a class of its own (:func:`overriding_class`).
    ``split_special_tokens`` sets transformers' default (see the module's table)."""
    from . import to_tokenizers

    folder = Path(directory)
    _check_folder(folder)
    cls = overriding_class(folder) if exact is not False else None
    if cls is not None:
        raise ExportError(f"{folder / 'config.json'} names a model type whose tokenizer transformers' AutoTokenizer "
                          f"loads as {cls}, which rebuilds the pipeline (its ids are not llama.cpp's): write to a "
                          "folder without that config.json, or pass exact=False and load the folder with "
                          "PreTrainedTokenizerFast.from_pretrained")
    hf = tokenizer if tokenizer is not None else to_tokenizers(tok, exact=exact)
    config = tokenizer_config(tok, hf, split_special_tokens)
    added = _added_tokens(hf)
    # the same tokens as tokenizer_config.json names, with their flags, as transformers 4 wrote this file
    specials = {name: {f: added[i][f] for f in ("content", "lstrip", "normalized", "rstrip", "single_word")}
                for name, i in _named_specials(tok, hf, added).items()}
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / n for n in FILES]
    tmp = paths[0].with_name(paths[0].name + ".tmp")
    hf.save(str(tmp), pretty=True)
    os.replace(tmp, paths[0])
    _write_json(paths[1], config)
    _write_json(paths[2], specials)
    return paths


def load_back(folder: Path) -> tuple[Any, str]:
    """The exported folder loaded back, as a ``tokenizers.Tokenizer`` to verify: the one transformers'
    ``AutoTokenizer`` holds when transformers is installed (so what it changes on loading is verified too),
    else ``tokenizer.json`` read by ``tokenizers``."""
    # transformers says on import that PyTorch is missing: true, and not needed for a tokenizer
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    try:
        import transformers
    except ImportError:
        transformers = None
    if transformers is not None:
        import transformers.utils.logging as tlog

        level = tlog.get_verbosity()
        tlog.set_verbosity_error()
        try:
            hf = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        finally:
            tlog.set_verbosity(level)
        return hf.backend_tokenizer, f"transformers {transformers.__version__} AutoTokenizer"
    import tokenizers

    return tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json")), f"tokenizers {tokenizers.__version__}"
