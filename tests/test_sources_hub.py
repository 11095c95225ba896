"""hf:// references (issue 22) against a stand-in of the Hub at ``HF_ENDPOINT`` (``tests/loopback.py``): the
routes ``huggingface_hub.get_hf_file_metadata`` calls, a redirect to a CDN on another origin, private and gated
repositories; resolved and authenticated by huggingface_hub itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import REPO
from gguf_reference import ours_digests
from loopback import HubStandIn, Loopback, silent_resolver

from gguftok import Tokenizer, read_metadata
from gguftok.errors import SourceError
from gguftok.sources import Options, open_source
from gguftok.sources.hub import parse_hf_reference

pytest.importorskip("huggingface_hub")

BLOCK = Options().max_block
COMMIT = "c0ffee" * 6 + "beef"


@pytest.fixture(scope="module")
def hub(vocab_path, sparse_models):
    with Loopback() as server, Loopback() as cdn:
        h = HubStandIn(server, cdn)
        vocab = vocab_path("qwen2").parent
        h.add("ggml-org/vocabs", {p.name: p for p in sorted(vocab.glob("ggml-vocab-*.gguf"))})
        h.add("me/private", {"m.gguf": vocab_path("gpt-2")}, private=True)
        h.add("me/gated", {"m.gguf": vocab_path("gpt-2")}, gated=True)
        h.add("me/big", {"qwen2-8g.gguf": sparse_models[8 << 30][0]})
        h.add("me/small", {"m.gguf": vocab_path("llama-spm")})
        h.small.add(("me/small", "m.gguf"))
        h.add("me/tagged", {"dir/m.gguf": vocab_path("gpt-2")}, branches=("main", "v1.0", "refs/pr/3"))
        h.add("me/copy", {"q.gguf": vocab_path("qwen2")}, commit="ab" * 20)  # the same file as in ggml-org/vocabs
        yield h


@pytest.fixture(autouse=True)
def online(monkeypatch):
    """huggingface_hub reads HF_HUB_OFFLINE once, when imported (test_chat.py sets it for transformers)."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)


@pytest.fixture
def endpoint(hub, metadata_cache, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", hub.endpoint)
    hub.hub.reset()
    hub.cdn.reset()
    return hub.endpoint


def fails(ref, reason: str, match: str, **options) -> SourceError:
    with pytest.raises(SourceError) as e:
        read_metadata(open_source(ref, **options))
    assert e.value.reason == reason and match in str(e.value) and "\n" not in str(e.value), e.value
    return e.value


def test_references():
    assert parse_hf_reference("hf://a/b/c.gguf") == (None, "a/b", "c.gguf", None)
    assert parse_hf_reference("hf://a/b@v1/d/c.gguf") == (None, "a/b", "d/c.gguf", "v1")
    assert parse_hf_reference("hf://spaces/a/b/c.gguf@main") == ("space", "a/b", "c.gguf", "main")
    for bad in ("hf://a/b", "hf://a", "hf://a/b/", "hf://a/b/../c.gguf", "hf://a/b/c.gguf@", "hf://-x/b/c.gguf"):
        with pytest.raises(SourceError, match=r"expected hf://owner/repo/path/file.gguf|is not a repository"):
            parse_hf_reference(bad)


def test_every_vocabulary_from_the_hub_is_the_local_one(endpoint, each_vocab):
    md = read_metadata(f"hf://ggml-org/vocabs/{each_vocab.name}")
    local = read_metadata(each_vocab)
    assert ours_digests(md) == ours_digests(local) and md.kv_end == local.kv_end
    assert md.origin.kind == "hf" and md.origin.size == each_vocab.stat().st_size
    assert md.kv_end <= md.origin.bytes_read <= md.kv_end + BLOCK
    assert md.origin.location.startswith(endpoint.rsplit(":", 1)[0])  # the CDN (the signed query not shown)
    assert "X-Amz-Signature" not in md.origin.location and f"revision main is commit {COMMIT}" in md.origin.notes


def test_the_tokenizer_of_an_8_gb_model_on_the_hub(endpoint, hub, sparse_models):
    _, kv_end = sparse_models[8 << 30]
    tok = Tokenizer.from_gguf("hf://me/big/qwen2-8g.gguf")
    origin = tok.vocab.md.origin
    assert tok.encode("Hello world!") == [9707, 1879, 0] and origin.size == 8 << 30
    assert kv_end <= origin.bytes_read == hub.cdn.bytes_sent() <= kv_end + BLOCK
    assert [m for m, _, _ in hub.hub.log] == ["HEAD"]  # one HEAD at the Hub; the bytes from the CDN
    assert origin.requests == 1 + len(hub.cdn.log)
    assert len(hub.cdn.log) == 5 and len(set(hub.cdn.conn_of)) == 1  # all the blocks on one connection


def test_the_cache_lists_a_hub_file_as_its_reference(endpoint, hub, metadata_cache):
    from gguftok.sources.cache import MetadataCache, content_key

    md = read_metadata("hf://me/tagged@v1.0/dir/m.gguf")
    (kept,) = MetadataCache().entries()
    assert kept.references == [f"hf://me/tagged/dir/m.gguf@v1.0 ({endpoint})"]
    assert kept.length == md.kv_end and kept.size == md.origin.size and "?" not in kept.location
    assert content_key(endpoint, hub.digest(hub.repos['me/tagged'].files['dir/m.gguf'])) in kept.keys
    assert f"etag:{endpoint} {hub.digest(hub.repos['me/tagged'].files['dir/m.gguf'])}" in kept.keys


def test_a_second_load_asks_the_hub_only_for_the_head(endpoint, hub):
    ref = "hf://ggml-org/vocabs/ggml-vocab-qwen2.gguf"
    read_metadata(ref)
    sent = hub.cdn.bytes_sent()
    md = read_metadata(ref)
    assert md.origin.cache == "hit" and md.origin.requests == 1 and hub.cdn.bytes_sent() == sent
    # at a commit, the file never changes: nothing asked at all
    at_commit = f"hf://ggml-org/vocabs@{COMMIT}/ggml-vocab-qwen2.gguf"
    read_metadata(at_commit)
    n = len(hub.hub.log) + len(hub.cdn.log)
    md = read_metadata(at_commit)
    assert md.origin.cache == "hit" and md.origin.requests == 0 and len(hub.hub.log) + len(hub.cdn.log) == n
    # the same file in another repository: known by its sha256, nothing read but the HEAD; then known at its commit
    copy = f"hf://me/copy/q.gguf@{'ab' * 20}"
    assert read_metadata(copy).origin.requests == 1 and hub.cdn.bytes_sent() == sent
    assert read_metadata(copy).origin.requests == 0


def test_offline(endpoint, hub, monkeypatch):
    ref = "hf://ggml-org/vocabs/ggml-vocab-gpt-2.gguf"
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    fails(ref, "offline", "HF_HUB_OFFLINE")
    monkeypatch.delenv("HF_HUB_OFFLINE")
    read_metadata(ref)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    n = len(hub.hub.log)
    md = read_metadata(ref)
    assert md.origin.cache == "hit" and len(hub.hub.log) == n


def test_private_and_gated_repositories_and_the_token(endpoint, hub, monkeypatch):
    e = fails("hf://me/private/m.gguf", "not-found", "or it is private and this request is not logged in")
    assert "hf auth login" in str(e) and "HF_TOKEN" in str(e)
    fails("hf://me/gated/m.gguf", "forbidden", "is a gated repository: accept its conditions on "
          f"{endpoint}/me/gated")
    monkeypatch.setenv("HF_TOKEN", hub.token)
    hub.hub.reset()
    hub.cdn.reset()
    for ref in ("hf://me/private/m.gguf", "hf://me/gated/m.gguf"):
        assert read_metadata(open_source(ref, cache=False))["tokenizer.ggml.model"] == "gpt2"
    assert {h.get("authorization") for _, _, h in hub.hub.log} == {f"Bearer {hub.token}"}
    assert hub.cdn.log and all("authorization" not in h for _, _, h in hub.cdn.log)  # never off the Hub


def test_a_file_the_hub_serves_itself_gets_the_token(endpoint, hub, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", hub.token)
    md = read_metadata("hf://me/small/m.gguf")
    assert md["tokenizer.ggml.model"] == "llama" and not hub.cdn.log
    gets = [h for m, _, h in hub.hub.log if m == "GET"]
    assert gets and all(h.get("authorization") == f"Bearer {hub.token}" and h["range"] for h in gets)


def test_missing_files_and_revisions(endpoint):
    fails("hf://ggml-org/vocabs/nope.gguf", "not-found", "has no file 'nope.gguf' at revision 'main'")
    fails("hf://ggml-org/vocabs/ggml-vocab-gpt-2.gguf@v9", "not-found", "has no revision 'v9'")
    fails("hf://nobody/nothing/m.gguf", "not-found", "no repository nobody/nothing")
    for ref in ("hf://me/tagged@v1.0/dir/m.gguf", "hf://me/tagged/dir/m.gguf@refs%2Fpr%2F3"):
        assert read_metadata(ref)["tokenizer.ggml.model"] == "gpt2"


def test_a_cdn_that_disagrees_with_the_hub(endpoint, hub, vocab_path):
    digest = hub.digest(vocab_path("falcon"))
    hub.add("me/odd", {"m.gguf": vocab_path("falcon")})
    hub.cdn.serve(f"/blobs/{digest}", vocab_path("gpt-2").read_bytes())  # not the size the Hub gave
    fails("hf://me/odd/m.gguf", "bad-range", "(as the Hub said)")
    hub.cdn.serve(f"/blobs/{digest}", vocab_path("falcon"))


def test_an_unreachable_hub(metadata_cache, monkeypatch):
    with Loopback() as gone:
        endpoint = gone.origin
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    fails("hf://a/b/m.gguf", "unreachable", f"cannot reach {endpoint}")


def test_without_huggingface_hub(metadata_cache, monkeypatch):
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    fails("hf://a/b/m.gguf", "missing-extra", "pip install 'gguftok[hub]'")


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gguftok", *args], capture_output=True, cwd=REPO, timeout=120,
                          env={**os.environ, **env})


def test_cli_info_and_tokenize_from_the_hub(endpoint, metadata_cache, toks):
    env = {"HF_ENDPOINT": endpoint, "GGUFTOK_METADATA_CACHE": str(metadata_cache)}
    ref = "hf://ggml-org/vocabs/ggml-vocab-qwen2.gguf"
    r = run("info", ref, env=env)
    assert r.returncode == 0, r.stderr
    lines = dict(line.split(None, 1) for line in r.stdout.decode().splitlines())
    assert lines["file"].startswith(f"{ref}: Hugging Face Hub http://127.0.0.1:") and COMMIT in lines["file"]
    assert "; read 5,928,681 of 5,928,681 bytes (100%) in 6 requests" in lines["file"]
    assert lines["pre"] == "qwen2" and lines["n_vocab"] == "151936"
    r = run("tokenize", "-m", ref, "-p", "Hello world!", "--ids", env=env)
    assert r.returncode == 0 and json.loads(r.stdout) == toks("qwen2").encode("Hello world!")
    r = run("info", "hf://me/private/m.gguf", env=env)
    assert r.returncode == 1 and r.stderr.decode().count("\n") == 1 and b"hf auth login" in r.stderr
    r = run("chat", ref, "--messages", '[{"role": "user", "content": "Hi"}]', "--ids", "--offline", env=env)
    assert r.returncode == 0 and json.loads(r.stdout) == toks("qwen2").encode_chat([{"role": "user", "content": "Hi"}])



def test_a_hub_whose_name_never_resolves_is_a_timeout(metadata_cache, monkeypatch):
    import time

    monkeypatch.setenv("HF_ENDPOINT", "https://slow.example")
    t = time.monotonic()
    with silent_resolver(monkeypatch):
        fails("hf://me/m/m.gguf", "timeout", "no answer from https://slow.example within 0.5 s", timeout=0.5)
    assert time.monotonic() - t < 3


@pytest.mark.parametrize("first", ["mirror", "hub"])
def test_a_sha256_claimed_by_one_endpoint_is_no_hit_at_another(endpoint, hub, vocab_path, monkeypatch, first):
    """A content key names the endpoint that claimed the sha256: a mirror (HF_ENDPOINT) that claims the real
    file's sha256 for another vocabulary fills its own keys only, and a read from the real Hub (or the other way
    round) reads its own bytes, never the other endpoint's kept ones."""
    from gguftok.sources.cache import MetadataCache

    ref = "hf://ggml-org/vocabs/ggml-vocab-qwen2.gguf"
    real, other = vocab_path("qwen2"), vocab_path("gpt-2")
    claimed = hub.digest(real)
    with Loopback() as mirror_hub, Loopback() as mirror_cdn:
        mirror = HubStandIn(mirror_hub, mirror_cdn)
        mirror.sha[id(other)] = claimed  # it claims the real file's sha256 and serves another vocabulary
        mirror.add("ggml-org/vocabs", {"ggml-vocab-qwen2.gguf": other})
        served = {"hub": (endpoint, hub.cdn, real), "mirror": (mirror.endpoint, mirror_cdn, other)}
        second = "hub" if first == "mirror" else "mirror"
        for name in (first, second):
            where, cdn, source = served[name]
            monkeypatch.setenv("HF_ENDPOINT", where)
            md = read_metadata(ref)
            assert md.origin.cache == "stored" and cdn.bytes_sent() >= md.kv_end, (name, md.origin.cache)
            assert ours_digests(md) == ours_digests(read_metadata(source)), name
            assert md["tokenizer.ggml.pre"] == read_metadata(source)["tokenizer.ggml.pre"]
        for name in (first, second):  # each endpoint's claim is a hit at that endpoint, with its own bytes
            where, cdn, source = served[name]
            monkeypatch.setenv("HF_ENDPOINT", where)
            sent = cdn.bytes_sent()
            md = read_metadata(ref)
            assert md.origin.cache == "hit" and cdn.bytes_sent() == sent
            assert ours_digests(md) == ours_digests(read_metadata(source)), name
        keys = {k for e in MetadataCache().entries() for k in e.keys if k.startswith("etag:")}
        assert keys == {f"etag:{endpoint} {claimed}", f"etag:{mirror.endpoint} {claimed}"}
