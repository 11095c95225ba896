"""What the GGUF reader sees of a source: a file of a known size, delivered from its start in growing blocks.

A :class:`Source` says where a file is (a path, a URL, a Hub file, an Ollama model); :meth:`Source.open`
gives a :class:`Reader`, which the reader of :mod:`gguftok.metadata` asks for the bytes up to an offset as it
parses. Whatever the place, the reader sees one interface:

- ``reader.size``: the whole file's size, which every length read from the file is checked against;
- ``reader.read_to(end)``: a buffer and the number of its first bytes that are valid, at least ``end`` (at
  most ``size``): a source gives a block more than asked, the blocks growing from ``first_block`` to
  ``max_block``, so a parse needs a few requests and reads at most one block past what it needs;
- ``reader.done(used)``: the parse succeeded with the bytes ``[0, used)`` (a remote source keeps them in
  its cache);
- ``reader.report()``: a :class:`ReadReport` of where the bytes came from and how many were read.

>>> r = BytesReader(b"GGUF" + bytes(400), "<bytes>", Options(first_block=64, max_block=128))
>>> r.read_to(4)[1], r.read_to(70)[1], r.read_to(100)[1], r.read_to(193)[1], r.read_to(330)[1]
(64, 192, 192, 320, 404)
"""

from __future__ import annotations

import os
import sys
import time
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import SourceError

__all__ = ["BytesReader", "Options", "ReadReport", "Reader", "Source"]


@dataclass
class Options:
    """How a source is read. Each has a keyword of :func:`gguftok.sources.open_source` of the same name.

    - ``allow_full_download``: a server that ignores range requests sends the whole file; read it from its
      start anyway (the read still stops where the metadata ends, but the server may have sent more).
      Refused by default, so a multi-GB download never happens silently.
    - ``timeout``: seconds a remote read may wait for data (connecting, each read) before it gives up;
      ``deadline``: seconds the whole remote read may take.
    - ``cache``: use and fill the on-disk cache of remote metadata (:mod:`gguftok.sources.cache`);
      ``offline``: no network at all, only the cache (default: ``$GGUFTOK_OFFLINE``, or for the Hub also
      ``$HF_HUB_OFFLINE``).
    - ``progress``: a tqdm progress bar for remote reads (``None``: when standard error is a terminal).
    - ``first_block``, ``max_block``: the sizes of the first range request and of the largest;
      ``max_metadata``: the most bytes a remote read fetches (a file whose key/value section claims more,
      say a string of 5 GB, is refused instead of downloaded).
    """

    allow_full_download: bool = False
    timeout: float = 30.0
    deadline: float = 300.0
    cache: bool = True
    offline: bool | None = None
    progress: bool | None = None
    first_block: int = 256 << 10
    max_block: int = 4 << 20
    max_metadata: int = 256 << 20

    def __post_init__(self) -> None:
        for name in ("timeout", "deadline"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and value > 0):
                raise ValueError(f"{name} must be a positive number of seconds, not {value!r}")
        for name in ("first_block", "max_block", "max_metadata"):
            value = getattr(self, name)
            if not (isinstance(value, int) and value >= 64):
                raise ValueError(f"{name} must be a number of bytes of at least 64, not {value!r}")
        self.max_block = max(self.max_block, self.first_block)

    def is_offline(self, *env: str) -> bool:
        """``offline``, or when unset whether one of ``$GGUFTOK_OFFLINE`` and ``env`` is set to a true value."""
        if self.offline is not None:
            return self.offline
        return any(os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")
                   for name in ("GGUFTOK_OFFLINE", *env))


@dataclass
class ReadReport:
    """Where the bytes of one read came from, and how many were read.

    ``kind`` is ``"file"``, ``"http"``, ``"https"``, ``"hf"`` or ``"ollama"``; ``location`` the file or URL
    the bytes were read from; ``size`` the whole file's size; ``bytes_read`` the bytes of it that were read:
    received from the network, or of a local file the extent the reader touched (it is memory-mapped, so
    nothing past that is read from disk); ``requests`` the HTTP requests made; ``cache`` is ``"hit"`` (the bytes
    came from the on-disk cache, ``cache_bytes`` of them), ``"stored"`` (they were read and kept there) or
    ``None``; ``notes`` say how the reference was resolved (a Hub commit, an Ollama manifest).
    """

    reference: str
    kind: str
    location: str
    size: int = 0
    bytes_read: int = 0
    requests: int = 0
    seconds: float = 0.0
    cache: str | None = None
    cache_path: str | None = None
    cache_bytes: int = 0
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        """One line: ``"1,234,567 of 8,589,934,592 bytes (0.014%) in 3 requests, 0.21 s"``."""
        share = f" ({100 * self.bytes_read / self.size:.3g}%)" if self.size else ""
        text = f"{self.bytes_read:,} of {self.size:,} bytes{share}"
        if self.requests:
            text += f" in {self.requests} request{'s' if self.requests != 1 else ''}"
        text += f", {self.seconds:.2f} s"
        if self.cache == "hit":
            text += f"; {self.cache_bytes:,} bytes from the cache {self.cache_path}"
        elif self.cache == "stored":
            text += f"; kept in the cache {self.cache_path}"
        return text


class Reader(ABC):
    """One read of a source; a context manager. See the module's docstring for the interface."""

    name: str  # what error messages call the file: its path or URL
    size: int

    def __init__(self, report: ReadReport, options: Options) -> None:
        self._report = report
        self.options = options
        self.avail = 0  # bytes delivered so far
        self._block = options.first_block
        self._started = time.monotonic()

    def next_end(self, end: int) -> int:
        """Where the next delivery ends: at least ``end``, one growing block past what was delivered."""
        target = min(self.size, max(end, self.avail + self._block))
        self._block = min(2 * self._block, self.options.max_block)
        return target

    @abstractmethod
    def read_to(self, end: int) -> tuple[Any, int]:
        """A buffer whose first ``n >= min(end, size)`` bytes are the file's, and ``n``."""

    def done(self, used: int) -> None:  # noqa: B027 (most readers keep nothing)
        """The parse succeeded with the bytes ``[0, used)``."""

    def close(self) -> None:  # noqa: B027
        """Release what the read holds (a memory map, a connection, a progress bar)."""

    def report(self) -> ReadReport:
        self._report.seconds = time.monotonic() - self._started
        return self._report

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class BytesReader(Reader):
    """A reader over bytes in memory, delivered a block at a time as a remote file would be (for tests)."""

    def __init__(self, data: bytes, name: str, options: Options | None = None, *, size: int | None = None,
                 report: ReadReport | None = None) -> None:
        super().__init__(report or ReadReport(name, "bytes", name), options or Options())
        self.data = data
        self.name = name
        self.size = len(data) if size is None else size
        self._view = b""
        self._report.size = self.size

    def read_to(self, end: int) -> tuple[Any, int]:
        if end > self.avail:  # as a remote file arrives: a buffer of exactly the bytes delivered so far
            self.avail = min(self.next_end(end), len(self.data))
            self._view = self.data[:self.avail]
            self._report.bytes_read = self.avail
        return self._view, self.avail


class Source(ABC):
    """Where a GGUF file is. ``kind``, ``reference`` (what was asked for), ``options``; ``open()`` reads it.

    A source can be read more than once; ``report`` is the :class:`ReadReport` of the last read that finished
    (``None`` before), ``local_path`` a local file that holds the metadata after a read (the file itself, or
    the cached copy of a remote file's start), or ``None``.
    """

    kind: str = ""

    def __init__(self, reference: str, options: Options) -> None:
        self.reference = reference
        self.options = options
        self.report: ReadReport | None = None
        self.local_path: str | None = None

    @abstractmethod
    def open(self) -> Reader:
        """A :class:`Reader` of the file (a context manager)."""

    @property
    def name(self) -> str:
        """The file's name (the last part of its path or URL)."""
        return self.reference.rstrip("/").rsplit("/", 1)[-1]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.reference}>"


class Progress:
    """A tqdm bar of bytes received, shown when asked (``progress=True``) or when standard error is a terminal.

    tqdm is imported only when a bar is shown; when it is missing, an explicit ``progress=True`` is a
    :class:`SourceError` naming what to install, an automatic bar is simply not shown.
    """

    def __init__(self, wanted: bool | None, desc: str, reference: str) -> None:
        self.bar = None
        explicit = wanted is True
        if wanted is None:
            wanted = bool(getattr(sys.stderr, "isatty", lambda: False)())
        if not wanted:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            if explicit:
                raise SourceError("a progress bar needs tqdm: pip install tqdm (the 'hub' extra brings it: "
                                  "pip install 'gguftok[hub]'), or read without progress=True",
                                  reference=reference, reason="missing-extra") from None
            return
        self.bar = tqdm(total=None, unit="B", unit_scale=True, unit_divisor=1024, desc=desc, leave=False,
                        file=sys.stderr)

    def update(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
