"""The other engine, whatever the caller hands us, behind one small interface.

``as_engine(other)`` takes a ``tokenizers.Tokenizer``, a transformers tokenizer, the path of a
``tokenizer.json``, another gguftok :class:`~gguftok.tokenizer.Tokenizer`, or a plain list of ids, and
gives an :class:`Engine`: ``encode``/``decode`` under gguftok's flag names, and the stages that can be run
one by one (``backend``: a ``tokenizers.Tokenizer``; ``gguf``: a gguftok tokenizer), or neither (ids only).

The flags map one to one: ``add_special`` is ``add_special_tokens``, ``parse_special`` is ``not
split_special_tokens`` (``tokenizers``: ``not encode_special_tokens``), ``remove_special`` is
``skip_special_tokens``.

:func:`transformers_tokenizer` builds what ``from_pretrained(dir, gguf_file=...)`` builds from a GGUF file,
with transformers' own conversion code, without PyTorch: transformers' GGUF reader imports torch, so the
metadata it would read is handed over from gguftok's reader (the same keys and values).
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import types
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import GguftokError

__all__ = ["Engine", "OtherEngineError", "as_engine", "transformers_tokenizer"]


class OtherEngineError(GguftokError, ValueError):
    """The other engine cannot be used: a ``tokenizer.json`` that does not load, an object of no known kind."""


@dataclass
class Engine:
    """One side of a comparison. ``kind`` is ``"tokenizers"``, ``"transformers"``, ``"gguf"`` or ``"ids"``."""

    kind: str
    name: str
    obj: Any = None
    ids: list[int] | None = None

    @property
    def backend(self) -> Any:
        """The ``tokenizers.Tokenizer`` whose stages can be run one by one, or ``None``."""
        if self.kind == "tokenizers":
            return self.obj
        if self.kind == "transformers":
            return getattr(self.obj, "backend_tokenizer", None)
        return None

    @property
    def gguf(self) -> Any:
        return self.obj if self.kind == "gguf" else None

    def encode(self, text: str, add_special: bool, parse_special: bool) -> list[int]:
        if self.kind == "ids":
            raise OtherEngineError("the other engine is a list of ids: it cannot encode other texts")
        if self.kind == "gguf":
            return self.obj.encode(text, add_special=add_special, parse_special=parse_special)
        if self.kind == "transformers":
            out = self.obj(text, add_special_tokens=add_special, split_special_tokens=not parse_special)
            return list(out["input_ids"])
        return hf_encode(self.obj, text, add_special, parse_special).ids

    def decode(self, ids: Sequence[int], remove_special: bool) -> str:
        if self.kind == "ids":
            raise OtherEngineError("the other engine is a list of ids: it cannot decode")
        if self.kind == "gguf":
            return self.obj.decode(ids, remove_special=remove_special, unparse_special=True)
        return self.obj.decode(list(ids), skip_special_tokens=remove_special)


_ENCODE_LOCK = threading.Lock()


def hf_encode(hf: Any, text: str, add_special: bool, parse_special: bool) -> Any:
    """``tokenizers.Tokenizer.encode`` with gguftok's flags (its Encoding)."""
    with _ENCODE_LOCK:  # encode_special_tokens is a setting of the tokenizer, not of the call
        before = hf.encode_special_tokens
        hf.encode_special_tokens = not parse_special
        try:
            return hf.encode(text, add_special_tokens=add_special)
        finally:
            hf.encode_special_tokens = before


def as_engine(other: Any) -> Engine:
    """The :class:`Engine` for ``other`` (see the module's docstring for what it may be)."""
    from ..tokenizer import Tokenizer

    if isinstance(other, Engine):
        return other
    if isinstance(other, Tokenizer):
        return Engine("gguf", "the other GGUF file", other)
    if isinstance(other, (str, os.PathLike)):
        return Engine("tokenizers", os.path.basename(os.fspath(other)), load_tokenizer_json(other))
    if isinstance(other, Sequence) and not isinstance(other, (bytes, bytearray)):
        ids = list(other)
        if not all(type(i) is int or (hasattr(i, "__index__") and not isinstance(i, bool)) for i in ids):
            raise OtherEngineError("a list of ids must hold integers only")
        return Engine("ids", "the ids given", ids=[int(i) for i in ids])
    module = type(other).__module__.split(".")[0]
    if module == "tokenizers" and hasattr(other, "encode_special_tokens"):
        return Engine("tokenizers", "the tokenizers pipeline", other)
    if module == "transformers" and hasattr(other, "backend_tokenizer"):
        return Engine("transformers", f"transformers' {type(other).__name__}", other)
    raise OtherEngineError(f"cannot compare with a {type(other).__name__}: pass a tokenizers.Tokenizer, a "
                           "transformers tokenizer, a tokenizer.json path, a gguftok Tokenizer or a list of ids")


_LOADED: dict[tuple[str, int, int], Any] = {}  # the last tokenizer.json loaded, by path, mtime and size


def load_tokenizer_json(path: str | os.PathLike[str]) -> Any:
    """A ``tokenizers.Tokenizer`` from a ``tokenizer.json``; any failure is one :class:`OtherEngineError`. The
    last file loaded is kept while it is unchanged (a loop of explain calls on one path reads it once)."""
    try:
        from tokenizers import Tokenizer as HFTokenizer
    except ImportError:
        raise OtherEngineError("comparing with a tokenizer.json needs the tokenizers package "
                               "(pip install tokenizers)") from None
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise OtherEngineError(f"{path}: no such tokenizer.json")
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_mtime_ns, st.st_size)
    if key in _LOADED:
        return _LOADED[key]
    try:
        hf = HFTokenizer.from_file(path)
    except Exception as e:  # tokenizers raises a bare Exception on a malformed file
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise OtherEngineError(f"{path}: not a tokenizer.json that tokenizers can load: {first}") from None
    _LOADED.clear()
    _LOADED[key] = hf
    return hf


# ------------------------------------------------------------------------- transformers' GGUF conversion
_SHIM_LOCK = threading.Lock()
_READER = "transformers.integrations.gguf.reader"


def _plain(value: Any) -> Any:
    """A metadata value as transformers' own reader gives it: arrays as lists of Python values."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, list):
        return list(value)
    return value


def transformers_tokenizer(tok: Any) -> Any:
    """What ``PreTrainedTokenizerFast.from_pretrained(dir, gguf_file=...)`` builds from ``tok``'s GGUF file (a
    gguftok Tokenizer, or a path), with transformers' own code for everything but reading the file.

    transformers' GGUF reader (``transformers.integrations.gguf.reader``) imports PyTorch at its top. Its one
    function the tokenizer path calls, ``read_gguf_metadata``, is stood in for while the tokenizer is built,
    by one that returns the metadata gguftok read (the same keys, arrays as lists, as that reader returns
    them). ``AutoTokenizer`` would also build a model config first, which needs PyTorch for most
    architectures; the tokenizer it then builds is this one (``TokenizersBackend``).

    Raises :class:`OtherEngineError` where transformers cannot convert the vocabulary (WordPiece, RWKV, ...).
    """
    from ..tokenizer import Tokenizer

    if not isinstance(tok, Tokenizer):
        tok = Tokenizer.from_gguf(tok)
    # transformers says on import that PyTorch is missing: true, and not needed for a tokenizer
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    try:
        from transformers import PreTrainedTokenizerFast
    except ImportError:
        raise OtherEngineError("transformers' conversion needs the transformers package") from None
    md = tok.vocab.md
    metadata = {k: _plain(v) for k, v in md.items()}

    def read_gguf_metadata(path: str, string_arrays: Any = ()) -> tuple[dict, tuple[str, ...]]:
        return metadata, ()

    shim = types.ModuleType(_READER)
    shim.read_gguf_metadata = read_gguf_metadata
    with _SHIM_LOCK, tempfile.TemporaryDirectory(prefix="gguftok-hf-") as tmp:
        # transformers resolves the file name in a folder before reading it; the stand-in reads no file
        open(os.path.join(tmp, "model.gguf"), "wb").close()
        saved = sys.modules.get(_READER)
        sys.modules[_READER] = shim
        try:
            import transformers.utils.logging as tlog

            level = tlog.get_verbosity()
            tlog.set_verbosity_error()
            try:
                return PreTrainedTokenizerFast.from_pretrained(tmp, gguf_file="model.gguf", local_files_only=True)
            finally:
                tlog.set_verbosity(level)
        except Exception as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise OtherEngineError(f"transformers cannot convert this vocabulary: {first}") from None
        finally:
            if saved is None:
                sys.modules.pop(_READER, None)
            else:
                sys.modules[_READER] = saved
