"""What ``gguf.GGUFReader`` (the independent reference) reads from a file, reduced to comparable digests.

GGUFReader needs about 160 s of CPU for the 19 vocabularies, so what it reads from each pinned vocabulary is
recorded in ``data/golden/gguf-reader.json`` (``python tests/gguf_reference.py`` writes it; ``make golden``
too), keyed by the file's sha256 with the gguf version that read it. A file not recorded there is read live,
and its digests kept in the cache folder (keyed the same way). ``tests/test_metadata.py`` reads a few small
vocabularies live every run and checks the record against them, so the record cannot drift from gguf.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
from functools import cache
from pathlib import Path
from typing import Any

import gguf
import numpy as np

from gguftok.data import cache_dir, sha256_of, vocab_dir
from gguftok.metadata import ValueType

RECORD = Path(__file__).resolve().parent.parent / "data" / "golden" / "gguf-reader.json"


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


@cache
def recorded() -> dict[str, dict[str, Any]]:
    """``{file sha256: {"file", "gguf", "digests"}}`` from the committed record (empty if there is none)."""
    if not RECORD.exists():
        return {}
    return {entry["sha256"]: entry for entry in json.loads(RECORD.read_text(encoding="utf-8"))["files"]}


def cached_reader_digests(path: Path) -> dict[str, list[Any]]:
    """:func:`reader_digests` of ``path``: recorded, cached, or read now."""
    sha = sha256_of(path)
    if sha in recorded():
        return recorded()[sha]["digests"]
    folder = cache_dir() / "gguf-reader-digests"
    cached = folder / f"{sha}-gguf-{importlib.metadata.version('gguf')}.json"
    if cached.exists():
        return json.loads(cached.read_text())
    digests = reader_digests(path)
    folder.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(digests))
    return digests


def record(folder: Path | None = None) -> Path:
    """Read every pinned vocabulary with GGUFReader and write :data:`RECORD`."""
    folder = folder or vocab_dir()
    files = [{"file": p.name, "sha256": sha256_of(p), "gguf": importlib.metadata.version("gguf"),
              "digests": reader_digests(p)} for p in sorted(folder.glob("ggml-vocab-*.gguf"))]
    doc = {"about": "gguf.GGUFReader's digests of each key of the pinned vocabularies (tests/gguf_reference.py)",
           "files": files}
    RECORD.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return RECORD


if __name__ == "__main__":
    print(f"wrote {record()}")
