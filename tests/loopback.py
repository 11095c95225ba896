"""HTTP servers on 127.0.0.1 for the tests of gguftok.sources: no internet needed.

:class:`Loopback` serves files (from disk, read only where asked, so a sparse 8 GB file costs nothing) with or
without Range support, counts the body bytes it sends, logs every request, and injects faults per path: an
error status, a body cut short, a stall, a trickle, a Content-Range that disagrees, a compressed body.

:class:`HubStandIn` is the few routes of the Hugging Face Hub that ``huggingface_hub.get_hf_file_metadata``
calls: ``HEAD``/``GET {endpoint}/{repo}/resolve/{revision}/{file}`` answering as the Hub does (``X-Repo-Commit``,
``X-Linked-Etag``, ``X-Linked-Size``, ``ETag``; ``X-Error-Code`` on errors; private and gated repositories),
and redirecting to a second server standing in for the CDN, on another port (another origin), that serves
the file by its sha256.

:func:`sparse_model` writes a synthetic multi-GB GGUF file: a real vocabulary's key/value section, many
tensor infos, and a sparse tensor section (holes: no disk space).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import socket
import ssl
import struct
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from gguftok import read_metadata

_RANGE = re.compile(r"bytes=(\d+)-(\d*)")


@dataclass
class Fault:
    """What goes wrong on a path: ``status`` (answer that instead, with ``headers``), ``truncate`` (close after
    that many body bytes), ``stall`` (seconds before the body), ``trickle`` (seconds between bytes),
    ``wrong_total`` (a Content-Range total off by this), ``wrong_start`` (Content-Range starting this many bytes
    late), ``gzip`` (say Content-Encoding: gzip), ``no_ranges`` (answer 200 with the whole file), ``close`` /
    ``drop`` (end the connection after each answer, saying so or not), ``hangup`` (close without answering)."""

    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    truncate: int | None = None
    stall: float = 0.0
    trickle: float = 0.0
    wrong_total: int = 0
    wrong_start: int = 0
    gzip: bool = False
    no_ranges: bool = False
    close: bool = False  # say Connection: close and close after each answer
    drop: bool = False  # close after each answer without saying so (as a server timing out an idle connection)
    hangup: bool = False  # read the request, then close without answering
    after: int = 0  # the fault applies from this request on (0: the first)
    drip_head: float = 0.0  # seconds between the bytes of the status line and headers (each read on time; 8 s at most)


@dataclass
class Served:
    source: Path | bytes
    etag: str | None
    ranges: bool
    content_type: str = "application/octet-stream"

    @property
    def size(self) -> int:
        return len(self.source) if isinstance(self.source, bytes) else self.source.stat().st_size


class Loopback:
    """One server; ``with Loopback() as srv: srv.serve("/m.gguf", path); srv.url("/m.gguf")``."""

    def __init__(self, tls: tuple[Path, Path] | None = None) -> None:
        """``tls``: a certificate and its key, to serve https instead of http."""
        self.files: dict[str, Served] = {}
        self.faults: dict[str, Fault] = {}
        self.sent: Counter[str] = Counter()
        self.requests: Counter[str] = Counter()
        self.log: list[tuple[str, str, dict[str, str]]] = []  # (method, path, headers with lower-case names)
        self.conn_of: list[int] = []  # the connection each request of log came on (1, 2, ... in accept order)
        self.connections = 0  # connections accepted
        # a simulated link (bench/bench_sources.py --rtt): each answer waits one round trip, each new connection
        # `handshake` more (TCP, then TLS 1.2)
        self.latency = 0.0
        self.handshake = 3
        self.hook = None  # (handler, method, path) -> bool: a route of its own (the Hub stand-in)
        self.stop = threading.Event()
        self.lock = threading.Lock()
        loop = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive unless an answer says Connection: close
            timeout = 60  # an idle kept connection ends after this (seconds)

            def setup(self) -> None:
                super().setup()
                with loop.lock:
                    loop.connections += 1
                    self.conn_id = loop.connections
                if loop.latency:
                    time.sleep(loop.handshake * loop.latency)

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                loop.handle(self, "GET")

            def do_HEAD(self) -> None:
                loop.handle(self, "HEAD")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.scheme = "http"
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
            self.scheme = "https"
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    # ------------------------------------------------------------------------ set-up

    def __enter__(self) -> Loopback:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def origin(self) -> str:
        return f"{self.scheme}://{'127.0.0.1' if self.scheme == 'http' else 'localhost'}:{self.port}"

    def url(self, path: str) -> str:
        return self.origin + path

    def serve(self, path: str, source: Path | bytes, *, etag: str | None = "auto", ranges: bool = True) -> str:
        """Serve ``source`` at ``path``; ``etag="auto"`` is a strong ETag from the path and size."""
        if etag == "auto":
            size = len(source) if isinstance(source, bytes) else Path(source).stat().st_size
            etag = '"' + hashlib.sha256(f"{path} {size}".encode()).hexdigest()[:32] + '"'
        self.files[path] = Served(source if isinstance(source, bytes) else Path(source), etag, ranges)
        return self.url(path)

    def fault(self, path: str, **kw: object) -> None:
        self.faults[path] = Fault(**kw)

    def reset(self) -> None:
        """Forget faults and counts."""
        with self.lock:
            self.faults.clear()
            self.sent.clear()
            self.requests.clear()
            self.log.clear()
            self.conn_of.clear()

    def bytes_sent(self, path: str | None = None) -> int:
        return sum(self.sent.values()) if path is None else self.sent[path]

    def connections_of(self, path: str) -> list[int]:
        """The connection of each request for ``path``, in order: ``[3, 3, 3]`` is three requests on one."""
        with self.lock:
            return [c for (_, p, _), c in zip(self.log, self.conn_of, strict=True) if urlsplit(p).path == path]

    # ------------------------------------------------------------------------ answering

    def handle(self, h: BaseHTTPRequestHandler, method: str) -> None:
        parts = urlsplit(h.path)
        path = unquote(parts.path)
        with self.lock:
            self.log.append((method, h.path, {k.lower(): v for k, v in h.headers.items()}))
            self.conn_of.append(h.conn_id)
            n = self.requests[path]
            self.requests[path] += 1
        if self.latency:
            time.sleep(self.latency)
        try:
            if self.hook is not None and self.hook(h, method, path):
                return
            fault = self.faults.get(path)
            if fault is not None and n < fault.after:
                fault = None
            if fault is not None and fault.hangup:
                h.close_connection = True
                return
            if fault is not None and fault.status is not None:
                self.respond(h, fault.status, {"Content-Length": "0", **fault.headers}, close=fault.close,
                             drop=fault.drop)
                return
            served = self.files.get(path)
            if served is None:
                self.respond(h, 404, {"Content-Length": "0"})
                return
            self.send_file(h, method, path, served, fault or Fault())
        except (BrokenPipeError, ConnectionResetError):
            pass

    def respond(self, h: BaseHTTPRequestHandler, status: int, headers: dict[str, str], *, close: bool = False,
                drop: bool = False) -> None:
        """The status line and headers; the connection stays open for the next request unless ``close`` (say
        so) or ``drop`` (close it after this answer without saying so)."""
        h.send_response(status)
        for k, v in headers.items():
            h.send_header(k, v)
        if close:
            h.send_header("Connection", "close")
        h.end_headers()
        h.close_connection = close or drop

    def send_file(self, h: BaseHTTPRequestHandler, method: str, path: str, served: Served, fault: Fault,
                  extra: dict[str, str] | None = None) -> None:
        size = served.size
        headers = {"Content-Type": served.content_type, "Accept-Ranges": "bytes" if served.ranges else "none",
                   **(extra or {})}
        if served.etag:
            headers["ETag"] = served.etag
        if fault.gzip:
            headers["Content-Encoding"] = "gzip"
        m = _RANGE.fullmatch(h.headers.get("Range", "").strip())
        if_range = h.headers.get("If-Range")
        if m and served.ranges and not fault.no_ranges and (if_range is None or if_range == served.etag):
            first = int(m.group(1))
            last = min(int(m.group(2)) if m.group(2) else size - 1, size - 1)
            if first >= size:
                self.respond(h, 416, {"Content-Range": f"bytes */{size}", "Content-Length": "0"}, close=fault.close,
                             drop=fault.drop)
                return
            shown_first = first + fault.wrong_start
            headers["Content-Range"] = f"bytes {shown_first}-{last}/{size + fault.wrong_total}"
            headers["Content-Length"] = str(last - shown_first + 1)
            status = 206
        else:
            first, last, status = 0, size - 1, 200
            headers["Content-Length"] = str(size)
        # a body cut short ends its connection (as a real one would: nothing after it could be told apart)
        if fault.drip_head:
            head = f"HTTP/1.1 {status} Partial\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
            ends = time.monotonic() + 8  # then hang up: a client that waits so long fails, and no test hangs
            for i in range(len(head)):
                h.wfile.write(head[i].encode("latin-1"))
                h.wfile.flush()
                if self.stop.wait(fault.drip_head) or time.monotonic() > ends:
                    h.close_connection = True
                    return
            h.close_connection = True
        else:
            self.respond(h, status, headers, close=fault.close or fault.truncate is not None, drop=fault.drop)
        if method == "HEAD":
            return
        if fault.stall and self.stop.wait(fault.stall):
            return
        self.send_body(h, path, served.source, first, last + 1, fault)

    def send_body(self, h: BaseHTTPRequestHandler, path: str, source: Path | bytes, start: int, stop: int,
                  fault: Fault) -> None:
        if fault.truncate is not None:
            stop = min(stop, start + fault.truncate)
        step = 1 if fault.trickle else 64 << 10
        f = None if isinstance(source, bytes) else open(source, "rb")  # noqa: SIM115 (closed below)
        try:
            if f is not None:
                f.seek(start)
            pos = start
            while pos < stop and not self.stop.is_set():
                n = min(step, stop - pos)
                data = source[pos:pos + n] if f is None else f.read(n)
                if not data:
                    break
                h.wfile.write(data)
                with self.lock:
                    self.sent[path] += len(data)
                pos += len(data)
                if fault.trickle:
                    h.wfile.flush()
                    if self.stop.wait(fault.trickle):
                        break
            h.wfile.flush()
        finally:
            if f is not None:
                f.close()


# ---------------------------------------------------------------------------------------------- the Hub


@dataclass
class Repo:
    files: dict[str, Path | bytes]
    commit: str = "c0ffee" * 6 + "beef"
    branches: tuple[str, ...] = ("main",)
    private: bool = False
    gated: bool = False


class HubStandIn:
    """The Hub's ``resolve`` route on ``hub``, redirecting large files to ``cdn`` (another origin).

    A file of the repo is served as the Hub serves an LFS file: the ``HEAD``/``GET`` of its resolve URL
    answers ``302`` to ``{cdn}/blobs/<sha256>?X-Amz-Signature=...`` with ``X-Repo-Commit``, ``X-Linked-Etag``
    (the sha256, quoted) and ``X-Linked-Size``; ``small`` files are answered ``200`` by the Hub itself (as
    files kept in git are). A private repository wants ``Authorization: Bearer <token>`` (else 401); a
    gated one answers 403 ``GatedRepo`` without it.
    """

    def __init__(self, hub: Loopback, cdn: Loopback, token: str = "hf_loopback_token") -> None:
        self.hub, self.cdn, self.token = hub, cdn, token
        self.repos: dict[str, Repo] = {}
        self.small: set[tuple[str, str]] = set()
        self.sha: dict[int, str] = {}
        hub.hook = self.route

    @property
    def endpoint(self) -> str:
        return self.hub.origin

    def add(self, repo_id: str, files: dict[str, Path | bytes], **kw: object) -> Repo:
        repo = Repo(files, **kw)
        self.repos[repo_id] = repo
        for source in files.values():
            digest = self.digest(source)
            self.cdn.serve(f"/blobs/{digest}", source, etag=f'"{digest}"')
        return repo

    def digest(self, source: Path | bytes) -> str:
        """The sha256 the Hub would give; of a sparse file, of its path and size (a test stands in for it)."""
        if isinstance(source, bytes):
            return hashlib.sha256(source).hexdigest()
        key = id(source)
        if key not in self.sha:
            st = Path(source).stat()
            if st.st_size > 64 << 20:
                self.sha[key] = hashlib.sha256(f"{source} {st.st_size}".encode()).hexdigest()
            else:
                self.sha[key] = hashlib.sha256(Path(source).read_bytes()).hexdigest()
        return self.sha[key]

    def route(self, h: BaseHTTPRequestHandler, method: str, path: str) -> bool:
        raw = urlsplit(h.path).path  # the revision may hold an escaped /: match before unescaping
        m = re.fullmatch(r"/(?:(datasets|spaces)/)?([^/]+/[^/]+)/resolve/([^/]+)/(.+)", raw)
        if not m:
            self.hub.respond(h, 404, {"Content-Length": "0"})
            return True
        _, repo_id, revision, file = (unquote(g) if g else g for g in m.groups())
        repo = self.repos.get(repo_id)
        auth = h.headers.get("Authorization")
        authorized = auth == f"Bearer {self.token}"

        def error(status: int, code: str | None, message: str = "") -> bool:
            headers = {"Content-Length": "0"}
            if code:
                headers["X-Error-Code"] = code
            if message:
                headers["X-Error-Message"] = message
            self.hub.respond(h, status, headers)
            return True

        if repo is None or (repo.private and not authorized):
            return error(401 if auth is None else 404, "RepoNotFound", "Repository not found")
        if repo.gated and not authorized:
            return error(403, "GatedRepo", "Access to model is restricted")
        if revision not in (*repo.branches, repo.commit):
            return error(404, "RevisionNotFound", "Invalid rev id")
        source = repo.files.get(file)
        if source is None:
            return error(404, "EntryNotFound", "Entry not found")
        digest = self.digest(source)
        size = len(source) if isinstance(source, bytes) else Path(source).stat().st_size
        headers = {"X-Repo-Commit": repo.commit, "ETag": f'"{hashlib.sha1(digest.encode()).hexdigest()}"',
                   "Accept-Ranges": "bytes"}
        if (repo_id, file) in self.small:
            served = Served(source if isinstance(source, bytes) else Path(source), headers["ETag"], True)
            key = f"/{repo_id}/resolve/{revision}/{file}"
            self.hub.send_file(h, method, key, served, Fault(), extra={"X-Repo-Commit": repo.commit})
            return True
        headers.update({"X-Linked-Etag": f'"{digest}"', "X-Linked-Size": str(size),
                        "Location": self.cdn.url(f"/blobs/{digest}?X-Amz-Signature=secret-{int(time.time())}"),
                        "Content-Length": "0"})
        self.hub.respond(h, 302, headers)
        return True


# ---------------------------------------------------------------------------------------------- big files


def sparse_model(dst: Path, vocab: Path, size: int, n_tensors: int = 2000) -> int:
    """Write ``dst``: the key/value section of ``vocab``, ``n_tensors`` tensor infos, then holes up to ``size``
    bytes. Returns the offset where the key/value section ends (what a reader needs)."""
    blob = vocab.read_bytes()
    md = read_metadata(blob)
    assert md.tensor_count == 0 and md.byte_order == "little"
    kv_count = struct.unpack_from("<Q", blob, 16)[0]
    head = blob[:8] + struct.pack("<QQ", n_tensors, kv_count) + blob[24:md.kv_end]
    infos = bytearray()
    rows, cols = 4096, 1024
    per = rows * cols * 4
    for i in range(n_tensors):
        name = f"blk.{i // 9}.t{i % 9}.weight".encode()
        infos += struct.pack("<Q", len(name)) + name + struct.pack("<IQQIQ", 2, cols, rows, 0, i * per)
    body = head + bytes(infos)
    body += bytes(-len(body) % 32)  # general.alignment: 32 by default
    with open(dst, "wb") as f:
        f.write(body)
        f.truncate(size)
    os.utime(dst)
    return md.kv_end


# ---------------------------------------------------------------------------------------------- no network


@contextlib.contextmanager
def silent_resolver(monkeypatch, host: str = "slow.example") -> Iterator[None]:
    """The name lookup of ``host`` never answers (a machine whose resolver is unreachable); others work."""
    release = threading.Event()
    real = socket.getaddrinfo

    def getaddrinfo(name, *args, **kwargs):
        if name == host:
            release.wait(30)
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    try:
        yield
    finally:
        release.set()


# ---------------------------------------------------------------------------------------------- hostile servers


class RawServer:
    """A TCP server on 127.0.0.1 that speaks no HTTP of its own: each connection is given to ``script(conn,
    server)``, which reads and writes raw bytes (the hostile behaviours below). ``lifetime`` bounds every
    connection: a script that would go on forever stops then, so a client that waits for it fails a test
    instead of hanging it. ``tls``: a certificate and its key, for ``https://localhost:PORT``."""

    def __init__(self, script, *, lifetime: float = 12.0, tls: tuple[Path, Path] | None = None) -> None:
        self.script, self.lifetime = script, lifetime
        self.stop = threading.Event()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.scheme = "http" if tls is None else "https"
        self.tls = None
        if tls is not None:
            self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.tls.load_cert_chain(*tls)
        self.connections = 0
        self.requests: list[bytes] = []  # the request heads received, in order
        self.lock = threading.Lock()
        self.conns: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)

    def __enter__(self) -> RawServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        with contextlib.suppress(OSError):
            self.sock.close()
        with self.lock:
            for c in self.conns:
                with contextlib.suppress(OSError):
                    c.close()

    @property
    def origin(self) -> str:
        return f"{self.scheme}://{'127.0.0.1' if self.scheme == 'http' else 'localhost'}:{self.port}"

    def url(self, path: str) -> str:
        return self.origin + path

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.connections += 1
                self.conns.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(self.lifetime)
        ends = time.monotonic() + self.lifetime
        try:
            if self.tls is not None:
                conn = self.tls.wrap_socket(conn, server_side=True)
            self.script(_Peer(conn, self, ends))
        except (OSError, _Over):
            pass
        finally:
            with contextlib.suppress(OSError):
                conn.close()


class _Over(Exception):
    """A script's connection outlived the server's ``lifetime``."""


class _Peer:
    """One connection as a script sees it: ``request()`` (the next request's head), ``send(bytes)``,
    ``drip(bytes, every)`` (a byte at a time), ``alive`` (neither stopped nor past the lifetime)."""

    def __init__(self, conn: socket.socket, server: RawServer, ends: float) -> None:
        self.conn, self.server, self.ends = conn, server, ends
        self.buffer = b""

    @property
    def alive(self) -> bool:
        return not self.server.stop.is_set() and time.monotonic() < self.ends

    def request(self) -> bytes:
        while b"\r\n\r\n" not in self.buffer:
            data = self.conn.recv(65536)
            if not data:
                raise _Over
            self.buffer += data
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        with self.server.lock:
            self.server.requests.append(head)
        return head

    def send(self, data: bytes) -> None:
        self.conn.sendall(data)

    def drip(self, data: bytes, every: float) -> None:
        for i in range(len(data)):
            if not self.alive or self.server.stop.wait(every):
                raise _Over
            self.conn.sendall(data[i:i + 1])

    def hold(self) -> None:
        """Send nothing more until the server stops or the lifetime ends."""
        self.server.stop.wait(max(self.ends - time.monotonic(), 0))
        raise _Over


def endless_continue(peer: _Peer) -> None:
    """``HTTP/1.1 100 Continue`` answers, one after the other, forever (no real answer ever comes)."""
    peer.request()
    while peer.alive:
        peer.send(b"HTTP/1.1 100 Continue\r\n\r\n" * 64)
        time.sleep(0.001)


def slow_continue(peer: _Peer) -> None:
    """A ``100 Continue`` answer every 0.5 s, forever (fewer than any cap on interim answers within seconds)."""
    peer.request()
    while peer.alive:
        peer.send(b"HTTP/1.1 100 Continue\r\n\r\n")
        if peer.server.stop.wait(0.5):
            raise _Over


def slow_status(peer: _Peer) -> None:
    """The status line a byte every 0.5 s: each read is on time, the answer never ends."""
    peer.request()
    peer.drip(b"HTTP/1.1 206 Partial Content\r\n" * 100, 0.5)


def slow_headers(peer: _Peer) -> None:
    """A status line at once, then headers a byte every 0.5 s."""
    peer.request()
    peer.send(b"HTTP/1.1 206 Partial Content\r\n")
    peer.drip(b"X-Slow: " + b"a" * 10000 + b"\r\n", 0.5)


def silent(peer: _Peer) -> None:
    """Accept and never answer (for https: the ClientHello goes unanswered)."""
    peer.hold()


def many_headers(peer: _Peer) -> None:
    """An answer with 500 headers."""
    peer.request()
    peer.send(b"HTTP/1.1 206 Partial Content\r\n" + b"".join(b"X-H%d: x\r\n" % i for i in range(500)) + b"\r\n")
    peer.hold()


def garbage_status(peer: _Peer) -> None:
    """Something that is not HTTP at all."""
    peer.request()
    peer.send(b"SSH-2.0-OpenSSH_9.6\r\n")
    peer.hold()


def ranges_of(data: bytes, junk: bytes = b""):
    """A script serving ``data`` with range requests on a kept connection, ``junk`` sent after each body
    (bytes no request asked for: a poisoned connection, the next answer read from it would be garbage)."""

    def script(peer: _Peer) -> None:
        while peer.alive:
            head = peer.request()
            m = re.search(rb"(?im)^range:\s*bytes=(\d+)-(\d*)", head)
            first = int(m.group(1)) if m else 0
            last = min(int(m.group(2)) if m and m.group(2) else len(data) - 1, len(data) - 1)
            body = data[first:last + 1]
            peer.send(b"HTTP/1.1 206 Partial Content\r\nContent-Type: application/octet-stream\r\n"
                      b"Content-Range: bytes %d-%d/%d\r\nContent-Length: %d\r\n\r\n"
                      % (first, last, len(data), len(body)) + body + junk)

    return script
