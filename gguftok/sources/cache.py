"""The on-disk cache of remote metadata: the first bytes of a remote GGUF file, kept by content.

A remote read keeps what the parse needed, the file's start up to the end of its key/value section, so a
second load of the same file reads it from disk. The kept bytes are themselves a GGUF file (their header
and every key/value pair), which :func:`gguftok.read_metadata` reads like any other.

Where: ``$GGUFTOK_METADATA_CACHE``, else ``metadata/`` in gguftok's cache folder (``$GGUFTOK_CACHE``, else
``$XDG_CACHE_HOME/gguftok``, else ``~/.cache/gguftok``)::

    blobs/<sha256 of the bytes>.gguf   the bytes, named by their content (checked again on every read)
    index/<sha256 of a key>.json       {"key", "blob", "length", "size", "location", "validator", "stored"}

A key names what the bytes are the start of: ``etag:<sha256>`` for a Hub file (its ``X-Linked-Etag`` is the
file's sha256), ``url:<url> <ETag or Last-Modified>`` for an https file, ``hf:<endpoint> <repo> <commit>
<path>`` for a Hub file at a commit (which never changes, so it is read without asking the Hub), and
``ref:<reference>`` for the last read of a reference (used only offline). An entry whose blob is missing,
of the wrong length or of the wrong sha256 is ignored and overwritten by the next read.

>>> import tempfile
>>> cache = MetadataCache(tempfile.mkdtemp())
>>> entry = cache.put(["url:https://example.org/m.gguf \\"abc\\""], b"GGUF...", size=10**9,
...                   location="https://example.org/m.gguf", validator='"abc"')
>>> got = cache.get('url:https://example.org/m.gguf "abc"')
>>> got.data, got.size, got.path == entry.path
(b'GGUF...', 1000000000, True)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CacheEntry", "KeptFile", "MetadataCache", "default_root"]

_MAX_INDEX_BYTES = 64 << 10  # an index record is a few hundred bytes; a bigger one is not ours
_MAX_BLOB_BYTES = 1 << 30  # the metadata of the largest vocabularies is tens of MB


def default_root() -> Path:
    """``$GGUFTOK_METADATA_CACHE``, else ``metadata`` in :func:`gguftok.data.cache_dir`."""
    env = os.environ.get("GGUFTOK_METADATA_CACHE")
    if env:
        return Path(env)
    from ..data import cache_dir

    return cache_dir() / "metadata"


@dataclass
class CacheEntry:
    """A kept file start: its ``data``, its ``path`` on disk, the remote file's ``size``, where it was read
    (``location``) and the validator it was read under (``validator``: an ETag or Last-Modified)."""

    key: str
    path: Path
    data: bytes
    size: int
    location: str
    validator: str | None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


@dataclass
class KeptFile:
    """One kept file start, as :meth:`MetadataCache.entries` lists it: its ``blob`` (sha256) and ``path``,
    ``length`` (the bytes kept), the remote file's ``size``, the ``location`` it was read from (a URL, its
    query cut off: a CDN's signed URL carries a credential there), when it was ``stored`` (the latest record's
    time, UTC) and the ``keys`` that name it."""

    blob: str
    path: Path
    length: int
    size: int
    location: str
    stored: str
    keys: list[str]

    @property
    def references(self) -> list[str]:
        """What the keys say the file was asked for as: ``hf://repo/file@revision`` or a URL.

        >>> KeptFile("0" * 64, Path("b"), 1, 2, "", "", ["ref:https://hub model me/m main a.gguf",
        ...          "ref:https://x/m.gguf", "etag:abc"]).references
        ['hf://me/m/a.gguf@main (https://hub)', 'https://x/m.gguf']
        """
        out = []
        for key in self.keys:
            if not key.startswith("ref:"):
                continue
            parts = key[4:].split(" ", 4)
            if len(parts) == 5 and parts[1] in ("model", "dataset", "space"):  # the Hub's: endpoint, repository
                # type, repository, revision, path (which alone may hold a space)
                endpoint, kind, repo, revision, path = parts
                prefix = "" if kind == "model" else f"{kind}s/"
                where = "" if endpoint == "https://huggingface.co" else f" ({endpoint})"
                out.append(f"hf://{prefix}{repo}/{path}@{revision}{where}")
            else:
                out.append(key[4:])
        return sorted(set(out))


class MetadataCache:
    """The cache under ``root`` (default :func:`default_root`); see the module's docstring."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()

    def get(self, *keys: str) -> CacheEntry | None:
        """The entry of the first of ``keys`` that is kept intact, or ``None``."""
        for key in keys:
            entry = self._get(key)
            if entry is not None:
                return entry
        return None

    def _get(self, key: str) -> CacheEntry | None:
        index = self.root / "index" / f"{_digest(key)}.json"
        try:
            with open(index, "rb") as f:
                raw = f.read(_MAX_INDEX_BYTES + 1)
            if len(raw) > _MAX_INDEX_BYTES:
                return None
            rec = json.loads(raw)
            blob, length, size = rec["blob"], rec["length"], rec["size"]
            if (rec.get("key") != key or not isinstance(blob, str) or len(blob) != 64
                    or any(c not in "0123456789abcdef" for c in blob) or not isinstance(length, int)
                    or not isinstance(size, int) or not 0 < length <= min(size, _MAX_BLOB_BYTES)):
                return None
            path = self.root / "blobs" / f"{blob}.gguf"
            if os.stat(path).st_size != length:
                return None
            with open(path, "rb") as f:
                data = f.read(length + 1)
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if len(data) != length or hashlib.sha256(data).hexdigest() != blob:
            return None
        validator = rec.get("validator")
        location = rec.get("location")
        return CacheEntry(key, path, data, size, location if isinstance(location, str) else "",
                          validator if isinstance(validator, str) else None)

    def put(self, keys: Iterable[str], data: bytes, *, size: int, location: str,
            validator: str | None = None) -> CacheEntry:
        """Keep ``data`` (the start of a file of ``size`` bytes read from ``location``) under each of ``keys``.

        Written atomically (a temporary file, then a rename), so a reader never sees half an entry. An
        ``OSError`` (a read-only or full disk) propagates; the remote reader catches it and goes on uncached.
        """
        keys = list(keys)
        blob = hashlib.sha256(data).hexdigest()
        path = self.root / "blobs" / f"{blob}.gguf"
        if not (path.is_file() and path.stat().st_size == len(data)):
            self._write(path, data)
        for key in keys:
            rec = {"key": key, "blob": blob, "length": len(data), "size": size, "location": location,
                   "validator": validator, "stored": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            self._write(self.root / "index" / f"{_digest(key)}.json", json.dumps(rec, indent=1).encode())
        return CacheEntry(keys[0] if keys else "", path, data, size, location, validator)

    def entries(self) -> list[KeptFile]:
        """Every kept file start whose blob is there, the newest first (what ``gguftok cache list`` shows).

        >>> import tempfile
        >>> cache = MetadataCache(tempfile.mkdtemp())
        >>> _ = cache.put(["ref:https://x/m.gguf", 'url:https://x/m.gguf "v"'], b"GGUF", size=99,
        ...               location="https://x/m.gguf?sig=secret", validator='"v"')
        >>> [(e.length, e.size, e.location, e.references) for e in cache.entries()]
        [(4, 99, 'https://x/m.gguf', ['https://x/m.gguf'])]
        """
        by_blob: dict[str, KeptFile] = {}
        for index in sorted((self.root / "index").glob("*.json")):
            try:
                with open(index, "rb") as f:
                    raw = f.read(_MAX_INDEX_BYTES + 1)
                rec = json.loads(raw) if len(raw) <= _MAX_INDEX_BYTES else None
                blob, key = rec["blob"], rec["key"]
                if not (isinstance(blob, str) and isinstance(key, str) and len(blob) == 64
                        and all(c in "0123456789abcdef" for c in blob)):
                    continue
                path = self.root / "blobs" / f"{blob}.gguf"
                length = path.stat().st_size
            except (OSError, ValueError, KeyError, TypeError):
                continue
            stored = rec.get("stored") if isinstance(rec.get("stored"), str) else ""
            size = rec.get("size") if isinstance(rec.get("size"), int) else 0
            location = rec.get("location") if isinstance(rec.get("location"), str) else ""
            kept = by_blob.get(blob)
            if kept is None:
                kept = by_blob[blob] = KeptFile(blob, path, length, size, location.split("?", 1)[0], stored, [])
            kept.keys.append(key)
            kept.stored = max(kept.stored, stored)
        return sorted(by_blob.values(), key=lambda e: (e.stored, e.blob), reverse=True)

    def clear(self) -> tuple[int, int]:
        """Remove every kept file start and its records; ``(files removed, bytes freed)``.

        Only the cache's own files are removed (``blobs/*.gguf``, ``index/*.json`` and unfinished ``.part-*``
        writes), never anything else under ``root``, which ``$GGUFTOK_METADATA_CACHE`` may point anywhere.
        """
        files = freed = 0
        for folder, pattern in (("index", "*.json"), ("blobs", "*.gguf"), ("index", ".part-*"), ("blobs", ".part-*")):
            for path in (self.root / folder).glob(pattern):
                try:
                    if not path.is_file() or path.is_symlink():
                        continue
                    size = path.stat().st_size
                    path.unlink()
                except OSError:
                    continue
                files += 1
                freed += size
        for folder in ("index", "blobs"):
            with contextlib.suppress(OSError):
                (self.root / folder).rmdir()  # only if nothing else is in it
        return files, freed

    @staticmethod
    def _write(path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".part-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
