"""The pinned vocabulary fetch: manifest, verification, idempotence, and clear failures."""

from __future__ import annotations

import hashlib

import pytest
from conftest import MANIFEST, VOCAB_NAMES

from gguftok import DataError
from gguftok import data as gdata


def test_manifest_lists_19_vocabularies_and_15_test_pairs():
    assert len(VOCAB_NAMES) == 19
    inp = {n[len("ggml-vocab-"):].removesuffix(".gguf.inp") for n in MANIFEST if n.endswith(".inp")}
    out = {n[len("ggml-vocab-"):].removesuffix(".gguf.out") for n in MANIFEST if n.endswith(".out")}
    assert inp == out and len(inp) == 15 and inp <= set(VOCAB_NAMES)
    assert set(VOCAB_NAMES) - inp == {"aquila", "baichuan", "gpt-neox", "nomic-bert-moe"}
    for info in MANIFEST.values():
        assert info["size"] > 0 and len(info["sha256"]) == 64


def test_fetched_files_match_the_manifest(vocab_path):
    dest = vocab_path("qwen2").parent
    assert gdata.missing_or_wrong(dest, MANIFEST, deep=True) == []


def test_second_fetch_touches_nothing(vocab_path, monkeypatch):
    def no_download(*args, **kwargs):
        raise AssertionError("a complete data/vocab must not need the sdist")

    monkeypatch.setattr(gdata, "sdist_path", no_download)
    messages = []
    assert gdata.fetch(vocab_path("qwen2").parent, log=messages.append) == vocab_path("qwen2").parent
    assert "match the manifest" in messages[-1]


def test_fetch_restores_a_damaged_file(vocab_path, tmp_path):
    # A copy of the vocabularies with one file damaged: only that one is extracted again.
    dest = tmp_path / "vocab"
    dest.mkdir()
    for name in MANIFEST:
        (dest / name).symlink_to(vocab_path("qwen2").parent / name)
    (dest / "ggml-vocab-phi-3.gguf").unlink()
    (dest / "ggml-vocab-phi-3.gguf").write_bytes(b"GGUF damaged")
    messages = []
    gdata.fetch(dest, log=messages.append)
    assert any("ggml-vocab-phi-3.gguf" in m for m in messages)
    assert "1 files extracted" in messages[-1]
    digest = hashlib.sha256((dest / "ggml-vocab-phi-3.gguf").read_bytes()).hexdigest()
    assert digest == MANIFEST["ggml-vocab-phi-3.gguf"]["sha256"]


def test_a_wrong_sdist_checksum_is_refused_and_removed(tmp_path, monkeypatch):
    monkeypatch.setenv("GGUFTOK_CACHE", str(tmp_path))
    bad = tmp_path / gdata.SDIST_NAME
    bad.write_bytes(b"not the sdist")
    with pytest.raises(DataError, match="is pinned to 832db069"):
        gdata.sdist_path(log=lambda m: None)
    assert not bad.exists()


def test_offline_download_fails_clearly(tmp_path, monkeypatch):
    # pip with no index to ask behaves as when PyPI cannot be reached: it finds nothing.
    monkeypatch.setenv("GGUFTOK_CACHE", str(tmp_path))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    with pytest.raises(DataError, match=r"could not download llama-cpp-python==0\.3\.36 with pip"):
        gdata.sdist_path(log=lambda m: None)


def test_command_line_reports_errors_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GGUFTOK_CACHE", str(tmp_path))
    (tmp_path / gdata.SDIST_NAME).write_bytes(b"x")
    assert gdata.main(["sdist-path"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gguftok.data: error:") and "sha256" in err
