"""ollama: references (issue 22) against a fake Ollama store in a temporary folder (``OLLAMA_MODELS``)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest
from conftest import REPO

from gguftok import Tokenizer, read_metadata
from gguftok.errors import SourceError
from gguftok.sources import open_source
from gguftok.sources.ollama import MODEL_MEDIA_TYPE, parse_ollama_reference


def add_model(store, name: str, tag: str, gguf: bytes, *, host="registry.ollama.ai", namespace="library",
              layers=None) -> str:
    """Put ``gguf`` in the store as Ollama does: a blob named by its sha256, a manifest listing it."""
    digest = hashlib.sha256(gguf).hexdigest()
    (store / "blobs").mkdir(parents=True, exist_ok=True)
    (store / "blobs" / f"sha256-{digest}").write_bytes(gguf)
    template = b"{{ .Prompt }}"
    tdigest = hashlib.sha256(template).hexdigest()
    (store / "blobs" / f"sha256-{tdigest}").write_bytes(template)
    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
                "config": {"mediaType": "application/vnd.docker.container.image.v1+json",
                           "digest": "sha256:" + "0" * 64, "size": 2},
                "layers": layers if layers is not None else [
                    {"mediaType": "application/vnd.ollama.image.template", "digest": f"sha256:{tdigest}",
                     "size": len(template)},
                    {"mediaType": MODEL_MEDIA_TYPE, "digest": f"sha256:{digest}", "size": len(gguf)}]}
    folder = store / "manifests" / host / namespace / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / tag).write_text(json.dumps(manifest))
    return digest


@pytest.fixture
def store(tmp_path, monkeypatch, vocab_path):
    root = tmp_path / "ollama-models"
    add_model(root, "qwen2.5", "0.5b", vocab_path("qwen2").read_bytes())
    add_model(root, "qwen2.5", "latest", vocab_path("qwen2").read_bytes())
    add_model(root, "Llama-3.2-1B-GGUF", "Q4_K_M", vocab_path("llama-bpe").read_bytes(), host="hf.co",
              namespace="bartowski")
    monkeypatch.setenv("OLLAMA_MODELS", str(root))
    return root


def fails(ref, reason: str, match: str) -> SourceError:
    with pytest.raises(SourceError) as e:
        read_metadata(ref)
    assert e.value.reason == reason and match in str(e.value), e.value
    return e.value


def test_names():
    assert parse_ollama_reference("ollama:llama3.2") == ("registry.ollama.ai", "library", "llama3.2", "latest")
    assert parse_ollama_reference("ollama:me/m:v1") == ("registry.ollama.ai", "me", "m", "v1")
    for bad in ("ollama:", "ollama:../x", "ollama:a/b/c/d", "ollama:m:..", "ollama:m:a/b", "ollama:.hidden"):
        with pytest.raises(SourceError, match="expected ollama:model"):
            parse_ollama_reference(bad)


def test_a_model_in_the_store(store, toks):
    tok = Tokenizer.from_gguf("ollama:qwen2.5:0.5b")
    assert tok.encode("Hello world!") == toks("qwen2").encode("Hello world!")
    origin = tok.vocab.md.origin
    assert origin.kind == "ollama" and origin.location.startswith(str(store / "blobs" / "sha256-"))
    assert "Ollama model qwen2.5:0.5b" in origin.notes and tok.source_path == origin.location
    assert read_metadata("ollama:qwen2.5").kv_end == tok.vocab.md.kv_end  # the tag defaults to latest
    hf = read_metadata("ollama:hf.co/bartowski/Llama-3.2-1B-GGUF:Q4_K_M")
    assert hf["tokenizer.ggml.pre"] == "llama-bpe"


def test_what_is_missing_and_what_to_do(store, monkeypatch, tmp_path):
    fails("ollama:qwen2.5:7b", "not-found", "no Ollama model qwen2.5:7b in")
    e = fails("ollama:qwen2.5:7b", "not-found", "its tags here: 0.5b, latest")
    assert "ollama pull qwen2.5:7b" in str(e)
    fails("ollama:mistral", "not-found", "run `ollama pull mistral:latest`")
    monkeypatch.setenv("OLLAMA_MODELS", str(tmp_path / "nowhere"))
    fails("ollama:qwen2.5", "not-found", "no Ollama model store at")


def test_untrusted_manifests_and_blobs(store):
    add_model(store, "notjson", "latest", b"GGUF")
    (store / "manifests/registry.ollama.ai/library/notjson/latest").write_text("{")
    fails("ollama:notjson", "not-found", "is not one Ollama writes")
    add_model(store, "nomodel", "latest", b"GGUF", layers=[])
    fails("ollama:nomodel", "not-found", f"has no layer of type {MODEL_MEDIA_TYPE}")
    add_model(store, "escape", "latest", b"GGUF",
              layers=[{"mediaType": MODEL_MEDIA_TYPE, "digest": "sha256:../../etc/passwd", "size": 4}])
    fails("ollama:escape", "not-found", "which is no sha256 digest")
    digest = add_model(store, "partial", "latest", b"GGUF" + bytes(100))
    with open(store / "blobs" / f"sha256-{digest}", "r+b") as f:
        f.truncate(50)
    fails("ollama:partial", "truncated", "has 50 bytes, its manifest says 104")
    os.unlink(store / "blobs" / f"sha256-{digest}")
    fails("ollama:partial", "not-found", "is missing from the store")
    big = store / "manifests/registry.ollama.ai/library/huge/latest"
    big.parent.mkdir(parents=True)
    big.write_bytes(b" " * (2 << 20))
    fails("ollama:huge", "not-found", "larger than 1,048,576 bytes")


def test_cli(store, toks):
    env = {**os.environ, "OLLAMA_MODELS": str(store)}
    r = subprocess.run([sys.executable, "-m", "gguftok", "tokenize", "-m", "ollama:qwen2.5:0.5b", "-p", "Hello world!",
                        "--ids"], capture_output=True, cwd=REPO, timeout=120, env=env)
    assert r.returncode == 0 and json.loads(r.stdout) == toks("qwen2").encode("Hello world!")
    r = subprocess.run([sys.executable, "-m", "gguftok", "info", "ollama:qwen2.5:0.5b"], capture_output=True,
                       cwd=REPO, timeout=120, env=env)
    assert b"Ollama blob " in r.stdout and b"Ollama model qwen2.5:0.5b" in r.stdout
    assert open_source("ollama:qwen2.5").kind == "ollama"
