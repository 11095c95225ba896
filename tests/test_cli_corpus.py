"""``gguftok corpus``: a corpus's ids to Parquet on Dask, equal to ``encode``'s, locally or on a scheduler."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO

distributed = pytest.importorskip("distributed", reason="the dask extra (pip install gguftok[dask]) is not installed")
import pandas as pd  # noqa: E402
from test_cli_hostile import in_process  # noqa: E402

from gguftok import Tokenizer  # noqa: E402

REF = str(REPO / "data" / "synthetic" / "byte-level-286.gguf")
NO_SCHEDULER = "tcp://127.0.0.1:9"  # the discard port: nothing answers there


@pytest.fixture(scope="module", autouse=True)
def no_scheduler(request, tmp_path_factory):
    """``gguftok corpus --scheduler`` at an address where no scheduler answers, for test_clear_errors: the command
    waits out its connect timeout (10 s of wall time, no CPU to speak of), so it starts with the module, in a
    ``python -m gguftok`` of its own, and that wait passes while the tests before test_clear_errors run; the test
    then takes its exit status and standard error. (Not started when test_clear_errors is not to run.)"""
    if not any(getattr(item, "originalname", None) == "test_clear_errors" for item in request.session.items):
        yield None
        return
    tmp = tmp_path_factory.mktemp("no-scheduler")
    pd.DataFrame({"text": ["x"]}).to_parquet(tmp / "in.parquet")  # good input: the scheduler is what fails
    with open(tmp / "stdout", "wb") as out, open(tmp / "stderr", "wb") as err:  # files: a pipe could fill up
        child = subprocess.Popen([sys.executable, "-m", "gguftok", "corpus", REF, str(tmp / "in.parquet"), "-o",
                                  str(tmp / "o"), "--scheduler", NO_SCHEDULER], stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=err, cwd=REPO)

    def answer(timeout: float = 120) -> tuple[int, str, str]:
        status = child.wait(timeout)
        return status, (tmp / "stdout").read_text("utf-8", "replace"), (tmp / "stderr").read_text("utf-8", "replace")

    try:
        yield answer
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def corpus(*argv: str) -> tuple[int, str, str]:
    status, out, err = in_process(["corpus", *argv])
    return status, out.decode("utf-8"), err


def test_text_files_one_document_per_line(tmp_path):
    tok = Tokenizer.from_gguf(REF)
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("Hello world\nthe cat sat\n")
    b.write_text("naïve 日本 <|endoftext|>\n")
    status, out, err = corpus(REF, str(a), str(b), "--lines", "-o", str(tmp_path / "ids"), "--workers", "2",
                              "--no-progress")
    assert status == 0, err
    docs = ["Hello world", "the cat sat", "naïve 日本 <|endoftext|>"]
    got = pd.read_parquet(tmp_path / "ids")
    rows = sorted((f, list(map(int, ids)), n) for f, ids, n in zip(got["file"], got["ids"], got["n_chars"],
                                                                    strict=True))
    files = [str(a), str(a), str(b)]
    assert rows == sorted((f, tok.encode(d), len(d)) for f, d in zip(files, docs, strict=True))
    assert got["n_tokens"].sum() == sum(len(tok.encode(d)) for d in docs)
    assert out.startswith(f"wrote {tmp_path / 'ids'}: 3 documents, ")


def test_parquet_on_a_scheduler_address_with_languages(tmp_path):
    tok = Tokenizer.from_gguf(REF)
    docs = ["Hello world", "the cat", "日本 日本", "sat <|endoftext|>"]
    langs = ["en", "en", "ja", "en"]
    pd.DataFrame({"body": docs, "lang": langs}).to_parquet(tmp_path / "in.parquet")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=40) as cluster:
        status, out, err = corpus(REF, str(tmp_path / "in.parquet"), "-o", str(tmp_path / "ids"), "--column", "body",
                                  "--lang-column", "lang", "--scheduler", cluster.scheduler_address,
                                  "--no-add-special")
    assert status == 0, err
    got = pd.read_parquet(tmp_path / "ids")
    assert [list(x) for x in got["ids"]] == [tok.encode(d, False) for d in docs]
    ja = sum(len(tok.encode(d, False)) for d, lg in zip(docs, langs, strict=True) if lg == "ja")
    assert f"  ja: {ja} tokens, " in out


def test_clear_errors(tmp_path, no_scheduler):
    pd.DataFrame({"body": ["x"]}).to_parquet(tmp_path / "in.parquet")
    status, _, err = corpus(REF, str(tmp_path / "in.parquet"), "-o", str(tmp_path / "o"), "--workers", "1")
    assert status == 1 and "no column 'text'" in err and "--column" in err, err
    status, _, err = corpus(REF, str(tmp_path / "missing.txt"), "-o", str(tmp_path / "o"), "--workers", "1")
    assert status == 1 and "no such file" in err, err
    status, _, err = no_scheduler()  # corpus MODEL in.parquet -o o --scheduler tcp://127.0.0.1:9, started earlier
    assert status == 1 and f"no Dask scheduler answers at {NO_SCHEDULER}" in err, err
