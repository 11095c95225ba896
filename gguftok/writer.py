"""Write small tokenizer-only GGUF files, for lessons and tests, with ``gguf.GGUFWriter``.

>>> from gguftok import read_metadata
>>> blob = gguf_bytes({"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.bos_token_id": (ValueType.UINT32, 0)})
>>> md = read_metadata(blob)
>>> md["tokenizer.ggml.bos_token_id"], md.type_name("tokenizer.ggml.bos_token_id")
(0, 'uint32')

A value is given either plainly (``str`` -> string, ``bool`` -> bool, ``int`` -> int32 (uint32 for a
``tokenizer.ggml.*_token_id`` key, as llama.cpp reads it), ``float`` -> float32, a list -> array of the type
of its first item) or as ``(ValueType, value)`` to choose the type;
for an array, ``(ValueType, [..])`` gives the element type. A ``bytes`` string value is written as is, so
a test can write a token that is not valid UTF-8.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from .metadata import ValueType

__all__ = ["gguf_bytes", "write_gguf", "write_metadata", "write_tokenizer"]


def _raw(value: Any) -> Any:
    """A ``str`` back to its exact bytes (the reader decodes with surrogateescape), other values as they are."""
    return value.encode("utf-8", "surrogateescape") if isinstance(value, str) else value


@cache
def _writer_class() -> type:
    """``gguf.GGUFWriter``, with typed arrays packed in one call each instead of one call per item.

    gguf-py packs every item of an array through ``_pack_val`` (about 3 µs an item): copying GPT-2's vocabulary
    (1.5 million array items) took 0.35 s, nine tenths of a test that writes 48 such copies. An array whose item
    type is given and is a number, a bool or a string is packed here in one ``struct.pack`` or one join, to the
    same bytes; anything else (an array of arrays, an item type to infer) goes to gguf-py as before.
    """
    import struct

    import gguf  # imported here: the reader and the tokenizer never need it

    class Writer(gguf.GGUFWriter):
        def _pack_val(self, val: Any, vtype: Any, add_vtype: bool, sub_type: Any = None) -> bytes:
            if (vtype != gguf.GGUFValueType.ARRAY or sub_type is None or not isinstance(val, Sequence)
                    or not len(val)):
                return super()._pack_val(val, vtype, add_vtype, sub_type)
            order = "<" if self.endianess == gguf.GGUFEndian.LITTLE else ">"
            head = struct.pack(f"{order}IQ", sub_type, len(val))
            if add_vtype:
                head = struct.pack(f"{order}I", vtype) + head
            if sub_type == gguf.GGUFValueType.STRING:
                length = struct.Struct(f"{order}Q").pack
                parts = []
                for item in val:
                    raw = item.encode("utf-8") if isinstance(item, str) else item
                    parts += (length(len(raw)), raw)
                return head + b"".join(parts)
            fmt = self._simple_value_packing.get(sub_type)
            if fmt is None:
                return super()._pack_val(val, vtype, add_vtype, sub_type)
            return head + struct.pack(f"{order}{len(val)}{fmt}", *val)

    return Writer


def write_gguf(path: str | os.PathLike[str], kv: Mapping[str, Any], *, arch: str = "llama",
               byte_order: str = "little") -> Path:
    """Write a GGUF v3 file with the key/values ``kv`` and no tensors; ``general.architecture`` is ``arch``."""
    import gguf  # imported here: the reader and the tokenizer never need it

    endian = gguf.GGUFEndian.BIG if byte_order == "big" else gguf.GGUFEndian.LITTLE
    w = _writer_class()(path, arch, endianess=endian)
    for key, value in kv.items():
        vtype, sub = None, None
        if isinstance(value, tuple):
            vtype, value = value
        if isinstance(value, (list, tuple)) or (hasattr(value, "dtype") and hasattr(value, "shape")):
            sub = gguf.GGUFValueType(vtype) if vtype is not None else None
            items = [_raw(v) for v in value] if vtype == ValueType.STRING else list(value)
            w.add_key_value(key, items, gguf.GGUFValueType.ARRAY, sub_type=sub)
        elif vtype is not None:
            w.add_key_value(key, _raw(value), gguf.GGUFValueType(vtype))
        elif isinstance(value, (bytes, str)):
            w.add_key_value(key, _raw(value), gguf.GGUFValueType.STRING)
        elif _is_token_id(key, value):  # llama.cpp reads these as uint32 (gguf-py's add_*_token_id writes so)
            w.add_key_value(key, value, gguf.GGUFValueType.UINT32)
        else:
            w.add_key_value(key, value, gguf.GGUFValueType.get_type(value))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    w.close()
    return Path(path)


def _is_token_id(key: str, value: Any) -> bool:
    """A plain non-negative int under ``tokenizer.ggml.<name>_token_id``: written as uint32, not int32."""
    return (key.startswith("tokenizer.ggml.") and key.endswith("_token_id") and type(value) is int
            and 0 <= value < 1 << 32)


def write_metadata(path: str | os.PathLike[str], md: Mapping[str, Any], changes: Mapping[str, Any] | None = None,
                   *, byte_order: str | None = None) -> Path:
    """Write the key/values of ``md`` (a :class:`~gguftok.metadata.GGUFMetadata`), types kept, with ``changes``.

    A change whose value is ``None`` removes the key. This is how a real vocabulary is relabelled with
    another pre-tokenizer: ``write_metadata(p, md, {"tokenizer.ggml.pre": "tekken"})``.
    """
    kv: dict[str, Any] = {}
    for key, value in md.items():
        if key == "general.architecture":
            continue
        t = md.types[key]
        if isinstance(t, tuple) and len(t) > 2:
            raise NotImplementedError(f"{key}: arrays of arrays cannot be copied yet")
        kv[key] = (t[-1] if isinstance(t, tuple) else t, value)
    for key, value in (changes or {}).items():
        if value is None:
            kv.pop(key, None)
        else:
            kv[key] = value
    return write_gguf(path, kv, arch=md.get("general.architecture", "llama"), byte_order=byte_order or md.byte_order)


def gguf_bytes(kv: Mapping[str, Any], *, arch: str = "llama", byte_order: str = "little") -> bytes:
    """The bytes :func:`write_gguf` would write."""
    with tempfile.TemporaryDirectory() as tmp:
        path = write_gguf(Path(tmp) / "vocab.gguf", kv, arch=arch, byte_order=byte_order)
        return path.read_bytes()


def write_tokenizer(path: str | os.PathLike[str], tokens: Sequence[str | bytes], *,
                    model: str = "gpt2", pre: str | None = "default",
                    token_types: Sequence[int] | None = None, scores: Sequence[float] | None = None,
                    merges: Sequence[str] | None = None, special_ids: Mapping[str, int] | None = None,
                    flags: Mapping[str, bool] | None = None, extra: Mapping[str, Any] | None = None,
                    arch: str = "llama", byte_order: str = "little") -> Path:
    """Write a tokenizer-only GGUF file with the ``tokenizer.ggml.*`` keys llama.cpp reads.

    ``special_ids`` maps a short name to an id, written as uint32 ``tokenizer.ggml.<name>_token_id``
    (``{"bos": 1, "eos": 2}``); ``flags`` maps a name to a bool ``tokenizer.ggml.<name>``
    (``{"add_bos_token": False}``); ``extra`` adds any other keys, in :func:`write_gguf`'s notation.

    >>> import tempfile, pathlib
    >>> from gguftok import read_metadata
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = write_tokenizer(pathlib.Path(d) / "v.gguf", ["a", "b", "ab"], merges=["a b"],
    ...                         special_ids={"eos": 2})
    ...     md = read_metadata(p)
    >>> md["tokenizer.ggml.tokens"], md["tokenizer.ggml.merges"], md["tokenizer.ggml.eos_token_id"]
    (['a', 'b', 'ab'], ['a b'], 2)
    """
    kv: dict[str, Any] = {"tokenizer.ggml.model": model}
    if pre is not None:
        kv["tokenizer.ggml.pre"] = pre
    kv["tokenizer.ggml.tokens"] = (ValueType.STRING, list(tokens))
    if scores is not None:
        kv["tokenizer.ggml.scores"] = (ValueType.FLOAT32, [float(s) for s in scores])
    if token_types is not None:
        kv["tokenizer.ggml.token_type"] = (ValueType.INT32, [int(t) for t in token_types])
    if merges is not None:
        kv["tokenizer.ggml.merges"] = (ValueType.STRING, list(merges))
    for name, value in (special_ids or {}).items():
        kv[f"tokenizer.ggml.{name}_token_id"] = (ValueType.UINT32, int(value))
    for name, value in (flags or {}).items():
        kv[f"tokenizer.ggml.{name}"] = (ValueType.BOOL, bool(value))
    kv.update(extra or {})
    return write_gguf(path, kv, arch=arch, byte_order=byte_order)
