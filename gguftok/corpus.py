"""A corpus on Dask: partition functions that carry the tokenizer as its reference, not as an object.

Each function takes the model reference (a path, ``https://``, ``hf://`` or ``ollama:``) as a string, so a
task graph holds a few bytes per task, never a pickled tokenizer; each worker process loads the tokenizer
once (:func:`gguftok.batch.cached_tokenizer`, through the metadata cache for a remote file). They work on a
plain partition too, which is how they are shown here:

>>> ref = "data/synthetic/byte-level-286.gguf"
>>> encode_texts(["Hello world", "Hello the cat"], ref, add_special=False)
[[259, 264], [259, 270, 267]]
>>> import pandas as pd
>>> encode_frame(pd.DataFrame({"text": ["Hello world"]}), ref, add_special=False)[["ids", "n_tokens", "n_chars"]]
          ids  n_tokens  n_chars
0  [259, 264]         2       11

With Dask (``pip install gguftok[dask]``)::

    import dask.bag as db, dask.dataframe as dd
    ids = db.from_sequence(texts, npartitions=64).map_partitions(encode_texts, ref).compute()
    frame = dd.read_parquet("docs/*.parquet")
    write_ids(frame, ref, "ids.parquet")                      # ids of every document, to Parquet
    token_counts(frame, ref, by="lang").compute()             # tokens and characters per language
    tokens_per_char(frame, [ref_a, ref_b])                    # one figure per vocabulary
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from .batch import cached_tokenizer
from .errors import CorpusError


def _ref(ref: Any) -> str:
    if not isinstance(ref, str):
        raise TypeError(f"the model goes to the workers as its reference (a path or URL string), not as a "
                        f"{type(ref).__name__}: a Tokenizer would be pickled into every task")
    return ref


def encode_texts(texts: Iterable[str | bytes], ref: str, add_special: bool = True,
                 parse_special: bool = False) -> list[list[int]]:
    """The ids of each text of one partition (for ``dask.bag.Bag.map_partitions``), as ``encode`` gives them."""
    tok = cached_tokenizer(_ref(ref))
    return [tok.encode(t, add_special, parse_special) for t in texts]


def encode_frame(frame: Any, ref: str, column: str = "text", add_special: bool = True,
                 parse_special: bool = False) -> Any:
    """One partition of a DataFrame (for ``dask.dataframe.DataFrame.map_partitions``) with three columns
    added: ``ids`` (a list of int32 each), ``n_tokens`` and ``n_chars`` (code points of the text)."""
    import numpy as np

    if column not in frame.columns:
        raise KeyError(f"no column {column!r} in the partition (its columns: {list(frame.columns)})")
    tok = cached_tokenizer(_ref(ref))
    texts = frame[column].tolist()
    ids = [np.asarray(tok.encode(t, add_special, parse_special), dtype=np.int32) for t in texts]
    out = frame.copy()
    out["ids"] = ids
    out["n_tokens"] = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
    out["n_chars"] = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    return out


def _meta(frame: Any) -> Any:
    """The empty partition Dask is told ``encode_frame`` returns, so it need not call it to find out."""
    import numpy as np
    import pandas as pd

    meta = frame._meta.copy() if hasattr(frame, "_meta") else frame.iloc[:0].copy()
    meta["ids"] = pd.Series([], dtype=object)
    meta["n_tokens"] = np.array([], dtype=np.int64)
    meta["n_chars"] = np.array([], dtype=np.int64)
    return meta


def encoded(frame: Any, ref: str, column: str = "text", add_special: bool = True,
            parse_special: bool = False) -> Any:
    """A Dask DataFrame with ``encode_frame``'s columns added to every partition (lazy)."""
    return frame.map_partitions(encode_frame, ref, column, add_special, parse_special, meta=_meta(frame))


def write_ids(frame: Any, ref: str, path: str, column: str = "text", keep: Sequence[str] = (),
              add_special: bool = True, parse_special: bool = False, counts: Sequence[str] = ("n_tokens",),
              **kwargs: Any) -> Any:
    """Write the ids of every document to Parquet (a list<int32> column ``ids``, with the ``counts`` columns of
    :func:`encode_frame`), beside the columns named in ``keep``; ``kwargs`` go to ``to_parquet`` (whose answer
    this returns: with ``compute=False``, the job to run)."""
    out = encoded(frame, _ref(ref), column, add_special, parse_special)[[*keep, "ids", *counts]]
    return out.to_parquet(path, schema=_schema(frame, keep, counts), write_index=False, **kwargs)


def _schema(frame: Any, keep: Sequence[str], counts: Sequence[str]) -> Any:
    """The whole Parquet schema: Dask would infer the ids' type from a placeholder object, which pyarrow
    refuses, and an object column of the (empty) meta as null; such a column is text here."""
    import pyarrow as pa
    from pandas.api.types import is_object_dtype, is_string_dtype

    fields = []
    for name in keep:
        dtype = frame._meta[name].dtype
        text = is_object_dtype(dtype) or is_string_dtype(dtype)
        fields.append(pa.field(name, pa.string() if text else pa.from_numpy_dtype(dtype)))
    return pa.schema([*fields, pa.field("ids", pa.list_(pa.int32())), *(pa.field(c, pa.int64()) for c in counts)])


def token_counts(frame: Any, ref: str, column: str = "text", by: str | None = None) -> Any:
    """Documents, tokens and characters, summed over the frame or per value of ``by`` (a language column)."""
    out = encoded(frame, _ref(ref), column)[[*([by] if by else []), "n_tokens", "n_chars"]]
    out = out.assign(documents=1)
    return out.groupby(by).sum() if by else out[["documents", "n_tokens", "n_chars"]].sum()


def tokens_per_char(frame: Any, refs: Sequence[str], column: str = "text") -> dict[str, float]:
    """Tokens per character of the whole frame for each vocabulary, computed together in one pass of Dask."""
    import dask

    sums = [token_counts(frame, ref, column) for ref in refs]
    done = dask.compute(*sums)
    return {ref: float(s["n_tokens"]) / max(1, int(s["n_chars"])) for ref, s in zip(refs, done, strict=True)}


# ---------------------------------------------------------------------------------------- the command line
def _frame(inputs: Sequence[str], column: str, lines: bool) -> Any:
    """The documents of ``inputs`` as a Dask DataFrame: Parquet files or folders read as they are, text files one
    document each (or one per line with ``lines``), in a column ``column`` beside the file's name."""
    import dask.bag as db
    import dask.dataframe as dd
    import pandas as pd

    parquet = [p for p in inputs if p.endswith(".parquet") or os.path.isdir(p)]
    texts = [p for p in inputs if p not in parquet]
    parts = []
    if parquet:
        frame = dd.read_parquet(parquet)
        if column not in frame.columns:
            raise CorpusError(f"{parquet[0]}: no column {column!r} (its columns: {list(frame.columns)}); name the "
                              "text's with --column")
        parts.append(frame)
    if texts:
        for p in texts:
            if not os.path.isfile(p):
                raise CorpusError(f"{p}: no such file")

        def read(path: str) -> list[dict[str, str]]:
            with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
                body = f.read()
            docs = body.splitlines() if lines else [body]
            return [{"file": path, column: d} for d in docs]

        meta = pd.DataFrame({"file": pd.Series([], dtype=object), column: pd.Series([], dtype=object)})
        parts.append(db.from_sequence(texts, npartitions=min(len(texts), 256)).map(read).flatten()
                     .to_dataframe(meta=meta))
    return parts[0] if len(parts) == 1 else dd.concat(parts)


def run(ref: str, inputs: Sequence[str], output: str, *, column: str = "text", lang_column: str | None = None,
        lines: bool = False, scheduler: str | None = None, workers: int = 0, add_special: bool = True,
        parse_special: bool = False, progress: bool = False) -> dict[str, Any]:
    """``gguftok corpus``: the ids of every document of ``inputs`` written to ``output`` (Parquet), on the
    scheduler at ``scheduler`` (``tcp://host:8786``) or on a local cluster of ``workers`` processes (0: one per
    CPU); returns the counts (documents, tokens, characters; per language with ``lang_column``)."""
    try:
        import distributed
    except ImportError as e:
        raise CorpusError(f"the corpus command runs on Dask, which is not installed ({e.name}): "
                          "pip install gguftok[dask]") from None
    # the inputs first: a missing file or column is said at once, before a cluster starts or a scheduler is waited on
    frame = _frame(inputs, column, lines)
    keep = [c for c in ("file", lang_column) if c and c in frame.columns]
    if lang_column and lang_column not in frame.columns:
        raise CorpusError(f"no column {lang_column!r} for --lang-column (columns: {list(frame.columns)})")
    if scheduler:
        try:
            client = distributed.Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as e:
            raise CorpusError(f"no Dask scheduler answers at {scheduler} within 10 s ({e})") from None
        cluster = None
    else:
        cluster = distributed.LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                                           processes=True, dashboard_address=":0", silence_logs=40)
        client = distributed.Client(cluster)
    try:
        job = write_ids(frame, ref, output, column, keep, add_special, parse_special, ("n_tokens", "n_chars"),
                        compute=False)
        future = client.compute(job)
        if progress:
            distributed.progress(future)
        future.result()
        import pandas as pd

        done = pd.read_parquet(output, columns=[*([lang_column] if lang_column else []), "n_tokens", "n_chars"])
        summary: dict[str, Any] = {"documents": len(done), "tokens": int(done["n_tokens"].sum()),
                                   "chars": int(done["n_chars"].sum())}
        if lang_column:
            by = done.groupby(lang_column)[["n_tokens", "n_chars"]].sum()
            summary["by_language"] = {str(k): {"tokens": int(r.n_tokens), "chars": int(r.n_chars)}
                                      for k, r in by.iterrows()}
        return summary
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
