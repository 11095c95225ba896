"""Tables prepared from a vocabulary once and kept on disk, named by the bytes they come from.

Some facts about a vocabulary cost seconds to find and never change: which tokens byte pair encoding leaves
whole when their own text is a word (:meth:`gguftok.models.bpe.BPEModel.merged_apart`), and where no merge
can join two characters (:func:`gguftok.models.bpe.junctions`, which cuts the long words of Gemma 4's lines;
:func:`gguftok.models.spm.merge_junctions` for SentencePiece, named by the digest of the tokens alone, since it
has no merges).
``Tokenizer.prepare()`` (or ``gguftok prepare FILE``) finds them once and keeps them here; every later load of
a file with the same tokens and merges (the same :attr:`~gguftok.metadata.GGUFMetadata.merges_digest`) reads
them back in about a millisecond. A table holds token ids and characters of the merges: nothing of any text
encoded is ever written.

Where: ``$GGUFTOK_TABLES``, else ``tables/`` in gguftok's cache folder (``$GGUFTOK_CACHE``, else
``$XDG_CACHE_HOME/gguftok``, else ``~/.cache/gguftok``), one file per table::

    <merges_digest>.<kind>.json   {"format": "gguftok-table", "kind", "version", "digest", "n_vocab",
                                   "ids", "joins"}

A file that is not exactly such a record for the vocabulary asking (another kind, version, digest or
vocabulary size, an id out of range, ids not strictly increasing, joins not from characters to strings, more
bytes than such a table can hold, a link or not a regular file) is a miss, never an error: the tokenizer then
merges as if unprepared, and the next ``prepare()`` replaces it. As with the metadata cache, no link is
followed out of the folder.

>>> import tempfile
>>> store = TableStore(tempfile.mkdtemp())
>>> store.put("bpe-apart", "ab" * 32, 10, [3, 7]).name[-20:]
'babab.bpe-apart.json'
>>> store.get("bpe-apart", "ab" * 32, 10), store.get("bpe-apart", "ab" * 32, 5), store.get("bpe-apart", "cd" * 32, 10)
(Table(ids=[3, 7], joins=None), None, None)
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from .sources.cache import _Folder

FORMAT = "gguftok-table"
# the version of each kind of table: a change to what a table means (or how it is found) bumps it
# (bpe-apart-newline-runs: the same, for a model that takes a run of newlines that is a token whole, as Gemma 4's
# pre-tokenizer has it, which the digest of the tokens and merges does not say)
# (spm-junctions: SentencePiece's merge_junctions, named by the digest of the tokens alone; no ids)
VERSIONS = {"bpe-apart": 1, "bpe-apart-newline-runs": 1, "spm-junctions": 1}
SPM_TABLE = "spm-junctions"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_MAX_ITEM_BYTES = 12  # an id and its separator in the JSON list, or a character escaped (two surrogates: 12)


@dataclass(frozen=True)
class Table:
    """What :meth:`TableStore.get` read: ``ids`` (``bpe-apart``: the tokens that merge apart) and ``joins`` (the
    merges' :func:`~gguftok.models.bpe.junctions`, or SentencePiece's
    :func:`~gguftok.models.spm.merge_junctions` as each character and the characters that may follow it; or
    ``None``)."""

    ids: list[int]
    joins: dict[str, str] | None = None


def default_root() -> Path:
    """``$GGUFTOK_TABLES``, else ``tables`` in :func:`gguftok.data.cache_dir`."""
    env = os.environ.get("GGUFTOK_TABLES")
    if env:
        return Path(env)
    from .data import cache_dir

    return cache_dir() / "tables"


class TableStore:
    """The folder of prepared tables (``root``, else :func:`default_root`)."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()

    @staticmethod
    def name(kind: str, digest: str) -> str:
        if kind not in VERSIONS or not _HEX64.fullmatch(digest):
            raise ValueError(f"no table {kind!r} for digest {digest!r}: kinds are {sorted(VERSIONS)}, "
                             "digests 64 lowercase hex digits")
        return f"{digest}.{kind}.json"

    def get(self, kind: str, digest: str, n_vocab: int, n_merges: int = 0) -> Table | None:
        """The table ``kind`` for ``digest``, or ``None`` if there is none that fits a vocabulary of ``n_vocab``
        tokens and ``n_merges`` merges (see the module's docstring for what does not)."""
        name = self.name(kind, digest)
        limit = 1024 + _MAX_ITEM_BYTES * (n_vocab + 2 * n_merges)
        try:
            with _Folder(self.root.parent, self.root.name) as folder:
                raw = folder.read(name, limit)
        except OSError:
            return None
        if raw is None:
            return None
        try:
            rec = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        if not (isinstance(rec, dict) and rec.get("format") == FORMAT and rec.get("kind") == kind
                and rec.get("version") == VERSIONS[kind] and rec.get("digest") == digest
                and rec.get("n_vocab") == n_vocab and isinstance(rec.get("ids"), list)):
            return None
        ids, joins = rec["ids"], rec.get("joins")
        last = -1
        for i in ids:
            if type(i) is not int or not last < i < n_vocab:
                return None
            last = i
        if joins is not None and not (isinstance(joins, dict) and all(
                len(a) == 1 and isinstance(b, str) for a, b in joins.items())):
            return None
        return Table(ids, joins)

    def put(self, kind: str, digest: str, n_vocab: int, ids: Sequence[int], joins: dict[str, str] | None = None,
            ) -> Path:
        """Keep ``ids`` (strictly increasing, below ``n_vocab``) and ``joins`` as the table ``kind`` for
        ``digest``, replacing what was there; returns its path. ``OSError`` if the folder cannot be written."""
        ids = list(ids)
        if any(a >= b for a, b in pairwise([-1, *ids])) or (ids and ids[-1] >= n_vocab):
            raise ValueError("a table's ids are strictly increasing token ids of the vocabulary")
        name = self.name(kind, digest)
        data = json.dumps({"format": FORMAT, "kind": kind, "version": VERSIONS[kind], "digest": digest,
                           "n_vocab": n_vocab, "ids": ids, "joins": joins}, separators=(",", ":")).encode()
        with _Folder(self.root.parent, self.root.name, create=True) as folder:
            folder.write(name, data)
        return self.root / name
