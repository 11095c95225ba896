"""gguftok.corpus on a real Dask cluster (``distributed.LocalCluster``, 2 worker processes): the ids equal
``encode``'s, a worker killed mid-job loses nothing, and the tokenizer travels as its reference."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import time

import pytest
from conftest import REPO

distributed = pytest.importorskip("distributed", reason="the dask extra (pip install gguftok[dask]) is not installed")
import cloudpickle  # noqa: E402
import dask.bag as db  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402

from gguftok import Tokenizer, corpus  # noqa: E402

REF = str(REPO / "data" / "synthetic" / "byte-level-286.gguf")
WORDS = ["Hello", "world", "the", "cat", "sat", "naïve", "日本", "<|endoftext|>", "12345", "  ", "\n"]


def documents(n: int) -> list[str]:
    return [" ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(i % 13 + 1)) for i in range(n)]


def slow_texts(texts):
    """A partition step slow enough that a worker can be killed while the job runs."""
    time.sleep(0.3)
    return list(texts)


cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=40) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def tok():
    return Tokenizer.from_gguf(REF)


def test_bag_ids_equal_encode(client, tok):
    docs = documents(300)
    got = db.from_sequence(docs, npartitions=12).map_partitions(corpus.encode_texts, REF).compute()
    assert got == [tok.encode(d) for d in docs]


def test_a_worker_killed_mid_job_loses_nothing(client, tok):
    docs = documents(400)
    job = db.from_sequence(docs, npartitions=24).map_partitions(slow_texts).map_partitions(
        corpus.encode_texts, REF, False)
    future = client.compute(job)
    pids = client.run(os.getpid)
    time.sleep(1.0)  # some partitions done, most not
    assert not future.done()
    os.kill(next(iter(pids.values())), signal.SIGKILL)
    got = future.result(timeout=120)
    assert got == [tok.encode(d, False) for d in docs]
    assert client.run(os.getpid).keys() and set(client.run(os.getpid).values()) != set(pids.values())


def test_frame_jobs(client, tok, tmp_path):
    docs = documents(200)
    langs = ["en" if i % 3 else "ja" for i in range(len(docs))]
    frame = dd.from_pandas(pd.DataFrame({"text": docs, "lang": langs, "doc": range(len(docs))}), npartitions=6)
    ids = [tok.encode(d) for d in docs]

    corpus.write_ids(frame, REF, str(tmp_path / "ids.parquet"), keep=["doc"])
    back = pd.read_parquet(tmp_path / "ids.parquet").sort_values("doc")
    assert [list(x) for x in back["ids"]] == ids and back["n_tokens"].tolist() == list(map(len, ids))

    counts = corpus.token_counts(frame, REF, by="lang").compute()
    for lang in ("en", "ja"):
        mine = [i for i, lg in enumerate(langs) if lg == lang]
        assert counts.loc[lang, "n_tokens"] == sum(len(ids[i]) for i in mine)
        assert counts.loc[lang, "n_chars"] == sum(len(docs[i]) for i in mine)
        assert counts.loc[lang, "documents"] == len(mine)

    spm = str(REPO / "data" / "vocab" / "ggml-vocab-llama-spm.gguf")
    refs = [REF] + ([spm] if os.path.exists(spm) else [])
    ratios = corpus.tokens_per_char(frame, refs)
    chars = sum(map(len, docs))
    for ref in refs:
        want = sum(len(Tokenizer.from_gguf(ref).encode(d)) for d in docs) / chars
        assert ratios[ref] == pytest.approx(want)


def test_the_graph_holds_the_reference_not_a_tokenizer(tok):
    """A task is a few hundred bytes: the reference string, never the tokenizer (megabytes pickled)."""
    task = cloudpickle.dumps((corpus.encode_texts, ["Hello"], REF))
    assert len(task) < 2000 < len(pickle.dumps(tok.vocab.md))
    with pytest.raises(TypeError, match="reference"):
        corpus.encode_texts(["Hello"], tok)


def test_same_code_against_a_scheduler_address(tok):
    """A second process connects to the scheduler by its address, as a user's script would (tcp://...)."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=40) as cluster:
        script = ("import sys, dask.bag as db, distributed; from gguftok import corpus\n"
                  "with distributed.Client(sys.argv[1], timeout=30):\n"
                  "    print(db.from_sequence(['Hello world', 'the cat'], npartitions=2)"
                  ".map_partitions(corpus.encode_texts, sys.argv[2]).compute())\n")
        r = subprocess.run([sys.executable, "-c", script, cluster.scheduler_address, REF], capture_output=True,
                           text=True, timeout=120, cwd=REPO)
        assert r.returncode == 0, r.stderr[-2000:]
        assert r.stdout.strip() == str([tok.encode("Hello world"), tok.encode("the cat")])


def test_core_imports_no_dask():
    r = subprocess.run([sys.executable, "-c", "import sys, gguftok, gguftok.batch; print(sorted(m for m in "
                        "('dask', 'distributed', 'pandas', 'pyarrow') if m in sys.modules))"],
                       capture_output=True, text=True, timeout=60, cwd=REPO)
    assert r.stdout.strip() == "[]", r.stderr
