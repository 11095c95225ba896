"""A corpus on Dask (gguftok.corpus) against one plain process: documents per second, MB/s, the scaling from 1
to 2 workers, and memory per worker.

    python bench/bench_dask.py [--vocab qwen2] [--docs 12000] [--markdown]

The documents are ~1 KB prompts cut from the bench's English prose, C++ and multilingual texts, in turn.
The job is the one a cluster runs: the corpus in 24 Parquet files, its ids written to Parquet (one process:
read, a loop of ``encode`` from a fresh tokenizer, its load included as a worker's is, write; Dask:
``corpus.write_ids(dask.dataframe.read_parquet(...), ref, out)`` on a ``LocalCluster`` of worker processes
started before the clock, since a cluster is started once and runs many jobs). Wall time (a cluster's
throughput is wall time), the best of ``--repeats`` runs; memory is each worker's peak RSS after the runs.
The ids are checked against the one-process loop.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from texts import KINDS, text

from gguftok import Tokenizer, corpus
from gguftok.batch import cached_tokenizer
from gguftok.data import vocab_dir


def prompts(n: int) -> list[str]:
    """``n`` distinct ~1 KB prompts, English, C++ and multilingual in turn (cut on code points; past the texts'
    own prompts, each again with its number appended)."""
    cuts = [[s[i:i + 1024] for i in range(0, len(s) - 1024, 1024)] for s in map(text, KINDS)]
    out = []
    for k in range(n):
        c = cuts[k % 3]
        i = k // 3
        out.append(c[i % len(c)] + (f" #{i}" if i >= len(c) else ""))
    return out


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocab", default="qwen2")
    ap.add_argument("--docs", type=int, default=12000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    import distributed

    ref = str(vocab_dir() / f"ggml-vocab-{args.vocab}.gguf")
    docs = prompts(args.docs)
    mb = sum(len(d.encode()) for d in docs) / 1e6
    load = os.getloadavg()
    rows = []
    tmp = Path(tempfile.mkdtemp(prefix="bench-dask-"))
    try:
        import dask.dataframe as dd
        import pandas as pd
        import pyarrow as pa
        import pyarrow.parquet as pq

        # the corpus on disk, as a cluster reads it: 24 Parquet files of a text column
        dd.from_pandas(pd.DataFrame({"text": docs}), npartitions=24).to_parquet(tmp / "in", write_index=False)

        best = float("inf")
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            tok = Tokenizer.from_gguf(ref)
            texts = pd.read_parquet(tmp / "in")["text"].tolist()
            want = [tok.encode(d) for d in texts]
            pq.write_table(pa.table({"ids": pa.array(want, pa.list_(pa.int32()))}), tmp / "one.parquet")
            best = min(best, time.perf_counter() - t0)
        rows.append(("one process (encode loop)", best, f"{peak_rss_mb():.0f} MB"))

        for workers in (1, 2):
            with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                          dashboard_address=":0", silence_logs=40) as cluster, \
                    distributed.Client(cluster):
                best = float("inf")
                for r in range(args.repeats):
                    cluster_client = distributed.get_client()
                    cluster_client.run(cached_tokenizer.cache_clear)  # each run loads the tokenizer, as above
                    t0 = time.perf_counter()
                    corpus.write_ids(dd.read_parquet(tmp / "in"), ref, str(tmp / f"out{workers}-{r}"))
                    best = min(best, time.perf_counter() - t0)
                    got = [list(x) for x in pd.read_parquet(tmp / f"out{workers}-{r}")["ids"]]
                    assert got == want, "ids differ from encode's"
                rss = cluster_client.run(peak_rss_mb)
                rows.append((f"Dask, {workers} worker{'s' * (workers > 1)}", best,
                             " / ".join(f"{v:.0f} MB" for v in rss.values())))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    base = rows[0][1]
    print(f"# {args.vocab}: {len(docs)} documents, {mb:.2f} MB; {os.cpu_count()} cores, load average "
          f"{load[0]:.1f} / {load[1]:.1f}; wall time, best of {args.repeats}; ids equal encode's in every run")
    head = ("job", "wall", "documents/s", "MB/s", "against one process", "peak RSS per worker")
    lines = [head] + [(name, f"{t:.2f} s", f"{len(docs) / t:,.0f}", f"{mb / t:.2f}", f"{base / t:.2f}x", rss)
                      for name, t, rss in rows]
    lines.append(("scaling, 2 workers / 1", "", "", "", f"{rows[1][1] / rows[2][1]:.2f}x", ""))
    if args.markdown:
        print("| " + " | ".join(head) + " |\n|---|" + "---:|" * (len(head) - 1))
        for r in lines[1:]:
            print("| " + " | ".join(r) + " |")
    else:
        for r in lines:
            print(f"{r[0]:<28}" + "".join(f"{c:>22}" for c in r[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
