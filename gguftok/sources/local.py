"""A GGUF file on this machine: memory-mapped, so only the pages the reader touches are read from disk.

>>> from gguftok.sources.local import LocalSource
>>> from gguftok.sources.base import Options
>>> with LocalSource("data/synthetic/tiny-9.gguf", Options()).open() as r:
...     r.size > 0, r.read_to(24)[0][:4]
(True, b'GGUF')

A multi-GB model is read no further than its metadata: the reader asks for the bytes up to the end of the
key/value section, a block at a time, and ``bytes_read`` in the report is how far it got (a test measures
it on an 8 GB sparse file against a 1 GB one: the same).

Split models: llama.cpp's ``gguf-split`` writes ``name-00001-of-00003.gguf``, ``-00002-of-...``; the first
shard holds every key/value pair (the tokenizer's included), the others only ``split.*`` keys and tensors.
:func:`shard_of` reads the shard number from a name and :func:`first_shard` names the first, for the
message a later shard gets.

>>> shard_of("Qwen3-235B-Q4_K_M-00002-of-00003.gguf"), first_shard("m/Qwen3-Q4-00002-of-00003.gguf")
((2, 3), 'm/Qwen3-Q4-00001-of-00003.gguf')
"""

from __future__ import annotations

import contextlib
import mmap
import os
import re
import stat
from collections.abc import Callable
from typing import Any

from ..errors import GGUFError
from .base import Options, Reader, ReadReport, Source

__all__ = ["LocalSource", "file_kind", "first_shard", "open_regular_file", "shard_of"]

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
# Opening a FIFO for reading waits for a writer, and a terminal may become the controlling one: neither here.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
_SHARD = re.compile(r"-(\d{5})-of-(\d{5})\.gguf$")


def file_kind(mode: int) -> str:
    """What a ``st_mode`` is, in words: ``"a regular file"``, ``"a directory"``, ``"a character device"``, ..."""
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((kind for test, kind in _KINDS if test(mode)), "a special file")


def open_regular_file(name: str | os.PathLike[str], refuse: Callable[[str], Exception]) -> int:
    """A read-only descriptor of ``name`` if it is a regular file; else raises ``refuse(why)``.

    Only a regular file has a size that bounds what can be read from it: ``/dev/zero`` never ends, a FIFO
    or a terminal blocks, a directory has no bytes. The path is checked before it is opened (so a FIFO
    never blocks and a device is never touched) and the descriptor after (in case the path changed).
    Errors of the file system itself (no such file, permission) are ``OSError`` as usual.
    """
    mode = os.stat(name).st_mode
    if stat.S_ISREG(mode):
        fd = os.open(name, _OPEN_FLAGS)
        mode = os.fstat(fd).st_mode
        if stat.S_ISREG(mode):
            if _OPEN_FLAGS & getattr(os, "O_NONBLOCK", 0):
                os.set_blocking(fd, True)
            return fd
        os.close(fd)
    raise refuse(f"{file_kind(mode)}, not a regular file")


def shard_of(name: str) -> tuple[int, int] | None:
    """``(number, count)`` when ``name`` is a shard of a split model (``...-00002-of-00005.gguf``), else ``None``."""
    m = _SHARD.search(name)
    return (int(m.group(1)), int(m.group(2))) if m else None


def first_shard(name: str) -> str:
    """The name of the first shard of the split model ``name`` is a shard of."""
    m = _SHARD.search(name)
    if not m:
        return name
    return name[:m.start()] + f"-00001-of-{m.group(2)}.gguf" + name[m.end():]


class LocalSource(Source):
    """A regular file on this machine, memory-mapped. ``kind`` is ``"file"`` (an Ollama blob reports
    ``"ollama"``, with ``notes`` saying which model it is)."""

    kind = "file"

    def __init__(self, path: str | os.PathLike[str], options: Options, *, reference: str | None = None,
                 kind: str = "file", notes: list[str] | None = None) -> None:
        self.path = os.fsdecode(os.fspath(path))
        super().__init__(self.path if reference is None else reference, options)
        self.kind = kind
        self.notes = list(notes or [])

    def open(self) -> LocalReader:
        report = ReadReport(self.reference, self.kind, self.path, notes=list(self.notes))
        reader = LocalReader(self.path, report, self.options)
        self.local_path = os.path.abspath(self.path)
        reader.source = self
        return reader


class LocalReader(Reader):
    """The bytes of a local file through a read-only memory map (an empty file has none)."""

    def __init__(self, path: str, report: ReadReport, options: Options) -> None:
        super().__init__(report, options)
        self.name = path
        self.source: Source | None = None
        try:
            fd = open_regular_file(path, lambda why: GGUFError(
                f"{why}: a GGUF file must be a regular file, whose size bounds every length read from it "
                "(copy the bytes into one first)", source=path))
        except FileNotFoundError:
            raise FileNotFoundError(f"no such file: {path}") from None
        self._mm: mmap.mmap | None = None
        try:
            self.size = os.fstat(fd).st_size
            if self.size:
                self._mm = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
        finally:
            os.close(fd)  # the map keeps its own reference to the file
        self._buf: Any = self._mm if self._mm is not None else b""
        report.size = self.size

    def read_to(self, end: int) -> tuple[Any, int]:
        if end > self.avail:
            self.avail = self.next_end(end)
            self._report.bytes_read = self.avail  # what the parser may touch: nothing past it is read from disk
        return self._buf, self.avail

    def close(self) -> None:
        if self._mm is not None:
            self._buf = b""
            with contextlib.suppress(BufferError):  # a view left by an error's traceback: the map closes with it
                self._mm.close()
            self._mm = None
        if self.source is not None:
            self.source.report = self.report()
