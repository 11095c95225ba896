"""What ``gguf.GGUFReader`` (the independent reference) reads from a file, reduced to comparable digests.

GGUFReader needs about 100 s for the 19 vocabularies, so its digests are kept in the cache folder, keyed by
the file's sha256 and gguf's version; the first run (and every CI run, on a fresh machine) computes them.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
from pathlib import Path
from typing import Any

import gguf
import numpy as np

from gguftok.data import cache_dir, sha256_of
from gguftok.metadata import ValueType


def _digest(kind: str, leaves: list[Any]) -> str:
    h = hashlib.sha256(kind.encode())
    for leaf in leaves:
        if isinstance(leaf, bytes):
            h.update(len(leaf).to_bytes(8, "little") + leaf)
        elif np.size(leaf):  # an empty array reads as no parts in GGUFReader
            arr = np.asarray(leaf)
            h.update(arr.dtype.name.encode() + arr.astype(arr.dtype.newbyteorder("<")).tobytes())
    return h.hexdigest()


def reader_digests(path: Path) -> dict[str, list[Any]]:
    """``{key: [type numbers, digest of the values]}`` as GGUFReader sees the file."""
    r = gguf.GGUFReader(path)
    out = {}
    for name, field in r.fields.items():
        if name.startswith("GGUF."):
            continue
        types = [int(t) for t in field.types]
        base = field.types[-1]
        parts = [field.parts[i] for i in field.data]
        if base == gguf.GGUFValueType.STRING:
            leaves = [bytes(p) for p in parts]
        else:
            leaves = [np.concatenate(parts)] if parts else []
        out[name] = [types, _digest("S" if base == gguf.GGUFValueType.STRING else "N", leaves)]
    return out


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, list) and value and not isinstance(value[0], str):
        return [leaf for item in value for leaf in _flatten(item)]
    return [value]


def ours_digests(md) -> dict[str, list[Any]]:
    """The same digests computed from a :class:`gguftok.GGUFMetadata`."""
    from gguftok.metadata import _NUMPY_CODES

    out = {}
    for key, value in md.items():
        t = md.types[key]
        types = [int(x) for x in t] if isinstance(t, tuple) else [int(t)]
        base = ValueType(types[-1])
        if base == ValueType.STRING:
            strings = [value] if types == [int(ValueType.STRING)] else [s for leaf in _flatten(value) for s in leaf]
            out[key] = [types, _digest("S", [s.encode("utf-8", "surrogateescape") for s in strings])]
        elif isinstance(value, (list, np.ndarray)):
            leaves = _flatten(value) if isinstance(value, list) else [value]
            out[key] = [types, _digest("N", [np.concatenate(leaves)] if leaves else [])]
        else:
            dtype = np.bool_ if base == ValueType.BOOL else np.dtype("<" + _NUMPY_CODES[base])
            out[key] = [types, _digest("N", [np.array([value], dtype=dtype)])]
    return out


def cached_reader_digests(path: Path) -> dict[str, list[Any]]:
    folder = cache_dir() / "gguf-reader-digests"
    cached = folder / f"{sha256_of(path)}-gguf-{importlib.metadata.version('gguf')}.json"
    if cached.exists():
        return json.loads(cached.read_text())
    digests = reader_digests(path)
    folder.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(digests))
    return digests
