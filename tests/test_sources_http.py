"""Remote files over HTTP (issue 22), against the server of ``tests/loopback.py`` on 127.0.0.1: range reads in
growing blocks, the on-disk cache, and every way a server can fail, each a one-line SourceError."""

from __future__ import annotations

import itertools
import json
import os
import struct
import subprocess
import sys
import time

import pytest
from conftest import REPO
from gguf_reference import ours_digests
from loopback import Loopback, silent_resolver

from gguftok import GGUFError, Tokenizer, read_metadata
from gguftok.conformance.cases import run_cases
from gguftok.errors import SourceError
from gguftok.sources import Options, open_source
from gguftok.sources.http import check_url

BLOCK = Options().max_block


def fails(ref, reason: str, match: str = "", **options) -> SourceError:
    with pytest.raises(SourceError) as e:
        read_metadata(open_source(ref, **options))
    assert e.value.reason == reason, e.value
    assert match in str(e.value), e.value
    assert "\n" not in str(e.value)
    return e.value


# ------------------------------------------------------------------------------------------ the same bytes


def test_every_vocabulary_served_remotely_is_the_local_one(each_vocab, loopback, metadata_cache):
    """Same keys and values, the same ids on llama.cpp's own cases, and at most one block past the metadata."""
    name = each_vocab.name
    url = loopback.serve(f"/vocab/{name}", each_vocab)
    local = read_metadata(each_vocab)
    tok = Tokenizer.from_gguf(url)
    md = tok.vocab.md
    assert ours_digests(md) == ours_digests(local) and md.kv_end == local.kv_end
    assert md.origin.kind == "http" and md.origin.size == each_vocab.stat().st_size
    assert md.kv_end <= md.origin.bytes_read == loopback.bytes_sent(f"/vocab/{name}") <= md.kv_end + BLOCK
    results = run_cases(tok, each_vocab)
    if results is not None:
        assert all(r.ok for r in results), [r for r in results if not r.ok][:2]


def test_the_8_gb_model_is_read_a_few_blocks_from_its_start(sparse_models, loopback, metadata_cache):
    path, kv_end = sparse_models[8 << 30]
    url = loopback.serve("/big/qwen2-8g.gguf", path)
    tok = Tokenizer.from_gguf(url)
    origin = tok.vocab.md.origin
    assert origin.size == 8 << 30 and tok.encode("Hello world!") == [9707, 1879, 0]
    assert kv_end <= origin.bytes_read == loopback.bytes_sent("/big/qwen2-8g.gguf") <= kv_end + BLOCK
    ranges = [h["range"] for m, p, h in loopback.log if p == "/big/qwen2-8g.gguf"]
    assert ranges[0] == "bytes=0-262143" and len(ranges) == origin.requests <= 8
    spans = [tuple(map(int, r.removeprefix("bytes=").split("-"))) for r in ranges]
    assert all(b[0] == a[1] + 1 for a, b in itertools.pairwise(spans))  # one after the other, no byte twice
    sizes = [b - a + 1 for a, b in spans]
    assert sizes[:4] == [256 << 10, 512 << 10, 1 << 20, 2 << 20] and max(sizes) == BLOCK


# ------------------------------------------------------------------------------------------ the cache


def test_a_second_load_is_local(loopback, metadata_cache, vocab_path):
    url = loopback.serve("/cache/qwen2.gguf", vocab_path("qwen2"))
    first = Tokenizer.from_gguf(url)
    assert first.vocab.md.origin.cache == "stored"
    sent = loopback.bytes_sent("/cache/qwen2.gguf")
    second = Tokenizer.from_gguf(url)
    origin = second.vocab.md.origin
    assert origin.cache == "hit" and origin.bytes_read == 0 and origin.requests == 1  # one HEAD
    assert loopback.bytes_sent("/cache/qwen2.gguf") == sent
    assert [m for m, p, _ in loopback.log if p == "/cache/qwen2.gguf"][-1] == "HEAD"
    assert second.encode("Hello world!") == first.encode("Hello world!")
    # the kept bytes are a GGUF file themselves (encode_batch's workers read it)
    assert second.source_path == origin.cache_path and ours_digests(read_metadata(second.source_path)) == \
        ours_digests(first.vocab.md)
    blobs = list((metadata_cache / "blobs").iterdir())
    assert len(blobs) == 1 and blobs[0].stat().st_size == first.vocab.md.kv_end


def test_offline_reads_only_the_cache(loopback, metadata_cache, vocab_path):
    url = loopback.serve("/offline/gpt2.gguf", vocab_path("gpt-2"))
    fails(url, "offline", "cache holds no copy", offline=True)
    assert loopback.requests["/offline/gpt2.gguf"] == 0
    read_metadata(url)
    n = loopback.requests["/offline/gpt2.gguf"]
    md = read_metadata(open_source(url, offline=True))
    assert md.origin.cache == "hit" and md.origin.requests == 0 and loopback.requests["/offline/gpt2.gguf"] == n


def test_a_changed_file_is_read_again(loopback, metadata_cache, vocab_path):
    url = loopback.serve("/changing.gguf", vocab_path("gpt-2"), etag='"one"')
    read_metadata(url)
    loopback.serve("/changing.gguf", vocab_path("llama-bpe"), etag='"two"')
    md = read_metadata(url)
    assert md.origin.cache == "stored" and md.origin.bytes_read > 0
    assert md["tokenizer.ggml.pre"] == "llama-bpe"


def test_no_cache_keeps_nothing(loopback, metadata_cache, vocab_path):
    url = loopback.serve("/nocache.gguf", vocab_path("gpt-2"))
    md = read_metadata(open_source(url, cache=False))
    assert md.origin.cache is None and not metadata_cache.exists()


def test_without_a_validator_the_copy_serves_offline_only(loopback, metadata_cache, vocab_path):
    url = loopback.serve("/no-etag.gguf", vocab_path("gpt-2"), etag=None)
    read_metadata(url)
    again = read_metadata(url).origin  # nothing says the file is the same: read again (and kept for offline)
    assert again.cache == "stored" and again.bytes_read == again.size
    assert read_metadata(open_source(url, offline=True)).origin.cache == "hit"


# ------------------------------------------------------------------------------------------ failures


def test_http_errors(loopback, metadata_cache, vocab_path):
    loopback.serve("/err/m.gguf", vocab_path("gpt-2"))
    fails(loopback.url("/err/none.gguf"), "not-found", "not found on the server (HTTP 404): check the URL")
    for status in (401, 403):
        loopback.fault(f"/err/{status}.gguf", status=status)
        fails(loopback.url(f"/err/{status}.gguf"), "forbidden", f"access refused (HTTP {status}): the server "
              "wants credentials")
    loopback.fault("/err/500.gguf", status=503)
    fails(loopback.url("/err/500.gguf"), "http-error", "HTTP 503")


def test_a_server_that_ignores_range_is_refused_unless_asked(sparse_models, loopback, metadata_cache):
    path, kv_end = sparse_models[8 << 30]
    url = loopback.serve("/norange/qwen2-8g.gguf", path, ranges=False)
    e = fails(url, "no-range", "ignores range requests: it answered with the whole file (8,589,934,592 bytes)")
    assert "--allow-full-download" in str(e)
    time.sleep(0.2)
    assert loopback.bytes_sent("/norange/qwen2-8g.gguf") < 64 << 20  # what the sockets took before the close
    md = read_metadata(open_source(url, allow_full_download=True))
    assert md.kv_end == kv_end and kv_end <= md.origin.bytes_read <= kv_end + BLOCK and md.origin.requests == 1
    assert "ignores Range" in md.origin.notes[0]
    time.sleep(0.2)
    assert loopback.bytes_sent("/norange/qwen2-8g.gguf") < 128 << 20  # never the 8 GB


def test_truncated_responses(loopback, metadata_cache, vocab_path):
    loopback.serve("/cut/first.gguf", vocab_path("qwen2"))
    loopback.fault("/cut/first.gguf", truncate=1000)
    fails(loopback.url("/cut/first.gguf"), "truncated", "truncated response: it ended after 1,000 of the 262,144 "
          "bytes of bytes 0-262,143")
    loopback.serve("/cut/later.gguf", vocab_path("qwen2"))
    loopback.fault("/cut/later.gguf", truncate=10, after=2)
    fails(loopback.url("/cut/later.gguf"), "truncated", "ended after 10 of the 1,048,576 bytes of bytes 786,432-")


def test_a_stalled_server_does_not_hang_the_load(loopback, metadata_cache, vocab_path):
    loopback.serve("/stall.gguf", vocab_path("gpt-2"))
    loopback.fault("/stall.gguf", stall=60)
    t = time.monotonic()
    fails(loopback.url("/stall.gguf"), "timeout", "no data for 0.5 s (the per-read timeout)", timeout=0.5)
    assert time.monotonic() - t < 5


def test_a_trickle_meets_the_deadline(loopback, metadata_cache, vocab_path):
    loopback.serve("/trickle.gguf", vocab_path("gpt-2"))
    loopback.fault("/trickle.gguf", trickle=0.02)  # a byte every 20 ms: each read is on time, the whole is not
    t = time.monotonic()
    fails(loopback.url("/trickle.gguf"), "timeout", "took longer than 1 s (its deadline)", timeout=5, deadline=1)
    assert time.monotonic() - t < 1 + 5 + 1


def test_inconsistent_answers(loopback, metadata_cache, vocab_path):
    gpt2 = vocab_path("gpt-2")
    cases = {"total": ({"wrong_total": 1, "after": 1}, "says the file has"),
             "start": ({"wrong_start": 5}, "asked for bytes 0-262143, the server sent 5-262143"),
             "gzip": ({"gzip": True}, "compressed (gzip)"),
             "changed": ({"no_ranges": True, "after": 1}, "the file changed on the server while it was read")}
    for name, (fault, match) in cases.items():
        loopback.serve(f"/odd/{name}.gguf", gpt2)
        loopback.fault(f"/odd/{name}.gguf", **fault)
        fails(loopback.url(f"/odd/{name}.gguf"), "changed" if name == "changed" else "bad-range", match)


def test_not_a_gguf_file(loopback, metadata_cache):
    loopback.serve("/page.gguf", b"<!DOCTYPE html><html>" + bytes(300))
    with pytest.raises(GGUFError, match=r"not a GGUF file: the server sent application/octet-stream bytes starting "
                       r"b'<!DOCTYPE html><'; it looks like a web page: use the file's download link"):
        read_metadata(loopback.url("/page.gguf"))


def test_an_absurd_length_is_refused_before_it_is_downloaded(tmp_path, loopback, metadata_cache):
    path = tmp_path / "huge-string.gguf"
    with open(path, "wb") as f:  # one string value that claims 500 MB, in a 1 GB file
        f.write(b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 1) + b"k" + struct.pack("<IQ", 8, 500 << 20))
        f.truncate(1 << 30)
    url = loopback.serve("/huge-string.gguf", path)
    fails(url, "too-large", "would need more than 268,435,456 bytes")
    fails(url, "too-large", "raise max_metadata", max_metadata=8 << 20)
    assert loopback.bytes_sent("/huge-string.gguf") < 2 << 20


def test_unreachable_and_refused_urls(metadata_cache):
    with Loopback() as gone:
        url = gone.url("/m.gguf")
    fails(url, "unreachable", "cannot connect to 127.0.0.1")
    with pytest.raises(SourceError, match=r"plain http to 'example.org' is refused") as e:
        check_url("http://example.org/m.gguf", "http://example.org/m.gguf")
    assert e.value.reason == "insecure"


def test_redirects_are_followed_and_credentials_stay_home(loopback, metadata_cache, vocab_path):
    with Loopback() as other:
        other.serve("/m.gguf", vocab_path("gpt-2"))
        loopback.fault("/moved.gguf", status=302, headers={"Location": other.url("/m.gguf")})
        md = read_metadata(open_source(loopback.url("/moved.gguf"), headers={"Authorization": "Bearer s3cret"}))
        assert md["tokenizer.ggml.model"] == "gpt2"
        assert [h.get("authorization") for m, p, h in loopback.log if p == "/moved.gguf"] == ["Bearer s3cret"]
        assert all("authorization" not in h for _, _, h in other.log) and len(other.log) == md.origin.requests - 1
    loopback.fault("/loop.gguf", status=307, headers={"Location": "/loop.gguf"})
    fails(loopback.url("/loop.gguf"), "too-many-redirects", "more than 10 redirects")


def test_a_progress_bar_when_asked(loopback, metadata_cache, vocab_path, capsys):
    url = loopback.serve("/progress.gguf", vocab_path("gpt-2"))
    read_metadata(open_source(url, progress=True))
    assert "metadata of progress.gguf" in capsys.readouterr().err
    read_metadata(open_source(url, progress=False, cache=False))
    assert capsys.readouterr().err == ""


# ------------------------------------------------------------------------------------------ the command line


def run(*args: str, cache) -> subprocess.CompletedProcess:
    env = {**os.environ, "GGUFTOK_METADATA_CACHE": str(cache)}
    return subprocess.run([sys.executable, "-m", "gguftok", *args], capture_output=True, cwd=REPO, timeout=120,
                          env=env)


def test_cli_tokenize_and_info_from_a_url(loopback, metadata_cache, vocab_path, toks):
    url = loopback.serve("/cli/qwen2.gguf", vocab_path("qwen2"))
    r = run("tokenize", "-m", url, "-p", "Hello world!", "--ids", cache=metadata_cache)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == toks("qwen2").encode(b"Hello world!", add_special=toks("qwen2").add_bos)
    r = run("info", url, cache=metadata_cache)
    lines = dict(line.split(None, 1) for line in r.stdout.decode().splitlines())
    assert lines["file"].startswith(f"{url}: http; read 0 of 5,928,681 bytes (0%) in 1 request")
    assert "5,928,681 bytes from the cache" in lines["file"] and lines["n_vocab"] == "151936"
    facts = json.loads(run("info", url, "--json", "--no-cache", cache=metadata_cache).stdout)
    assert facts["source"]["bytes_read"] == 5928681 and facts["source"]["requests"] == 5
    r = run("detokenize", "-m", url, "9707", "1879", "0", cache=metadata_cache)
    assert r.stdout == b"Hello world!\n"


def test_cli_errors_are_one_line(sparse_models, loopback, metadata_cache):
    r = run("info", loopback.url("/cli/none.gguf"), cache=metadata_cache)
    assert r.returncode == 1 and r.stderr.decode().count("\n") == 1 and b"HTTP 404" in r.stderr
    path, _ = sparse_models[1 << 30]
    url = loopback.serve("/cli/norange.gguf", path, ranges=False)
    r = run("tokenize", "-m", url, "-p", "x", cache=metadata_cache)
    assert r.returncode == 1 and b"--allow-full-download" in r.stderr and b"Traceback" not in r.stderr
    r = run("tokenize", "-m", url, "-p", "Hello", "--ids", "--allow-full-download", cache=metadata_cache)
    assert r.returncode == 0 and json.loads(r.stdout) == [9707]
    r = run("info", url, "--timeout", "0", cache=metadata_cache)
    assert r.returncode == 2 and b"not a positive number of seconds" in r.stderr


def test_encode_batch_workers_read_the_kept_copy(loopback, metadata_cache, vocab_path, toks):
    url = loopback.serve("/batch/gpt2.gguf", vocab_path("gpt-2"))
    tok = Tokenizer.from_gguf(url)
    assert tok.source_path == tok.vocab.md.origin.cache_path  # a local file: workers read it, not the URL
    texts = ["Hello world", "the cat sat", "x" * 50]
    n = loopback.requests["/batch/gpt2.gguf"]
    assert tok.encode_batch(texts, workers=2) == [toks("gpt-2").encode(t) for t in texts]
    assert loopback.requests["/batch/gpt2.gguf"] == n
    uncached = Tokenizer.from_gguf(open_source(url, cache=False))
    assert uncached.source_path is None and uncached.encode_batch(texts, workers=2) == tok.encode_batch(texts)


# ------------------------------------------------------------------------------------------ one connection


def test_one_connection_serves_every_block_of_a_load(sparse_models, loopback, metadata_cache):
    path, kv_end = sparse_models[8 << 30]
    url = loopback.serve("/keep/qwen2-8g.gguf", path)
    before = loopback.connections
    md = read_metadata(url)
    conns = loopback.connections_of("/keep/qwen2-8g.gguf")
    assert md.kv_end == kv_end and len(conns) == md.origin.requests == 5  # 256 KiB + ... + 4 MiB > 5.9 MB
    assert len(set(conns)) == 1 and loopback.connections == before + 1
    again = read_metadata(url).origin  # the HEAD that checks the cached copy: a connection of its own read
    assert again.cache == "hit" and loopback.connections == before + 2


def test_a_server_that_closes_between_blocks(loopback, metadata_cache, vocab_path):
    """Saying so (Connection: close) or not (an idle time-out): each block on a new connection, same bytes."""
    local = read_metadata(vocab_path("qwen2"))
    for how in ("close", "drop"):
        where = f"/keep/{how}.gguf"
        loopback.serve(where, vocab_path("qwen2"))
        loopback.fault(where, **{how: True})
        md = read_metadata(open_source(loopback.url(where), cache=False))
        assert ours_digests(md) == ours_digests(local)
        conns = loopback.connections_of(where)
        assert len(conns) == md.origin.requests == 5 and len(set(conns)) == 5, (how, conns)


def test_a_dropped_connection_is_tried_again_once(loopback, metadata_cache, vocab_path):
    where = "/keep/hangup.gguf"  # from the second request on, the server reads the request and hangs up
    loopback.serve(where, vocab_path("qwen2"))
    loopback.fault(where, hangup=True, after=1)
    fails(loopback.url(where), "unreachable", "cannot connect to 127.0.0.1: Remote end closed connection")
    conns = loopback.connections_of(where)
    assert len(conns) == 3 and conns[0] == conns[1] != conns[2]  # the kept one, then one new one, no more


def test_behind_a_proxy_urllib_reads_as_before(loopback, metadata_cache, vocab_path, monkeypatch):
    """``http_proxy`` names the loopback server itself, which answers a proxy's absolute request lines too."""
    where = "/keep/proxied.gguf"
    url = loopback.serve(where, vocab_path("gpt-2"))
    monkeypatch.setenv("http_proxy", loopback.origin)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    md = read_metadata(open_source(url, cache=False))
    assert md["tokenizer.ggml.model"] == "gpt2"
    lines = [p for _, p, _ in loopback.log if p.endswith(where)]
    assert lines and all(p == url for p in lines)  # the absolute URL: the request went through the proxy



def test_a_name_lookup_that_never_answers_is_a_timeout(metadata_cache, monkeypatch):
    t = time.monotonic()
    with silent_resolver(monkeypatch):
        fails("https://slow.example/m.gguf", "timeout", "no answer from slow.example within 0.5 s", timeout=0.5)
    assert time.monotonic() - t < 3


def test_a_host_name_with_a_label_over_63_characters_is_one_clear_error(metadata_cache, capfd):
    """The IDNA codec refuses such a name with a UnicodeError, which is not an OSError: it escaped the lookup's
    thread (a traceback on stderr) and came back as KeyError: 'addresses'."""
    host = "a" * 64 + ".example"
    e = fails(f"https://{host}/m.gguf", "unreachable", "is not a valid host name", timeout=2, cache=False)
    assert "label" in str(e)
    assert "Traceback" not in capfd.readouterr().err


def test_https_checks_the_certificate_and_keeps_one_connection(certificate, metadata_cache, vocab_path, monkeypatch):
    with Loopback(tls=certificate) as srv:
        url = srv.serve("/tls/qwen2.gguf", vocab_path("qwen2"))
        assert url.startswith("https://localhost:")
        fails(url, "unreachable", "CERTIFICATE_VERIFY_FAILED")  # not signed by an authority this machine trusts
        monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))  # now it is
        md = read_metadata(open_source(url, cache=False))
        assert ours_digests(md) == ours_digests(read_metadata(vocab_path("qwen2")))
        conns = srv.connections_of("/tls/qwen2.gguf")
        assert len(conns) == md.origin.requests == 5 and len(set(conns)) == 1
