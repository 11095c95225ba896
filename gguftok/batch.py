"""Many texts at once: :meth:`Tokenizer.encode_batch <gguftok.Tokenizer.encode_batch>` over worker processes.

Python runs one thread of Python code at a time, so a corpus goes faster over processes. Each worker loads
the tokenizer once (from the GGUF file when there is one, else from a pickled copy of the metadata) and
then encodes chunks of texts; the answers come back in the order of the texts, and are the ids
``Tokenizer.encode`` gives (a test checks it).

>>> from gguftok import Tokenizer
>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> tok.encode_batch(["Hello world", "Hello the cat"], workers=2)
[[259, 264], [259, 270, 267]]
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

from .models.bpe import DEFAULT_CACHE_SIZE

if TYPE_CHECKING:
    from .tokenizer import Tokenizer

_worker: Tokenizer | None = None  # this worker process's tokenizer
_flags: tuple[bool, bool] = (True, False)  # add_special, parse_special


@functools.lru_cache(maxsize=4)
def cached_tokenizer(path: str, cache_size: int = DEFAULT_CACHE_SIZE) -> Tokenizer:
    """One tokenizer per process and file, loaded on first use: for the map functions of the Hugging Face
    ``datasets``, Dask, Ray or Spark, whose workers should each read the GGUF file once (a path travels to
    them cheaply; a tokenizer object would be pickled for every task)."""
    from .tokenizer import Tokenizer

    return Tokenizer.from_gguf(path, cache_size=cache_size)


def _init(path: str | None, metadata: Mapping[str, Any] | None, cache_size: int, flags: tuple[bool, bool]) -> None:
    global _worker, _flags
    from .tokenizer import Tokenizer

    _worker = Tokenizer.from_gguf(path, cache_size=cache_size) if path else Tokenizer(metadata, cache_size=cache_size)
    _flags = flags


def _encode(text: str | bytes) -> list[int]:
    return _worker.encode(text, *_flags)


def _texts(texts: Iterable[str | bytes]) -> list[str | bytes]:
    """``texts`` as a list of ``str`` and ``bytes`` (a bytes-like text becomes its bytes, which a worker can be
    sent), checked before any work starts: a ``TypeError`` names the first item that is no text."""
    from .tokenizer import text_bytes

    if isinstance(texts, (str, bytes, bytearray, memoryview)):
        raise TypeError(f"texts must be a sequence of texts, not one {type(texts).__name__} (encode_batch would "
                        "encode each of its items): put it in a list, or call encode")
    try:
        out = list(texts)
    except TypeError:
        raise TypeError(f"texts must be a sequence of texts (str or bytes-like), not {type(texts).__name__}") from None
    for k, t in enumerate(out):
        if type(t) is not str and type(t) is not bytes:
            out[k] = text_bytes(t, f"texts[{k}]") if not isinstance(t, str) else str(t)
    return out


def encode_batch(tok: Tokenizer, texts: Iterable[str | bytes], add_special: bool = True,
                 parse_special: bool = False, *, workers: int = 1, progress: bool = False,
                 chunk_size: int | None = None) -> list[list[int]]:
    """The ids of each text, in order. ``workers`` processes (``0``: one per CPU; ``1``: this process);
    ``progress`` shows a tqdm bar; ``chunk_size`` texts go to a worker at a time (default: a few chunks per
    worker, at most 256 texts each). A text is a ``str`` or a bytes-like object, as for ``encode``; anything else
    is a ``TypeError`` naming its index, raised before any text is encoded."""
    texts = _texts(texts)
    if workers == 0:
        workers = os.cpu_count() or 1
    bar = _bar(len(texts), progress)
    try:
        if workers <= 1 or len(texts) <= 1:
            out = []
            for t in texts:
                out.append(tok.encode(t, add_special, parse_special))
                bar.update(1)
            return out
        chunk = chunk_size or max(1, min(256, len(texts) // (workers * 4)))
        path = tok.source_path  # set by from_gguf: each worker reads the file; else it gets the metadata
        metadata = None if path else tok.vocab.md
        initargs = (path, metadata, tok.cache_size, (add_special, parse_special))
        with ProcessPoolExecutor(workers, initializer=_init, initargs=initargs) as pool:
            out = []
            for ids in pool.map(_encode, texts, chunksize=chunk):
                out.append(ids)
                bar.update(1)
            return out
    finally:
        bar.close()


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _bar(total: int, progress: bool) -> Any:
    if not progress:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="text", desc="encode")

