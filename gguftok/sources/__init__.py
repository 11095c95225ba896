"""Where a GGUF file's bytes come from: a path, a URL, the Hugging Face Hub, Ollama's store, a split model.

The tokenizer metadata sits in the first few MB of a model file of 4 to 70 GB, so wherever the file is,
gguftok reads only those bytes. :func:`open_source` turns a reference into a :class:`Source`:

==========================================  ===============================================================
``path/to/model.gguf``                      a local file, memory-mapped (:mod:`~gguftok.sources.local`)
``model-00001-of-00003.gguf``               the first shard of a split model (a later shard is refused,
                                            with the first one's name)
``https://host/model.gguf``                 range requests in growing blocks (:mod:`~gguftok.sources.http`);
                                            ``http://`` only on this machine's loopback
``hf://owner/repo/file.gguf[@revision]``    a Hub file, through ``huggingface_hub`` (:mod:`~gguftok.sources.hub`)
``ollama:model[:tag]``                      a model in Ollama's store (:mod:`~gguftok.sources.ollama`)
==========================================  ===============================================================

Remote metadata is kept on disk by content (:mod:`~gguftok.sources.cache`), so a second load is local
(``gguftok cache`` lists it, ``gguftok cache clear`` removes it). :func:`open_source`, :class:`Source`,
:class:`ReadReport` and :class:`~gguftok.errors.SourceError` are exported by ``gguftok`` itself.

>>> from gguftok import read_metadata
>>> src = open_source("data/synthetic/tiny-9.gguf")
>>> md = read_metadata(src)
>>> src.report.kind, src.report.bytes_read == src.report.size, md.origin is src.report
('file', True, True)

:func:`gguftok.read_metadata` and :meth:`gguftok.Tokenizer.from_gguf` take a reference or a source; a
source made here carries the options (``allow_full_download``, ``timeout``, ``deadline``, ``cache``,
``offline``, ``progress``, ...; see :class:`~gguftok.sources.base.Options`)::

    tok = Tokenizer.from_gguf(open_source("https://example.org/m.gguf", allow_full_download=True))
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import SourceError
from .base import Options, Reader, ReadReport, Source
from .local import LocalSource, first_shard, shard_of

__all__ = ["Options", "ReadReport", "Reader", "Source", "as_source", "check_shard", "kind_of", "open_source"]

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")


def kind_of(ref: str | os.PathLike[str]) -> str:
    """What a reference names: ``"file"``, ``"https"``, ``"http"``, ``"hf"`` or ``"ollama"``.

    >>> [kind_of(r) for r in ("m.gguf", "https://x/m.gguf", "hf://a/b/m.gguf", "ollama:llama3.2", "C:\\\\m.gguf")]
    ['file', 'https', 'hf', 'ollama', 'file']
    """
    if not isinstance(ref, str):
        return "file"
    if ref.startswith("ollama:"):
        return "ollama"
    m = _SCHEME.match(ref)
    if not m:
        return "file"
    scheme = m.group(1).lower()
    if scheme in ("https", "http", "hf", "file"):
        return scheme
    raise SourceError(f"cannot read {scheme}:// references: gguftok reads local paths, https:// URLs, "
                      "hf://owner/repo/file.gguf and ollama:model[:tag]", reference=ref, reason="bad-reference")


def open_source(ref: str | os.PathLike[str], *, headers: Mapping[str, str] | None = None,
                forward_headers: Iterable[str] = (), **options: Any) -> Source:
    """The :class:`Source` of a reference (see the module's docstring); nothing is read until it is opened.

    ``options`` are those of :class:`~gguftok.sources.base.Options`; ``headers`` go with every request to an
    ``https://`` URL's own origin; after a redirect to another origin, only those named in ``forward_headers``
    go along, and never credentials (the Hub's credentials come from ``huggingface_hub``).
    """
    opts = Options(**options)
    kind = kind_of(ref)
    if kind == "file":
        if isinstance(ref, str) and ref.startswith("file://"):
            import urllib.parse

            ref = urllib.parse.unquote(urllib.parse.urlsplit(ref).path)
        return LocalSource(ref, opts)
    assert isinstance(ref, str)
    if kind == "ollama":
        from .ollama import OllamaSource

        return OllamaSource(ref, opts)
    if kind == "hf":
        from .hub import HubSource

        return HubSource(ref, opts)
    from .http import HttpSource

    return HttpSource(ref, opts, headers=headers, forward_headers=forward_headers)


def as_source(ref: Source | str | os.PathLike[str], **options: Any) -> Source:
    """``ref`` itself if it is a :class:`Source`, else :func:`open_source` of it."""
    if isinstance(ref, Source):
        return ref
    return open_source(ref, **options)


def check_shard(source: Source, metadata: Mapping[str, Any] | None = None) -> None:
    """A :class:`SourceError` if ``source`` is a later shard of a split model, whose tokenizer is in the first.

    Before reading, from the name (``-00002-of-00003.gguf``); after, from the ``split.no`` key when the name
    does not say but the shard holds no tokenizer.
    """
    name = getattr(source, "path", None) if source.kind in ("file", "ollama") else None
    name = name or source.reference
    shard = shard_of(name)
    number = count = None
    if shard is not None and shard[0] > 1:
        number, count = shard
    elif metadata is not None and "tokenizer.ggml.model" not in metadata:
        no, total = metadata.get("split.no"), metadata.get("split.count")
        if isinstance(no, int) and isinstance(total, int) and 0 < no < total:
            number, count = no + 1, total  # split.no counts from 0
    if number is None:
        return
    first = first_shard(source.reference)
    where = (f": load {first}" if first != source.reference else
             ": load the first shard (its name ends in -00001-of-" f"{count:05d}.gguf)")
    raise SourceError(f"this is shard {number} of {count} of a split model; only the first shard holds the "
                      f"tokenizer{where}", reference=source.reference, reason="shard")
