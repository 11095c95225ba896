"""The on-disk cache of remote metadata: the first bytes of a remote GGUF file, kept by content.

A remote read keeps what the parse needed, the file's start up to the end of its key/value section, so a
second load of the same file reads it from disk. The kept bytes are themselves a GGUF file (their header
and every key/value pair), which :func:`gguftok.read_metadata` reads like any other.

Where: ``$GGUFTOK_METADATA_CACHE``, else ``metadata/`` in gguftok's cache folder (``$GGUFTOK_CACHE``, else
``$XDG_CACHE_HOME/gguftok``, else ``~/.cache/gguftok``)::

    blobs/<sha256 of the bytes>.gguf   the bytes, named by their content (checked again on every read)
    index/<sha256 of a key>.json       {"key", "blob", "length", "size", "location", "validator", "stored"}

A key names what the bytes are the start of, and who said so; the keys are made here and nowhere else
(:func:`content_key`, :func:`commit_key`, :func:`hub_reference_key`, :func:`url_reference_key`), each scoped
to the endpoint or URL it was learned from (:func:`scope`):

- ``etag:<endpoint> <sha256>``: a Hub file whose sha256 (its ``X-Linked-Etag``) that endpoint claimed;
- ``hf:<endpoint> <type> <repo> <commit> <path>``: a Hub file at a commit (which never changes, so it is read
  without asking the Hub);
- ``ref:<endpoint> <type> <repo> <revision> <path>`` and ``ref:<url>``: the last read of a reference (used
  offline, or for a URL after a ``HEAD`` shows the same validator).

What a hit trusts: the claim of the endpoint (or the server at the URL) that made the key, for the bytes of
the file's start that were read then; nothing more. The sha256 of a Hub file is of the whole file, which is
never read, so gguftok cannot check the kept bytes against it: a mirror that claims another file's sha256 is
believed, for its own keys only. A sha256 learned from one endpoint is never a hit for another (the real Hub
and a mirror at ``HF_ENDPOINT`` share no entry), and the blob's name (the sha256 of the kept bytes) proves only
that they did not change on disk since. An entry whose record is corrupt or whose blob is missing, of the wrong
length or of the wrong sha256 is ignored (a miss) and overwritten by the next read.

The cache follows no link out of its root: ``index/``, ``blobs/`` and the files in them are opened, listed,
written and removed relative to the folders themselves, never through a symbolic link: a linked folder is a
miss for a read and an ``OSError`` for a write, a linked file is a miss and is replaced (not written through) by
the next write, and :meth:`MetadataCache.clear` leaves both alone. The root itself may be a link: it is where
the user pointed the cache.

>>> import tempfile
>>> cache = MetadataCache(tempfile.mkdtemp())
>>> key = content_key("https://huggingface.co", "ab" * 32)
>>> entry = cache.put([key], b"GGUF...", size=10**9, location="https://cdn.example/m.gguf")
>>> got = cache.get(key)
>>> got.data, got.size, got.path == entry.path, cache.get(content_key("https://mirror.example", "ab" * 32))
(b'GGUF...', 1000000000, True, None)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import stat
import time
import urllib.parse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CacheEntry", "KeptFile", "MetadataCache", "commit_key", "content_key", "default_root",
           "hub_reference_key", "is_reference_key", "scope", "url_reference_key"]

_MAX_INDEX_BYTES = 64 << 10  # an index record is a few hundred bytes; a bigger one is not ours
_MAX_BLOB_BYTES = 1 << 30  # the metadata of the largest vocabularies is tens of MB
_HEX64 = re.compile(r"[0-9a-f]{64}")
_OURS = {"index": re.compile(r"[0-9a-f]{64}\.json|\.part-[A-Za-z0-9_-]{1,64}"),
         "blobs": re.compile(r"[0-9a-f]{64}\.gguf|\.part-[A-Za-z0-9_-]{1,64}")}


def default_root() -> Path:
    """``$GGUFTOK_METADATA_CACHE``, else ``metadata`` in :func:`gguftok.data.cache_dir`."""
    env = os.environ.get("GGUFTOK_METADATA_CACHE")
    if env:
        return Path(env)
    from ..data import cache_dir

    return cache_dir() / "metadata"


# ------------------------------------------------------------------------------------------------ the keys


def scope(url: str) -> str:
    """Who a key was learned from, as it is written in the key: the scheme, host, port (unless the default)
    and path of an endpoint or URL, without user info, query or fragment, and without a space (so the rest of
    the key cannot be read as part of it).

    >>> scope("HTTPS://HuggingFace.co/"), scope("http://user:pw@127.0.0.1:8080/hf mirror/?x=1")
    ('https://huggingface.co', 'http://127.0.0.1:8080/hf%20mirror')
    >>> scope("https://[::1]:443/")
    'https://[::1]'
    """
    p = urllib.parse.urlsplit(url.strip())
    scheme, host = p.scheme.lower(), (p.hostname or "").lower()
    try:
        port = p.port
    except ValueError:
        port = None
    if ":" in host:
        host = f"[{host}]"
    if port is not None and port != {"http": 80, "https": 443}.get(scheme):
        host = f"{host}:{port}"
    path = urllib.parse.quote(p.path, safe="/%!$&'()*+,;=:@-._~").rstrip("/")
    if not scheme or not p.hostname:  # not a URL: all of it, quoted (never confused with one)
        return urllib.parse.quote(url, safe="/%:@")
    return f"{scheme}://{host}{path}"


def content_key(claimed_by: str, digest: str) -> str:
    """The key of a file whose sha256 (or other content digest: a Hub ``ETag``) ``digest`` the endpoint
    ``claimed_by`` claimed. A hit trusts that endpoint's claim, and only for that endpoint.

    >>> content_key("https://huggingface.co/", "ab" * 32) == "etag:https://huggingface.co " + "ab" * 32
    True
    """
    return f"etag:{scope(claimed_by)} {digest}"


def commit_key(endpoint: str, repo_type: str | None, repo_id: str, commit: str, path: str) -> str:
    """The key of the file at ``path`` of a Hub repository at a ``commit``, as ``endpoint`` served it."""
    return f"hf:{scope(endpoint)} {repo_type or 'model'} {repo_id} {commit} {path}"


def hub_reference_key(endpoint: str, repo_type: str | None, repo_id: str, revision: str, path: str) -> str:
    """The key of the last read of a Hub reference (a revision: a branch, a tag or a commit) at ``endpoint``."""
    return f"ref:{scope(endpoint)} {repo_type or 'model'} {repo_id} {revision} {path}"


def url_reference_key(url: str) -> str:
    """The key of the last read of an ``https://`` URL: the URL itself names the server whose word it is.

    >>> url_reference_key("https://example.org/m.gguf")
    'ref:https://example.org/m.gguf'
    """
    return f"ref:{url}"


def is_reference_key(key: str) -> bool:
    """Whether ``key`` names the last read of a reference (:func:`hub_reference_key`, :func:`url_reference_key`)
    rather than the bytes' content: what is kept without a validator serves offline reads only, by such keys.

    >>> is_reference_key(url_reference_key("https://x.example/m.gguf")), is_reference_key(content_key("https://h", "0"))
    (True, False)
    """
    return key.startswith("ref:")


@dataclass
class CacheEntry:
    """A kept file start: its ``data``, its ``path`` on disk, the remote file's ``size``, where it was read
    (``location``) and the validator it was read under (``validator``: an ETag or Last-Modified).

    A hit trusts the claim of whoever made its ``key`` (see the module's docstring), for these bytes only."""

    key: str
    path: Path
    data: bytes
    size: int
    location: str
    validator: str | None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def _record(raw: bytes | None) -> dict | None:
    """An index record as a dict, or ``None`` if it is not one (too long, not JSON, nested too deep, not an
    object, or without a well-formed ``blob`` and ``key``)."""
    if raw is None or len(raw) > _MAX_INDEX_BYTES:
        return None
    try:
        rec = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not (isinstance(rec, dict) and isinstance(rec.get("key"), str) and isinstance(rec.get("blob"), str)
            and _HEX64.fullmatch(rec["blob"])):
        return None
    return rec


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


# ------------------------------------------------------------------------------------------------ the folders

_O = {name: getattr(os, name, 0) for name in ("O_NOFOLLOW", "O_DIRECTORY", "O_NONBLOCK", "O_CLOEXEC", "O_BINARY")}
# Relative to an open folder (POSIX): a folder replaced by a link after it was opened is not followed either.
_AT = (bool(_O["O_NOFOLLOW"] and _O["O_DIRECTORY"]) and {os.open, os.stat, os.unlink, os.rename, os.mkdir}
       <= os.supports_dir_fd and os.listdir in os.supports_fd and os.stat in os.supports_follow_symlinks)


class _Folder:
    """``root/name`` (``index`` or ``blobs``), opened without following a link; every file in it is read,
    listed, written and removed relative to the open folder, never through a link. A folder that is a link,
    or not a folder, raises ``OSError`` on opening. (Without ``openat`` and the like, on Windows, the same
    checks are made on paths, with ``lstat``.)"""

    def __init__(self, root: Path, name: str, *, create: bool = False) -> None:
        self.path = root / name
        self.fd: int | None = None
        if create:
            root.mkdir(parents=True, exist_ok=True)
        if not _AT:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(self.path)
            if not stat.S_ISDIR(os.lstat(self.path).st_mode):
                raise NotADirectoryError(f"{self.path} is a link or not a folder: the cache follows no link")
            return
        top = os.open(root, os.O_RDONLY | _O["O_DIRECTORY"] | _O["O_CLOEXEC"])
        try:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, dir_fd=top)
            try:
                self.fd = os.open(name, os.O_RDONLY | _O["O_DIRECTORY"] | _O["O_NOFOLLOW"] | _O["O_CLOEXEC"],
                                  dir_fd=top)
            except OSError as e:
                if isinstance(e, FileNotFoundError):
                    raise
                raise NotADirectoryError(e.errno, f"{self.path} is a link or not a folder: the cache follows "
                                         "no link out of its root") from None
        finally:
            os.close(top)

    def __enter__(self) -> _Folder:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def _at(self, name: str) -> str | Path:
        return name if self.fd is not None else self.path / name

    def names(self) -> list[str]:
        return sorted(os.listdir(self.fd if self.fd is not None else self.path))

    def lstat(self, name: str) -> os.stat_result:
        return os.stat(self._at(name), dir_fd=self.fd, follow_symlinks=False)

    def read(self, name: str, limit: int) -> bytes | None:
        """The bytes of the regular file ``name`` if it has at most ``limit`` of them, else ``None`` (a link, a
        folder, a pipe or a device is never opened: a pipe would block, a device never end)."""
        if self.fd is None and not stat.S_ISREG(self.lstat(name).st_mode):
            return None
        flags = os.O_RDONLY | _O["O_NOFOLLOW"] | _O["O_NONBLOCK"] | _O["O_CLOEXEC"] | _O["O_BINARY"]
        with os.fdopen(os.open(self._at(name), flags, dir_fd=self.fd), "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
                return None
            data = f.read(limit + 1)
        return data if len(data) <= limit else None

    def write(self, name: str, data: bytes) -> None:
        """``name`` holds ``data``, written to a new file then renamed over it (a link there is replaced, not
        followed), so a reader never sees half of it."""
        tmp = f".part-{secrets.token_hex(8)}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O["O_NOFOLLOW"] | _O["O_CLOEXEC"] | _O["O_BINARY"]
        fd = os.open(self._at(tmp), flags, 0o600, dir_fd=self.fd)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(self._at(tmp), self._at(name), src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            with contextlib.suppress(OSError):
                self.unlink(tmp)
            raise

    def unlink(self, name: str) -> None:
        """Remove ``name`` itself (a link is removed, never what it points to)."""
        os.unlink(self._at(name), dir_fd=self.fd)


@contextlib.contextmanager
def _folders(root: Path, *names: str, create: bool = False) -> Iterator[list[_Folder]]:
    opened: list[_Folder] = []
    try:
        for name in names:
            opened.append(_Folder(root, name, create=create))
        yield opened
    finally:
        for folder in opened:
            folder.__exit__()


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
        ...          "ref:https://x/m.gguf", "etag:https://hub abc"]).references
        ['hf://me/m/a.gguf@main (https://hub)', 'https://x/m.gguf']
        """
        out = []
        for key in self.keys:
            if not is_reference_key(key):
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
    """The cache under ``root`` (default :func:`default_root`); see the module's docstring.

    No method follows a link out of ``root`` (``index/`` or ``blobs/`` linked elsewhere, or a linked file in
    them); :meth:`get` and :meth:`entries` never raise for what is on disk (a bad entry is a miss), :meth:`put`
    raises ``OSError`` when it cannot write, and :meth:`clear` removes only the cache's own files."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()

    def get(self, *keys: str) -> CacheEntry | None:
        """The entry of the first of ``keys`` that is kept intact, or ``None``.

        A hit trusts the claim of whoever made the key (an endpoint's sha256, a server's validator), for the
        bytes that were read when it was made; build keys with :func:`content_key` and the others."""
        try:
            with _folders(self.root, "index", "blobs") as (index, blobs):
                for key in keys:
                    entry = self._get(index, blobs, key)
                    if entry is not None:
                        return entry
        except OSError:  # no cache yet, or a folder that is a link: nothing kept here
            return None
        return None

    def _get(self, index: _Folder, blobs: _Folder, key: str) -> CacheEntry | None:
        try:
            rec = _record(index.read(f"{_digest(key)}.json", _MAX_INDEX_BYTES))
            if rec is None or rec["key"] != key:
                return None
            blob, length, size = rec["blob"], _int(rec.get("length")), _int(rec.get("size"))
            if length is None or size is None or not 0 < length <= min(size, _MAX_BLOB_BYTES):
                return None
            data = blobs.read(f"{blob}.gguf", length)
        except OSError:
            return None
        if data is None or len(data) != length or hashlib.sha256(data).hexdigest() != blob:
            return None
        validator = rec.get("validator")
        return CacheEntry(key, self.root / "blobs" / f"{blob}.gguf", data, size, _str(rec.get("location")),
                          validator if isinstance(validator, str) else None)

    def put(self, keys: Iterable[str], data: bytes, *, size: int, location: str,
            validator: str | None = None) -> CacheEntry:
        """Keep ``data`` (the start of a file of ``size`` bytes read from ``location``) under each of ``keys``.

        Each key should name who vouched for the bytes (:func:`content_key` and the others): a later hit
        trusts that claim and nothing more. Written atomically (a temporary file, then a rename), so a reader
        never sees half an entry, and never through a link (``index/`` or ``blobs/`` linked elsewhere is an
        ``OSError``). An ``OSError`` (a read-only or full disk) propagates; the remote reader catches it and
        goes on uncached.
        """
        keys = list(keys)
        blob = hashlib.sha256(data).hexdigest()
        name = f"{blob}.gguf"
        with _folders(self.root, "blobs", "index", create=True) as (blobs, index):
            if not self._holds(blobs, name, data):
                blobs.write(name, data)
            for key in keys:
                rec = {"key": key, "blob": blob, "length": len(data), "size": size, "location": location,
                       "validator": validator, "stored": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
                index.write(f"{_digest(key)}.json", json.dumps(rec, indent=1).encode())
        return CacheEntry(keys[0] if keys else "", self.root / "blobs" / name, data, size, location, validator)

    @staticmethod
    def _holds(blobs: _Folder, name: str, data: bytes) -> bool:
        """Whether the blob ``name`` is there, a regular file holding ``data`` (a damaged one is rewritten)."""
        try:
            st = blobs.lstat(name)
            if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
                return False
            return blobs.read(name, len(data)) == data
        except OSError:
            return False

    def entries(self) -> list[KeptFile]:
        """Every kept file start whose blob is there, the newest first (what ``gguftok cache list`` shows).

        >>> import tempfile
        >>> cache = MetadataCache(tempfile.mkdtemp())
        >>> _ = cache.put([url_reference_key("https://x/m.gguf")], b"GGUF", size=99,
        ...               location="https://x/m.gguf?sig=secret", validator='"v"')
        >>> [(e.length, e.size, e.location, e.references) for e in cache.entries()]
        [(4, 99, 'https://x/m.gguf', ['https://x/m.gguf'])]
        """
        by_blob: dict[str, KeptFile] = {}
        try:
            with _folders(self.root, "index", "blobs") as (index, blobs):
                for name in index.names():
                    if not name.endswith(".json") or not _OURS["index"].fullmatch(name):
                        continue
                    try:
                        rec = _record(index.read(name, _MAX_INDEX_BYTES))
                        if rec is None:
                            continue
                        st = blobs.lstat(f"{rec['blob']}.gguf")
                    except OSError:
                        continue
                    if not stat.S_ISREG(st.st_mode):  # a link (perhaps out of the root) is no kept file
                        continue
                    blob, stored = rec["blob"], _str(rec.get("stored"))
                    kept = by_blob.get(blob)
                    if kept is None:
                        kept = by_blob[blob] = KeptFile(blob, self.root / "blobs" / f"{blob}.gguf", st.st_size,
                                                        _int(rec.get("size")) or 0,
                                                        _str(rec.get("location")).split("?", 1)[0], stored, [])
                    kept.keys.append(rec["key"])
                    kept.stored = max(kept.stored, stored)
        except OSError:  # no cache yet, or a folder that is a link: nothing listed
            return []
        return sorted(by_blob.values(), key=lambda e: (e.stored, e.blob), reverse=True)

    def clear(self) -> tuple[int, int]:
        """Remove every kept file start and its records; ``(files removed, bytes freed)``.

        Only the cache's own files are removed (``blobs/<sha256>.gguf``, ``index/<sha256>.json`` and unfinished
        ``.part-*`` writes, each a regular file), never anything else under ``root``, which
        ``$GGUFTOK_METADATA_CACHE`` may point anywhere, and nothing a link leads to: an ``index/`` or ``blobs/``
        that is a link is left alone, and so is a file in them that is a link.
        """
        files = freed = 0
        for folder in ("index", "blobs"):
            try:
                opened = _Folder(self.root, folder)
            except OSError:  # not there, or a link: never followed
                continue
            with opened:
                try:
                    names = opened.names()
                except OSError:
                    continue
                for name in names:
                    if not _OURS[folder].fullmatch(name):
                        continue
                    try:
                        st = opened.lstat(name)
                        if not stat.S_ISREG(st.st_mode):
                            continue
                        opened.unlink(name)  # the name itself: if it became a link since, the link goes
                    except OSError:
                        continue
                    files += 1
                    freed += st.st_size
            with contextlib.suppress(OSError):
                os.rmdir(self.root / folder)  # only if nothing else is in it (rmdir follows no final link)
        return files, freed
