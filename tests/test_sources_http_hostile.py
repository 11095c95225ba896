"""Remote reads against hostile servers on loopback (the security issue of the HTTP transport): a server that
holds a read past its deadline, a redirect that takes the caller's headers elsewhere, a port that is no port,
a server that breaks the protocol. Every failure is one SourceError line naming its reason, in time."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from conftest import REPO
from loopback import (
    Loopback,
    RawServer,
    endless_continue,
    garbage_status,
    many_headers,
    ranges_of,
    silent,
    slow_continue,
    slow_headers,
    slow_status,
)

from gguftok import read_metadata
from gguftok.errors import SourceError
from gguftok.sources import open_source
from gguftok.sources.base import Options
from gguftok.sources.http import HttpSource, KeepAliveTransport, UrllibTransport, check_url, lookup, origin

DEADLINE, TIMEOUT = 3.0, 2.0
SLACK = 1.0  # acceptance: a timeout within this of the deadline


def fails(ref, reason: str, match: str = "", **options) -> SourceError:
    with pytest.raises(SourceError) as e:
        read_metadata(ref if isinstance(ref, HttpSource) else open_source(ref, **options))
    assert e.value.reason == reason, e.value
    assert match in str(e.value), e.value
    assert "\n" not in str(e.value)
    return e.value


def timed_out(url: str, *, deadline: float = DEADLINE, timeout: float = TIMEOUT,
              **options) -> tuple[SourceError, float]:
    t = time.monotonic()
    e = fails(url, "timeout", "", deadline=deadline, timeout=timeout, cache=False, **options)
    took = time.monotonic() - t
    assert took < deadline + SLACK, (took, e)
    return e, took


# ------------------------------------------------------------------------------------------ 1: the deadline


@pytest.mark.parametrize("script", [slow_continue, slow_status, slow_headers], ids=lambda s: s.__name__)
def test_the_deadline_holds_while_the_answer_head_is_read(script, metadata_cache):
    """Each was still running at 25 s with deadline=3, timeout=2: the per-read timeout restarts on each byte,
    and http.client skips 100 Continue answers for as long as they come (here, fewer than the cap on them)."""
    with RawServer(script) as srv:
        e, took = timed_out(srv.url("/m.gguf"))
    assert "took longer than 3 s (its deadline)" in str(e) and took >= DEADLINE - 0.2, (took, e)


def test_the_deadline_holds_over_a_slow_body(loopback, metadata_cache, vocab_path):
    loopback.serve("/hostile/trickle.gguf", vocab_path("gpt-2"))
    loopback.fault("/hostile/trickle.gguf", trickle=0.05)
    e, _ = timed_out(loopback.url("/hostile/trickle.gguf"))
    assert "took longer than 3 s (its deadline)" in str(e)


def test_the_deadline_holds_when_the_timeout_is_longer(metadata_cache):
    """A silent server, timeout 10 s, deadline 3 s: the one wait is cut at the deadline, and says so."""
    with RawServer(silent) as srv:
        e, took = timed_out(srv.url("/m.gguf"), timeout=10)
    assert "(its deadline)" in str(e) and took >= DEADLINE - 0.2


def test_the_deadline_holds_over_a_tls_handshake_never_answered(metadata_cache):
    with RawServer(silent) as srv:
        timed_out(f"https://localhost:{srv.port}/m.gguf", timeout=10)


def test_the_deadline_holds_over_tls_headers(certificate, metadata_cache, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    with RawServer(slow_headers, tls=certificate) as srv:
        timed_out(srv.url("/m.gguf"))


def _proxy(monkeypatch, variable: str, origin: str) -> None:
    """Every request of that scheme goes through the proxy at ``origin`` (no host is exempt)."""
    monkeypatch.setenv(variable, origin)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)


def test_the_deadline_holds_behind_a_proxy(metadata_cache, monkeypatch):
    """Through a proxy (urllib's path): the same deadline; the 'proxy' here is the slow server itself."""
    with RawServer(slow_headers) as srv:
        _proxy(monkeypatch, "http_proxy", srv.origin)
        timed_out("http://127.0.0.1:9/m.gguf")
        assert srv.requests and srv.requests[0].startswith(b"GET http://127.0.0.1:9/m.gguf ")


def test_the_deadline_holds_over_a_proxy_tunnel(metadata_cache, monkeypatch):
    """https through a proxy: the proxy's answer to CONNECT, sent a byte every 0.5 s, is held to the deadline."""
    with RawServer(slow_status) as srv:
        _proxy(monkeypatch, "https_proxy", srv.origin)
        timed_out("https://models.example/m.gguf")
        assert srv.requests and srv.requests[0].startswith(b"CONNECT models.example:443 ")


def test_the_deadline_bounds_the_name_lookup(metadata_cache, monkeypatch):
    from loopback import silent_resolver

    t = time.monotonic()
    with silent_resolver(monkeypatch):
        fails("https://slow.example/m.gguf", "timeout", "(its deadline)", timeout=20, deadline=1)
    assert time.monotonic() - t < 1 + SLACK


def test_interim_answers_are_capped(metadata_cache):
    """Endless 100 Continue answers end in a protocol fault long before a generous deadline."""
    with RawServer(endless_continue) as srv:
        t = time.monotonic()
        fails(srv.url("/m.gguf"), "protocol", "interim (1xx) answers", deadline=60, timeout=30, cache=False)
    assert time.monotonic() - t < 3


def test_transports_given_a_deadline_hold_it():
    """The transports themselves (as a caller of KeepAliveTransport or UrllibTransport would use them)."""
    from gguftok.sources.http import TransportTimeout

    for transport in (KeepAliveTransport(), UrllibTransport()):
        with RawServer(slow_headers) as srv:
            t = time.monotonic()
            with pytest.raises(TransportTimeout) as e:
                transport.request("GET", srv.url("/x"), {}, 2.0, deadline=time.monotonic() + 1.5)
            assert time.monotonic() - t < 1.5 + SLACK and e.value.deadline, type(transport)
        transport.close()


def test_the_cli_ends_at_its_deadline_in_one_line(metadata_cache):
    with RawServer(slow_headers) as srv:
        t = time.monotonic()
        r = run("info", srv.url("/x.gguf"), "--deadline", "3", "--no-cache", cache=metadata_cache)
        took = time.monotonic() - t
    err = r.stderr.decode()
    assert r.returncode == 1 and took < 3 + SLACK + 1.5, (took, err)  # (+ the interpreter's start)
    assert err.count("\n") == 1 and "deadline" in err and "Traceback" not in err, err


def run(*args: str, cache) -> subprocess.CompletedProcess:
    env = {**os.environ, "GGUFTOK_METADATA_CACHE": str(cache)}
    return subprocess.run([sys.executable, "-m", "gguftok", *args], capture_output=True, cwd=REPO, timeout=60,
                          env=env)


# ------------------------------------------------------------------------------------------ 2: headers stay home


SECRETS = {"Authorization": "Bearer s3cret", "Cookie": "c=1", "Proxy-Authorization": "Basic eA==",
           "X-Api-Key": "k3y", "X-HF-Token": "hf_x", "X-Amz-Security-Token": "amz", "Accept-Language": "fr"}


def test_no_caller_header_follows_a_redirect_to_another_origin(loopback, metadata_cache, vocab_path):
    with Loopback() as other:
        other.serve("/m.gguf", vocab_path("gpt-2"))
        loopback.fault("/hostile/moved.gguf", status=302, headers={"Location": other.url("/m.gguf")})
        md = read_metadata(open_source(loopback.url("/hostile/moved.gguf"), headers=SECRETS, cache=False))
        assert md["tokenizer.ggml.model"] == "gpt2"
        home = [h for _, p, h in loopback.log if p == "/hostile/moved.gguf"]
        assert home and all(h.get(k.lower()) == v for h in home for k, v in SECRETS.items())
        sent = {k for _, _, h in other.log for k in h}
        assert other.log and not sent & {k.lower() for k in SECRETS}, sent
        assert "range" in sent and "accept-encoding" in sent  # the reader's own headers go everywhere


def test_headers_named_safe_are_forwarded(loopback, metadata_cache, vocab_path):
    with Loopback() as other:
        other.serve("/m.gguf", vocab_path("gpt-2"))
        loopback.fault("/hostile/moved2.gguf", status=302, headers={"Location": other.url("/m.gguf")})
        src = open_source(loopback.url("/hostile/moved2.gguf"), cache=False, headers=SECRETS,
                          forward_headers=("accept-language", "X-Api-Key"))
        read_metadata(src)
        got = [h for _, _, h in other.log]
        assert got and all(h.get("accept-language") == "fr" and h.get("x-api-key") == "k3y" for h in got)
        assert all("authorization" not in h and "x-hf-token" not in h for h in got)
    with pytest.raises(ValueError, match="never forwarded"):
        HttpSource("https://example.org/m.gguf", Options(), headers=SECRETS, forward_headers=("Cookie",))


def test_a_redirect_back_home_sends_the_headers_again(loopback, metadata_cache, vocab_path):
    with Loopback() as other:
        loopback.serve("/hostile/home.gguf", vocab_path("gpt-2"))
        other.fault("/bounce", status=307, headers={"Location": loopback.url("/hostile/home.gguf")})
        loopback.fault("/hostile/away.gguf", status=302, headers={"Location": other.url("/bounce")})
        read_metadata(open_source(loopback.url("/hostile/away.gguf"), headers={"X-Api-Key": "k3y"}, cache=False))
        assert all("x-api-key" not in h for _, _, h in other.log)
        assert [h.get("x-api-key") for _, p, h in loopback.log if p == "/hostile/home.gguf"][:1] == ["k3y"]


# ------------------------------------------------------------------------------------------ 6: ports


@pytest.mark.parametrize("port", ["99999", "abc", "-1", "", "0", "8O", "+80", "٨٠"])
def test_a_bad_port_is_a_bad_reference(port, metadata_cache):
    for scheme in ("http", "https"):
        url = f"{scheme}://127.0.0.1:{port}/m.gguf"
        with pytest.raises(SourceError) as e:
            read_metadata(open_source(url, timeout=1, deadline=2))
        assert e.value.reason == "bad-reference" and f"port {port!r}" in str(e.value), e.value
        with pytest.raises(SourceError, match="port"):
            origin(url)


def test_good_ports_are_read(loopback):
    assert origin("http://127.0.0.1:8080/x") == ("http", "127.0.0.1", 8080)
    assert origin("https://[::1]:443/x") == ("https", "::1", 443)
    assert origin("https://user:pw@example.org/x") == ("https", "example.org", 443)
    assert origin("https://example.org:65535/x")[2] == 65535
    check_url("https://[::1]/x", "x")


def test_a_redirect_to_a_bad_port_is_refused(loopback, metadata_cache):
    loopback.fault("/hostile/badport.gguf", status=302, headers={"Location": "http://127.0.0.1:99999/m.gguf"})
    e = fails(loopback.url("/hostile/badport.gguf"), "bad-reference", "port '99999'", cache=False)
    assert "redirect" in str(e)


# ------------------------------------------------------------------------------------------ 11: protocol faults


@pytest.mark.parametrize(("script", "match"), [(many_headers, "more than 100 headers"),
                                               (garbage_status, "SSH-2.0-OpenSSH")],
                         ids=["many-headers", "garbage-status"])
def test_a_server_that_breaks_the_protocol_says_so(script, match, metadata_cache):
    with RawServer(script) as srv:
        e = fails(srv.url("/m.gguf"), "protocol", match, cache=False, timeout=5, deadline=8)
    assert "is the network on" not in str(e) and "not valid HTTP" in str(e)


def test_junk_after_a_body_poisons_the_connection(vocab_path, metadata_cache):
    """Bytes after a body, on a kept connection, would be read as the next answer: refused, never parsed."""
    data = vocab_path("qwen2").read_bytes()
    junk = b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-3/4\r\nContent-Length: 4\r\n\r\nGGUF"
    with RawServer(ranges_of(data, junk)) as srv:
        e = fails(srv.url("/m.gguf"), "protocol", "after the end of its answer", cache=False, timeout=5,
                  deadline=8)
    assert "is the network on" not in str(e)
    with RawServer(ranges_of(data)) as srv:  # the same server without the junk: one connection, every block
        md = read_metadata(open_source(srv.url("/m.gguf"), cache=False))
        assert md.origin.requests == 5 and srv.connections == 1


def test_a_cli_protocol_fault_is_one_line(metadata_cache):
    with RawServer(garbage_status) as srv:
        r = run("info", srv.url("/x.gguf"), "--timeout", "5", "--no-cache", cache=metadata_cache)
    err = r.stderr.decode()
    assert r.returncode == 1 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "not valid HTTP" in err


def test_the_lookup_thread_never_leaks_a_traceback(monkeypatch, capfd):
    """Whatever the resolver raises in the lookup's thread comes back as one OSError (it was a thread's
    traceback, then KeyError: 'addresses')."""
    import socket

    def broken(*args, **kwargs):
        raise RuntimeError("the resolver broke")

    monkeypatch.setattr(socket, "getaddrinfo", broken)
    with pytest.raises(OSError, match="the resolver broke"):
        lookup("broken.example", 443, 2.0)
    assert "Traceback" not in capfd.readouterr().err


# ------------------------------------------------------------------------------------------ hf:// and its CDN


@pytest.fixture
def slow_cdn(vocab_path, metadata_cache, monkeypatch):
    """A Hub stand-in whose CDN sends the head of every answer a byte every 0.3 s (for 8 s, then hangs up)."""
    pytest.importorskip("huggingface_hub")
    from huggingface_hub import constants
    from loopback import HubStandIn

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    with Loopback() as server, Loopback() as cdn:
        hub = HubStandIn(server, cdn)
        hub.add("me/slow", {"m.gguf": vocab_path("gpt-2")})
        path = f"/blobs/{hub.digest(vocab_path('gpt-2'))}"
        cdn.fault(path, drip_head=0.3)
        monkeypatch.setenv("HF_ENDPOINT", hub.endpoint)
        yield hub


def test_hf_reads_hold_the_deadline_when_the_cdn_drips(slow_cdn):
    t = time.monotonic()
    with pytest.raises(SourceError) as e:
        read_metadata(open_source("hf://me/slow/m.gguf", deadline=DEADLINE, timeout=TIMEOUT, cache=False))
    assert e.value.reason == "timeout" and time.monotonic() - t < DEADLINE + SLACK, (time.monotonic() - t, e.value)


def test_hf_reads_hold_the_deadline_and_keep_the_token_on_the_hub(slow_cdn, monkeypatch):
    """The CDN is read with this module's transport, under its clock: the deadline holds, and the Hub's token
    still goes to the Hub only."""
    timed_out("hf://me/slow/m.gguf")
    slow_cdn.cdn.faults.clear()
    monkeypatch.setenv("HF_TOKEN", slow_cdn.token)
    md = read_metadata(open_source("hf://me/slow/m.gguf", cache=False))
    assert md["tokenizer.ggml.model"] == "gpt2"
    assert slow_cdn.cdn.log and all("authorization" not in h for _, _, h in slow_cdn.cdn.log)
    assert any(h.get("authorization") == f"Bearer {slow_cdn.token}" for _, _, h in slow_cdn.hub.log)
